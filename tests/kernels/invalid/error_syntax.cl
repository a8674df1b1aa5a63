// L0001: syntax errors inside statements; each is contained in its
// statement, so every one is reported and the rest of the kernel parses.

__kernel void broken(__global float *x, __global const float *y, int n)
{
    int i = get_global_id(0);
    float a = (x[i] + 1.0f;          //~ error[L0001]
    float b = y[i] * / 2.0f;         //~ error[L0001]
    int = 5;                         //~ error[L0001]
    x[i] = a + b);                   //~ error[L0001]
    for (int k = 0; k < n k++)       //~ error[L0001]
        x[i] += 1.0f;
    float c = y[i]] + 1.0f;          //~ error[L0001]
    x[i] = c;
}

__kernel void still_parsed(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] = 0.0f;
    else else                        //~ error[L0001]
        x[i] = 1.0f;
}
