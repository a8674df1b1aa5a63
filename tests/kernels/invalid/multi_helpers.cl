// Several independent errors in helpers and kernels: a bad return in a
// helper, a helper called with too many arguments, an invalid swizzle, a
// kernel with a non-void return type, a break outside a loop.

float clamp01(float v)
{
    if (v < 0.0f)
        return;                                     //~ error[L0019]
    return fmin(v, 1.0f);
}

float4 brighten(float4 c, float amount)
{
    return c + (float4)(amount, amount, amount, 0.0f);
}

__kernel void tone(__global float4 *img, int n, float amount)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float4 c = brighten(img[i], amount, 1.0f);      //~ error[L0006]
    c.w = clamp01(c.q);                             //~ error[L0009]
    img[i] = c;
}

__kernel float average(__global const float *x, int n) //~ error[L0017]
{
    float s = 0.0f;
    for (int k = 0; k < n; k++)
        s += x[k];
    return s / n;
}

__kernel void stop_early(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        break;                                      //~ error[L0018]
    x[i] = 1.0f;
}
