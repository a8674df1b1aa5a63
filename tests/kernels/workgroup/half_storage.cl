/*
 * half_storage.cl - half precision as a storage format (no half
 * arithmetic, so no cl_khr_fp16 needed): vload_half / vstore_half convert
 * between float registers and 16-bit values in memory, vload_half4 moves
 * four at a time, vloada_half4 / vstorea_half4 are the aligned forms, and
 * vstore_half_rtz rounds toward zero.
 *
 * compress_block: loads floats, stages them in __local memory, and stores
 *   the block reversed as halves (round to nearest even) and as halves
 *   rounded toward zero.
 * expand_scale4:  reads four halves per work-item, scales them in float,
 *   writes floats.
 * halve_aligned4: halves four aligned halves per work-item in place.
 *
 * Launch: 1-D, global = G L, local = L (at most 256; any L for the
 *   float4 kernels).
 * Arguments: compress_block: in has G L floats, out_rte and out_rtz have
 *   G L halves. expand_scale4: in has 4 N halves (N = global size), out
 *   has 4 N floats. halve_aligned4: data has 4 N halves (N = global
 *   size), halved in place.
 */

// PoCL 3.1 resolves the half built-ins only in OpenCL C 1.2 mode.
// build: -cl-std=CL1.2
// run: compress_block --global 256 --local 64 --arg in=random:256:-1000:1000 --arg out_rte=zeros:256 --arg out_rtz=zeros:256
// run: compress_block --global 256 --local 256 --arg in=random:256:-1:1 --arg out_rte=zeros:256 --arg out_rtz=zeros:256
__kernel void compress_block(__global const float *in, __global half *out_rte,
                             __global half *out_rtz)
{
    __local float stage[256];

    size_t lid = get_local_id(0);  //~ shape: contiguous
    size_t L = get_local_size(0);
    size_t base = get_group_id(0) * L;

    stage[lid] = in[base + lid];
    barrier(CLK_LOCAL_MEM_FENCE);

    float v = stage[L - 1 - lid];  //~ access: stage[L - 1 - lid]=strided(-4) //~ warning[L0204]
    vstore_half(v, base + lid, out_rte);
    vstore_half_rtz(v, base + lid, out_rtz);
}

// run: expand_scale4 --global 64 --local 16 --arg in=random:256 --arg out=zeros:64 --arg scale=2.5
// run: expand_scale4 --global 64 --local 64 --arg in=random:256 --arg out=zeros:64 --arg scale=-0.5
__kernel void expand_scale4(__global const half *in, __global float4 *out, float scale)
{
    size_t i = get_global_id(0);  //~ shape: contiguous
    float4 v = vload_half4(i, in);
    out[i] = v * scale;  //~ access: out[i]=store:contiguous
}

// run: halve_aligned4 --global 64 --local 16 --arg data=random:256
// run: halve_aligned4 --global 32 --local 32 --arg data=random:128
// The aligned forms: vloada_half4 / vstorea_half4 address whole half4
// elements (8-byte aligned), here halving every value in place.
__kernel void halve_aligned4(__global half *data)
{
    size_t i = get_global_id(0);
    float4 v = vloada_half4(i, data);
    vstorea_half4(0.5f * v, i, data);
}
