// reqd_size_one_sub_group.cl - a kernel written for work-groups of one SIMD
// group, as warp-synchronous SDK code is: reqd_work_group_size(GROUP_SIZE,
// 1, 1) with the size a macro (overridable by -D). Each work-group takes the
// largest round count of its work-items with a sub-group reduction and runs
// that many rounds of a neighbour exchange through __local memory. The loop
// holds barriers, and its bound is the same on every work-item of the group
// only because the group is one sub-group: with GROUP_SIZE at most the SIMD
// width the barriers are reached by all (without the attribute, or with a
// larger group, they are not: L0401).
//
// Launch: 1-D, global = G GROUP_SIZE, local = GROUP_SIZE (required).
// Arguments: counts, in and out have G GROUP_SIZE elements; counts >= 0.

#ifndef GROUP_SIZE
#define GROUP_SIZE 8
#endif

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void neighbour_max(__global const int *counts, __global const float *in,
                   __global float *out)
{
    __local float tile[GROUP_SIZE];
    int lid = get_local_id(0);
    int gid = get_global_id(0);
    int rounds = sub_group_reduce_max(counts[gid]);  //~ shape: uniform
    float acc = in[gid];
    for (int r = 0; r < rounds; r++) {  //~ loop: uniform
        tile[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc = fmax(acc, tile[(lid + 1) % GROUP_SIZE]);  //~ warning[L0202]
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[gid] = acc;
}
