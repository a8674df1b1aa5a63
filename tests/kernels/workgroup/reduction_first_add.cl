/*
 * reduction_first_add.cl - sum of n floats in two flavours that halve the
 * number of idle work-items: every work-item adds two elements while
 * loading its __local slot (reduce_first_add), or accumulates a
 * grid-strided run of elements first (reduce_grid_stride; the number of
 * work-groups is then independent of n).
 *
 * Launch (reduce_first_add): 1-D, global = n / 2, local = L (power of two);
 *   n a multiple of 2 L. Work-group g reduces in[2 L g .. 2 L (g + 1)).
 * Launch (reduce_grid_stride): 1-D, any global = G L, local = L (power of
 *   two); any n.
 * Arguments: in has n floats, out has one float per work-group, sdata is
 *   L floats of __local memory.
 */

// run: reduce_first_add --global 512 --local 64 --arg in=random:1024 --arg out=zeros:8 --arg sdata=local:256
// run: reduce_first_add --global 512 --local 128 --arg in=random:1024 --arg out=zeros:4 --arg sdata=local:512
__kernel void reduce_first_add(__global const float *in, __global float *out,
                               __local float *sdata)
{
    unsigned int tid = get_local_id(0);  //~ shape: contiguous
    unsigned int lsize = get_local_size(0);  //~ shape: uniform
    unsigned int i = get_group_id(0) * (lsize * 2) + tid;  //~ shape: contiguous

    sdata[tid] = in[i] + in[i + lsize];  //~ access: in[i]=contiguous, in[i + lsize]=contiguous, sdata[tid]=store:contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    for (unsigned int s = lsize >> 1; s > 0; s >>= 1) {  //~ loop: uniform
        if (tid < s)  //~ branch: divergent
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        out[get_group_id(0)] = sdata[0];
}

// run: reduce_grid_stride --global 256 --local 64 --arg in=random:3000 --arg out=zeros:4 --arg sdata=local:256 --arg n=3000
// run: reduce_grid_stride --global 128 --local 32 --arg in=random:1000 --arg out=zeros:4 --arg sdata=local:128 --arg n=1000
__kernel void reduce_grid_stride(__global const float *in, __global float *out,
                                 __local float *sdata, unsigned int n)
{
    unsigned int tid = get_local_id(0);
    unsigned int i = get_global_id(0);  //~ shape: contiguous
    unsigned int gridSize = get_global_size(0);  //~ shape: uniform

    float sum = 0.0f;
    while (i < n) {  //~ loop: divergent //~ warning[L0201]
        sum += in[i];  //~ access: in[i]=contiguous
        i += gridSize;
    }
    sdata[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (unsigned int s = get_local_size(0) >> 1; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        out[get_group_id(0)] = sdata[0];
}
