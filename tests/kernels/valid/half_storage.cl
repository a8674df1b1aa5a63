// half_storage.cl - `half` as a storage format (no cl_khr_fp16): buffers of
// half are read with vload_half / vload_halfN / vloada_halfN, which widen to
// float exactly, and written with vstore_half[N][_rte|_rtz|_rtp|_rtn] and
// vstorea_halfN, which round float or double once. This is how image and
// signal-processing kernels halve their memory traffic.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: round_to_half: in has n floats, rte/rtz/rtp/rtn have n halves;
//   scale is any float (large scales overflow to infinity, small ones give
//   subnormal halves). half4_axpy: x and y have 4 * n halves (y is updated in
//   place). packed3_scale: in and out have 4 * n halves (vloada_half3 reads
//   3 of every 4). private_staging: in has 2 * n halves, out has n floats.

__kernel void round_to_half(__global const float *in, __global half *rte,
                            __global half *rtz, __global half *rtp,
                            __global half *rtn, float scale, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;
    float v = in[i] * scale;
    vstore_half(v, i, rte);  //~ access: vstore_half(v, i, rte)=store:contiguous
    vstore_half_rtz(v, i, rtz);
    vstore_half_rtp(v, i, rtp);
    vstore_half_rtn(v, i, rtn);
}

__kernel void half4_axpy(__global const half *x, __global half *y, float a, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float4 xv = vload_half4(i, x);  //~ access: vload_half4(i, x)=contiguous
    float4 yv = vload_half4(i, y);
    vstore_half4_rte(a * xv + yv, i, y);
}

__kernel void packed3_scale(__global const half *in, __global half *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float3 v = vloada_half3(i, in);  //~ warning[L0204] //~ access: vloada_half3(i, in)=strided
    double3 d = convert_double3(v) * 0.1;
    vstorea_half3_rtn(d, i, out);  //~ warning[L0204]
}

__kernel void private_staging(__global const half *in, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    // half objects cannot be declared: private staging is ushort storage.
    ushort bits[2];
    __private half *tmp = (__private half *)bits;
    float2 pair = vload_half2(i, in);
    vstore_half(pair.y, 0, tmp);
    vstore_half(pair.x, 1, tmp);
    out[i] = vload_half(0, tmp) - vload_half(1, tmp) + (float)bits[0];
}
