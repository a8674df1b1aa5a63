// pointer_math.cl - the math built-ins that return a second result through
// a pointer: fract, modf, sincos, frexp, remquo (and remainder), with the
// pointer in __global and __private memory, on float and float4, as
// Monte-Carlo and signal-processing kernels use them (fract for the
// fractional part of a texture coordinate, sincos for a rotation, frexp to
// normalise, remquo to reduce a phase).
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: split: x and y have n floats; frac, whole, sine, cosine, mant,
//   rem have n floats, expo and quo n ints. split4: x has n float4;
//   frac and whole n float4, expo n int4.

__kernel void split(__global const float *x, __global const float *y,
                    __global float *frac, __global float *whole,
                    __global float *sine, __global float *cosine,
                    __global float *mant, __global int *expo,
                    __global float *rem, __global int *quo, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float a = x[i] * 1000.0f;  //~ shape: varying
    frac[i] = fract(a, &whole[i]);  //~ access: &whole[i]=store:contiguous
    float ip;
    float m = modf(a, &ip);
    sine[i] = sincos(x[i], &cosine[i]) + m - ip;  //~ access: &cosine[i]=contiguous, sine[i]=contiguous
    int e;
    mant[i] = frexp(a, &e);
    expo[i] = e;
    rem[i] = remquo(a, y[i], &quo[i]) + remainder(y[i], x[i]);
}

__kernel void split4(__global const float4 *x, __global float4 *frac,
                     __global float4 *whole, __global int4 *expo, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float4 w;
    float4 f = fract(x[i] * 3.5f, &w);
    frac[i] = f;
    whole[i] = w;
    int4 e;
    frac[i] += frexp(x[i], &e);
    expo[i] = e;
}
