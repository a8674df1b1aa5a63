/*
 * argmax_reduction.cl - maximum and its index per work-group: a tree in
 * __local memory over (value, index) pairs kept in two parallel arrays,
 * ties resolved to the smaller index so the result does not depend on the
 * order of the tree.
 *
 * Launch: 1-D, global = G L, local = L (a power of two, at most 256).
 * Arguments: in has G L floats; max_val has G floats, max_idx G ints
 *   (global indices).
 */

#define MAX_GROUP 256

// run: argmax_pairs --global 512 --local 64 --arg in=random:512 --arg max_val=zeros:8 --arg max_idx=zeros:8
// run: argmax_pairs --global 512 --local 256 --arg in=random:512:0:20 --arg max_val=zeros:2 --arg max_idx=zeros:2
__kernel void argmax_pairs(__global const float *in, __global float *max_val,
                           __global int *max_idx)
{
    __local float val[MAX_GROUP];
    __local int idx[MAX_GROUP];

    uint lid = get_local_id(0);  //~ shape: contiguous
    int gid = get_global_id(0);
    val[lid] = in[gid];
    idx[lid] = gid;  //~ access: idx[lid]=store:contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {  //~ loop: uniform
        if (lid < s) {  //~ branch: divergent
            float a = val[lid], b = val[lid + s];
            int ia = idx[lid], ib = idx[lid + s];
            if (b > a || (b == a && ib < ia)) {  //~ branch: divergent
                val[lid] = b;
                idx[lid] = ib;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        max_val[get_group_id(0)] = val[0];
        max_idx[get_group_id(0)] = idx[0];
    }
}
