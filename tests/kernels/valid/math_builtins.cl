// math_builtins.cl - the supported math, common and relational built-ins on
// float and float4: sqrt rsqrt fabs fmin fmax fma mad floor ceil round trunc
// exp exp2 log log2 pow sin cos tan atan atan2 tanh native_sin native_exp
// half_sqrt, select mix step sign, isnan isinf isfinite any all.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: scalar_math: x and y have n floats, out has 24 * n floats
//   (out[k * n + i] holds result k of item i). vector_math: a and b have n
//   float4, out has n float4, flags has n ints.
// native_* and half_* results have implementation-defined precision;
// compare them with a tolerance. Logarithms and square roots of negative
// inputs give NaN, which is fine (deterministic).

__kernel void scalar_math(__global const float *x, __global const float *y,
                          __global float *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float a = x[i];  //~ shape: varying //~ access: x[i]=contiguous
    float b = y[i];
    float pa = fabs(a) + 1.0f;        // positive, >= 1  //~ shape: varying
    float small = fmin(fmax(b, -10.0f), 10.0f);

    out[0 * n + i] = sqrt(pa);  //~ access: out[0 * n + i]=store:contiguous
    out[1 * n + i] = rsqrt(pa);
    out[2 * n + i] = fmin(a, b) + fmax(a, b);
    out[3 * n + i] = fma(a, b, 1.0f);
    out[4 * n + i] = mad(a, 0.5f, b);
    out[5 * n + i] = floor(a) + ceil(b);
    out[6 * n + i] = round(a) - trunc(b);
    out[7 * n + i] = exp(small);
    out[8 * n + i] = exp2(small);
    out[9 * n + i] = log(pa);
    out[10 * n + i] = log2(pa);
    out[11 * n + i] = pow(pa, small);  //~ access: out[11 * n + i]=store:contiguous
    out[12 * n + i] = sin(small) + cos(small);
    out[13 * n + i] = tan(small * 0.1f);
    out[14 * n + i] = atan(a);
    out[15 * n + i] = atan2(a, b);
    out[16 * n + i] = tanh(small);
    out[17 * n + i] = native_sin(small);
    out[18 * n + i] = native_exp(small);
    out[19 * n + i] = half_sqrt(pa);
    out[20 * n + i] = select(a, b, a > b);
    out[21 * n + i] = mix(a, b, 0.25f);
    out[22 * n + i] = step(0.0f, a) + sign(b);
    out[23 * n + i] = isnan(a) ? 1.0f : (isinf(b) ? 2.0f : (isfinite(a - b) ? 3.0f : 4.0f));  //~ branch: divergent //~ access: out[23 * n + i]=store:contiguous
}

__kernel void vector_math(__global const float4 *a, __global const float4 *b,
                          __global float4 *out, __global int *flags, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float4 va = a[i];
    float4 vb = b[i];
    int4 nan_mask = isnan(va);  //~ shape: varying
    int4 inf_mask = isinf(vb);
    int4 finite = isfinite(va + vb);
    int4 bigger = va > vb;                     // -1 where true, 0 elsewhere  //~ shape: varying

    float4 r = select(vb, va, bigger);          // per-lane max (NaN-safe)
    r = mix(r, sqrt(fabs(vb)), (float4)(0.5f));
    r += step((float4)(0.0f), va) * sign(vb);
    r = fma(r, (float4)(2.0f), floor(va) - ceil(vb));
    out[i] = r;

    flags[i] = (any(nan_mask) ? 1 : 0) | (any(inf_mask) ? 2 : 0) | (all(finite) ? 4 : 0);  //~ branch: divergent //~ access: flags[i]=store:contiguous
}
