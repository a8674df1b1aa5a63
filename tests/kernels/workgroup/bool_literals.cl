/*
 * bool_literals.cl - `bool` with the `true` and `false` literals, as
 * kernels ported from C99 code write them: a work-group votes whether
 * every element of its block is sorted (a __local flag that any
 * work-item may clear), and the block's verdict is stored as 0 or 1.
 *
 * Launch: 1-D, global = G L, local = L.
 * Arguments: data has G L + 1 ints; sorted has G ints.
 */

// run: block_is_sorted --global 256 --local 64 --arg data=iota:257 --arg sorted=zeros:4
// run: block_is_sorted --global 256 --local 32 --arg data=random:257:0:3 --arg sorted=zeros:8
__kernel void block_is_sorted(__global const int *data, __global int *sorted)
{
    __local bool all_sorted;

    size_t gid = get_global_id(0);  //~ shape: contiguous
    bool first = get_local_id(0) == 0;  //~ shape: varying

    if (first)  //~ branch: divergent
        all_sorted = true;
    barrier(CLK_LOCAL_MEM_FENCE);

    // The last work-item of the group also compares with the next block's
    // first element; the work-group's block is sorted up to there.
    bool in_order = data[gid] <= data[gid + 1];  //~ access: data[gid + 1]=contiguous
    if (in_order == false)  //~ branch: divergent
        all_sorted = false;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (first)
        sorted[get_group_id(0)] = all_sorted ? 1 : 0;  //~ branch: uniform
}
