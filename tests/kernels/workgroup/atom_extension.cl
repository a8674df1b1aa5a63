/*
 * atom_extension.cl - the 32-bit atomic extensions of OpenCL 1.0
 * (cl_khr_global_int32_base_atomics, cl_khr_global_int32_extended_atomics,
 * cl_khr_local_int32_base_atomics), as kernels written for 1.0 devices
 * spell them: atom_add, atom_inc, atom_min, atom_max, atom_xchg,
 * atom_cmpxchg.
 *
 * value_stats: per work-group count, sum, min and max of the values above
 *   threshold in __local counters (atom_inc, atom_add, atom_min, atom_max
 *   on __local), merged into the global ones by work-item 0; plus the
 *   index of the last work-item to update the global count (atom_xchg).
 * claim_slots: every work-item claims the first free slot of a small
 *   table by atom_cmpxchg from 0 to its id + 1, probing linearly.
 *
 * Launch: 1-D, global = round_up(n, L), local = L.
 * Arguments: value_stats: values has n ints in [-2^20, 2^20]; stats has 4
 *   ints (count, sum, min, max) that the kernel updates: zeroed, or min =
 *   INT_MAX and max = INT_MIN for a fresh start; last has 1 int (some
 *   group that found values, in no particular order). claim_slots: table has at least the global size of
 *   ints, all 0; slot_of has n ints.
 */

#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_extended_atomics : enable

// run: value_stats --global 512 --local 64 --arg values=random:500:-1000:1000 --arg stats=zeros:4 --arg last=zeros:1 --arg n=500 --arg threshold=0
// run: value_stats --global 512 --local 128 --arg values=random:500:-1000:1000 --arg stats=zeros:4 --arg last=zeros:1 --arg n=500 --arg threshold=-500
__kernel void value_stats(__global const int *values, __global int *stats,
                          __global int *last, int n, int threshold)
{
    __local int l_count, l_sum, l_min, l_max;

    int gid = get_global_id(0);  //~ shape: contiguous
    int lid = get_local_id(0);  //~ shape: contiguous

    if (lid == 0) {  //~ branch: divergent
        l_count = 0;
        l_sum = 0;
        l_min = INT_MAX;
        l_max = INT_MIN;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < n) {
        int v = values[gid];
        if (v > threshold) {  //~ branch: divergent
            atom_inc(&l_count);  //~ warning[L0208]
            atom_add(&l_sum, v);  //~ warning[L0208]
            atom_min(&l_min, v);  //~ warning[L0208]
            atom_max(&l_max, v);  //~ warning[L0208]
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0 && l_count > 0) {
        atom_add(&stats[0], l_count);
        atom_add(&stats[1], l_sum);
        atom_min(&stats[2], l_min);
        atom_max(&stats[3], l_max);
        atom_xchg(last, (int)get_group_id(0));
    }
}

// run: claim_slots --global 256 --local 64 --arg table=zeros:256 --arg slot_of=zeros:200 --arg n=200
// run: claim_slots --global 64 --local 8 --arg table=zeros:64 --arg slot_of=zeros:60 --arg n=60
__kernel void claim_slots(__global int *table, __global int *slot_of, int n)
{
    int gid = get_global_id(0);
    if (gid >= n)
        return;
    int slot = gid % 7;  //~ shape: varying
    while (atom_cmpxchg(&table[slot], 0, gid + 1) != 0)  //~ loop: divergent //~ warning[L0201] warning[L0209]
        slot++;
    slot_of[gid] = slot;
}
