/*
 * reduction_sequential.cl - sum of an array of ints per work-group, tree
 * reduction with sequential addressing: in each step the first half of the
 * active work-items adds the second half, so accesses to __local memory
 * stay contiguous and the idle work-items are whole SIMD groups until the
 * last steps. The tile is a kernel-scope __local array.
 *
 * Launch: 1-D, global = round_up(n, GROUP_SIZE), local = GROUP_SIZE
 *   (256 by default; compile with -D GROUP_SIZE=... for another power of
 *   two). Work-items at or beyond n load 0.
 * Arguments: input has n ints, partial has global / GROUP_SIZE ints.
 */

#ifndef GROUP_SIZE
#define GROUP_SIZE 256
#endif

// run: reduce_sequential --global 1024 --local 256 --arg input=random:1000 --arg partial=zeros:4 --arg n=1000
// run: reduce_sequential --global 512 --local 64 -D GROUP_SIZE=64 --arg input=random:500 --arg partial=zeros:8 --arg n=500
// run: reduce_sequential --global 256 --local 16 -D GROUP_SIZE=16 --arg input=random:256 --arg partial=zeros:16 --arg n=256
__kernel void reduce_sequential(__global const int *input,
                                __global int *partial, const uint n)
{
    __local int scratch[GROUP_SIZE];

    uint lid = get_local_id(0);  //~ shape: contiguous
    uint gid = get_global_id(0);

    scratch[lid] = (gid < n) ? input[gid] : 0;  //~ branch: divergent //~ access: scratch[lid]=store:contiguous, input[gid]=contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {  //~ loop: uniform //~ shape: s=uniform
        if (lid < s)  //~ branch: divergent
            scratch[lid] += scratch[lid + s];  //~ access: scratch[lid + s]=contiguous
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (lid == 0)  //~ branch: divergent
        partial[get_group_id(0)] = scratch[0];
}
