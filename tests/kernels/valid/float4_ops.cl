// float4_ops.cl - vector types: float4 arithmetic with scalar broadcast,
// vector literals, swizzles (.xyzw, .sN, .hi, .lo, .even, .odd, swizzle
// assignment), vload4/vstore4, convert_int4, as_uint, dot/length/normalize,
// and float3/float2 sub-vectors.
//
// Launch: 1-D, one work-item per float4 group: global = round_up(n); ids >= n
//   return.
// Arguments: float4_arith: a, b, out have n float4 elements.
//   float4_swizzles: in and out have 4 * n floats, iout has n int4 (4 * n
//   ints), bits has n uints, geo has 2 * n floats.

__kernel void float4_arith(__global const float4 *a, __global const float4 *b,
                           __global float4 *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float4 x = a[i];  //~ shape: varying
    float4 y = b[i];
    float4 lit = (float4)(1.0f, 2.0f, 3.0f, 4.0f);  //~ shape: uniform
    float4 splat = (float4)(0.5f);  //~ shape: uniform
    float4 s = x + y * 2.0f;           // scalar broadcast
    float4 r = s * lit - splat / (float4)(2.0f);  //~ shape: varying
    r.xy = r.yx;                       // swizzle on both sides
    r.w = x.s0 + y.s3;
    r.z *= -1.0f;
    r += (float4)(x.xy, y.zw);         // literal built from two float2
    out[i] = r;
}

__kernel void float4_swizzles(__global const float *in, __global float *out,
                              __global int *iout, __global uint *bits,
                              __global float *geo, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;

    float4 v = vload4(i, in);  //~ shape: varying
    float2 lo = v.lo;
    float2 hi = v.hi;
    float2 ev = v.even;
    float2 od = v.odd;
    float4 halves = (float4)(hi, lo);
    float4 mixed = (float4)(ev.x, od.y, v.zw);
    float4 rev = v.wzyx;
    float4 same = v.xyzw;
    float3 head = v.xyz;
    float s3 = v.s3 + v.s0;

    // Sanitize before the float -> int conversion (fmin/fmax also map NaN
    // to a number): convert_int4 of an out-of-range value is undefined.
    float4 bounded = fmax(fmin(v * 100.0f, (float4)(1.0e6f)), (float4)(-1.0e6f));
    int4 q = convert_int4(bounded);  //~ shape: varying
    vstore4(q, i, iout);

    bits[i] = as_uint(v.x) ^ (as_uint(v.s2) >> 1);  //~ access: bits[i]=store:contiguous

    float4 safe = v + (float4)(0.0f, 0.0f, 0.0f, 1.0f);
    float len = length(safe);
    float4 unit = normalize((float4)(head, 1.0f));
    geo[2 * i] = dot(lo, hi) + len;  //~ access: geo[2 * i]=store:strided(8) //~ warning[L0204]
    geo[2 * i + 1] = dot(unit, rev) + s3;  //~ access: geo[2 * i + 1]=store:strided(8) //~ warning[L0204]

    vstore4(halves + mixed * 0.25f - rev + same, i, out);
}
