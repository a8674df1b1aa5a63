/*
 * radix_sort_step.cl - the counting step of one pass of an LSD radix sort
 * over RADIX_BITS-bit digits (16 buckets): each work-group histograms the
 * digit (key >> shift) & RADIX_MASK of its keys into __local memory with
 * atomic_inc, scans the histogram in __local memory (exclusive, by the
 * first RADIX work-items, Hillis-Steele with a barrier per step), and
 * writes
 *   counts[bucket * G + group]  - the histogram, bucket-major, so that one
 *                                 global exclusive scan of counts gives
 *                                 every group's first output slot;
 *   offsets[group * RADIX + b]  - the group's exclusive scan, i.e. where
 *                                 bucket b starts inside the group.
 *
 * Launch: 1-D, global = G L, local = L, L a multiple of RADIX (16);
 *   each work-item handles KEYS_PER_ITEM consecutive keys.
 * Arguments: keys has KEYS_PER_ITEM G L uints, counts and offsets have
 *   RADIX G uints; shift is a multiple of RADIX_BITS below 32.
 */

#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)
#define RADIX_MASK (RADIX - 1)
#ifndef KEYS_PER_ITEM
#define KEYS_PER_ITEM 4
#endif

// run: radix_count --global 256 --local 64 --arg keys=random:1024:0:4000000000 --arg counts=zeros:64 --arg offsets=zeros:64 --arg shift=0
// run: radix_count --global 256 --local 128 --arg keys=random:1024:0:4000000000 --arg counts=zeros:32 --arg offsets=zeros:32 --arg shift=8
// run: radix_count --global 64 --local 16 -D KEYS_PER_ITEM=2 --arg keys=random:128:0:4000000000 --arg counts=zeros:64 --arg offsets=zeros:64 --arg shift=28
__kernel void radix_count(__global const uint *keys, __global uint *counts,
                          __global uint *offsets, uint shift)
{
    __local uint hist[RADIX];
    __local uint scan[2][RADIX];

    uint lid = get_local_id(0);  //~ shape: contiguous
    uint gid = get_global_id(0);
    uint group = get_group_id(0);  //~ shape: uniform
    uint groups = get_num_groups(0);  //~ shape: uniform

    // RADIX is a multiple of the SIMD width (8 lanes for the expectations),
    // so whole SIMD groups take this branch.
    if (lid < RADIX)  //~ branch: uniform
        hist[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < KEYS_PER_ITEM; k++) {  //~ loop: uniform
        uint key = keys[gid * KEYS_PER_ITEM + k];  //~ warning[L0204]
        uint digit = (key >> shift) & RADIX_MASK;  //~ shape: varying
        atomic_inc(&hist[digit]);  //~ warning[L0209]
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Exclusive scan of the RADIX counters, double-buffered.
    uint pout = 0;
    if (lid < RADIX)
        scan[0][lid] = lid > 0 ? hist[lid - 1] : 0;  //~ access: hist[lid - 1]=contiguous
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < RADIX; d <<= 1) {  //~ loop: uniform
        uint pin = pout;
        pout = 1 - pout;
        if (lid < RADIX)
            scan[pout][lid] = scan[pin][lid] + (lid >= d ? scan[pin][lid - d] : 0);  //~ branch: divergent
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (lid < RADIX) {
        counts[lid * groups + group] = hist[lid];  //~ access: counts[lid * groups + group]=store:scatter //~ warning[L0203]
        offsets[group * RADIX + lid] = scan[pout][lid];  //~ access: offsets[group * RADIX + lid]=store:contiguous
    }
}
