/*
 * bool_literals.cl - `bool` with the `true` and `false` literals, as
 * kernels ported from C99 code write them: every work-item of a group
 * checks whether its element is in order with the next one and records it
 * in a __local array of flags; the first work-item folds the flags (from
 * `true`) and stores the group's verdict as 0 or 1.
 *
 * Launch: 1-D, global = G L, local = L (at most 256).
 * Arguments: data has G L + 1 ints; sorted has G ints.
 */

// run: block_is_sorted --global 256 --local 64 --arg data=iota:257 --arg sorted=zeros:4
// run: block_is_sorted --global 256 --local 32 --arg data=random:257:0:3 --arg sorted=zeros:8
// run: block_is_sorted --global 16 --local 2 --arg data=random:17:0:3 --arg sorted=zeros:8
__kernel void block_is_sorted(__global const int *data, __global int *sorted)
{
    __local bool in_order[256];

    size_t gid = get_global_id(0);  //~ shape: contiguous
    size_t lid = get_local_id(0);
    bool first = lid == 0;  //~ shape: varying

    // The last work-item of the group also compares with the next block's
    // first element.
    in_order[lid] = data[gid] <= data[gid + 1];  //~ access: data[gid + 1]=contiguous, in_order[lid]=store:contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    if (first) {  //~ branch: divergent
        bool all = true;
        for (size_t i = 0; i < get_local_size(0); i++)  //~ loop: uniform
            if (in_order[i] == false)  //~ access: in_order[i]=uniform
                all = false;
        sorted[get_group_id(0)] = all ? 1 : 0;
    }
}
