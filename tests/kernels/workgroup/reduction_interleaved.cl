/*
 * reduction_interleaved.cl - sum of an array of floats, one partial sum per
 * work-group, by a tree in __local memory with interleaved addressing: the
 * first two steps of the classic reduction series.
 *
 * reduce_modulo:  in step s, work-item t adds sdata[t + s] into sdata[t]
 *                 when t is a multiple of 2s (highly divergent, and the
 *                 remainder is an integer division).
 * reduce_strided: the active work-items are the first ones: t computes
 *                 index = 2 s t (no divergence inside a SIMD group while
 *                 index < local size, but strided __local accesses).
 *
 * Launch: 1-D, global = n, local = L, L a power of two; n a multiple of L.
 * Arguments: g_idata has n floats, g_odata has n / L floats (one partial
 *   sum per work-group), sdata is L floats of __local memory.
 */

// run: reduce_modulo --global 1024 --local 64 --arg g_idata=random:1024 --arg g_odata=zeros:16 --arg sdata=local:256
// run: reduce_modulo --global 1024 --local 256 --arg g_idata=random:1024 --arg g_odata=zeros:4 --arg sdata=local:1024
__kernel void reduce_modulo(__global const float *g_idata,
                            __global float *g_odata,
                            __local float *sdata)
{
    unsigned int tid = get_local_id(0);  //~ shape: contiguous
    unsigned int i = get_global_id(0);  //~ shape: contiguous

    sdata[tid] = g_idata[i];  //~ access: sdata[tid]=store:contiguous, g_idata[i]=contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    // The local size is read once (PoCL 3.1 miscompiles this loop when the
    // bound is get_local_size(0) in the condition).
    unsigned int lsize = get_local_size(0);  //~ shape: uniform
    for (unsigned int s = 1; s < lsize; s *= 2) {  //~ loop: uniform //~ shape: s=uniform
        if ((tid % (2 * s)) == 0)  //~ branch: divergent //~ warning[L0205]
            sdata[tid] += sdata[tid + s];  //~ access: sdata[tid + s]=contiguous
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (tid == 0)  //~ branch: divergent
        g_odata[get_group_id(0)] = sdata[0];  //~ access: sdata[0]=uniform, g_odata[get_group_id(0)]=store:uniform
}

// run: reduce_strided --global 1024 --local 32 --arg g_idata=random:1024 --arg g_odata=zeros:32 --arg sdata=local:128
// run: reduce_strided --global 2048 --local 128 --arg g_idata=random:2048 --arg g_odata=zeros:16 --arg sdata=local:512
__kernel void reduce_strided(__global const float *g_idata,
                             __global float *g_odata,
                             __local float *sdata)
{
    unsigned int tid = get_local_id(0);
    unsigned int i = get_global_id(0);

    sdata[tid] = g_idata[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (unsigned int s = 1; s < get_local_size(0); s *= 2) {  //~ loop: uniform
        unsigned int index = 2 * s * tid;  //~ shape: varying
        if (index < get_local_size(0))  //~ branch: divergent
            sdata[index] += sdata[index + s];  //~ access: sdata[index + s]=gather //~ warning[L0202] warning[L0203]
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (tid == 0)
        g_odata[get_group_id(0)] = sdata[0];
}
