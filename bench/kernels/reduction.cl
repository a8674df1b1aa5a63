// reduction.cl - sum of a float array per work-group, AMD/NVIDIA SDK
// reduction with sequential addressing: every work-item first adds two
// elements GROUP_SIZE apart, then the tree halves the active work-items each
// step in __local memory; work-item 0 writes the group's sum.
//
// Launch: 1-D, local = GROUP_SIZE (-D, 256 by default, a power of two),
//   global = round_up(n, 2 GROUP_SIZE) / 2. Elements at or beyond n count 0.
// Arguments: in has n floats; partial has global / GROUP_SIZE floats, the
//   sum of the block of 2 GROUP_SIZE elements of each group.

#ifndef GROUP_SIZE
#define GROUP_SIZE 256
#endif

__kernel void reduce_sum(__global const float *in, __global float *partial, int n)
{
    __local float sdata[GROUP_SIZE];

    int lid = get_local_id(0);
    int i = get_group_id(0) * (2 * GROUP_SIZE) + lid;

    float s = 0.0f;
    if (i < n)
        s = in[i];
    if (i + GROUP_SIZE < n)
        s += in[i + GROUP_SIZE];
    sdata[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int stride = GROUP_SIZE / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            sdata[lid] += sdata[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = sdata[0];
}
