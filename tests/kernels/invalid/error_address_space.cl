// L0016: pointers converted between address spaces: __global to __private,
// a private array passed for a __global parameter, a __global pointer
// passed for a __private parameter, __constant to __global.

void fill(__global float *dst, int i, float v)
{
    dst[i] = v;
}

float first(__private float *p)
{
    return p[0];
}

__kernel void spaces(__global float *x, __constant float *c, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    __private float *p = x;            //~ error[L0016]
    float tmp[4] = { 0.0f, 1.0f, 2.0f, 3.0f };
    fill(tmp, 0, 1.0f);                //~ error[L0016]
    float f = first(x);                //~ error[L0016]
    __global float *g = c;             //~ error[L0016]
    x[i] = f + p[0] + g[0] + first(tmp);
}
