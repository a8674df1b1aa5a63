/*
 * printf_debug.cl - printf from a kernel, the way SDK samples trace a
 * launch: the first work-item of each work-group prints the group's id
 * and size, and the first work-item overall prints the sum that its group
 * reduced in __local memory (a %s conversion included).
 * The computed output does not depend on the printing.
 *
 * Launch: 1-D, global = G L, local = L (a power of two, at most 64).
 * Arguments: in has G L ints (in [0, 100)); sums has G ints.
 */

// run: traced_sum --global 128 --local 64 --arg in=random:128 --arg sums=zeros:2
// run: traced_sum --global 64 --local 16 --arg in=random:64 --arg sums=zeros:4
__kernel void traced_sum(__global const int *in, __global int *sums)
{
    __local int part[64];
    uint lid = get_local_id(0);

    if (lid == 0)  //~ branch: divergent
        printf("group %u of %u: %u work-items\n", (uint)get_group_id(0),
               (uint)get_num_groups(0), (uint)get_local_size(0));

    part[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        sums[get_group_id(0)] = part[0];
        if (get_group_id(0) == 0)  //~ branch: uniform
            printf("%s: sum %d, first pair %d,%d\n", "traced_sum", part[0], in[0], in[1]);
    }
}
