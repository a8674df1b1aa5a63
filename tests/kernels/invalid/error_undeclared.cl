// L0003: use of undeclared identifiers: a misspelled variable, a name that
// was never declared, a misspelled built-in, an undeclared function, an
// unknown type name, and a loop variable used after its scope ended.

__kernel void blur(__global const float *in, __global float *out, int width)
{
    int x = get_global_id(0);
    if (x >= width)
        return;
    int y = wdth - 1;                      //~ error[L0003]
    float s = in[x] + in[min(x + stride, y)]; //~ error[L0003]
    int g = get_globl_id(0);               //~ error[L0003]
    out[x] = s * scale_factor(x);          //~ error[L0003]
    Pixel p;                               //~ error[L0003]
    for (int k = 0; k < 3; k++)
        s += in[k];
    out[x] += k;                           //~ error[L0003]
    out[x] += (float)g;
}
