/*
 * histogram_rows.cl - histograms with 4 bins in __local memory, counted by
 * a work-group-uniform loop that reads one row of the work-group's block
 * per iteration (work-item lid of group g reads data[(g ITEMS + k) L + lid]
 * for k < ITEMS), as bench/kernels/histogram.cl does with 256 bins. With 4
 * bins most lanes of a SIMD group hit a bin another lane hits too. lanes
 * runs such loops row by row, each iteration for every SIMD group before
 * the next (docs/codegen.md, "Row order").
 *
 * Launch: 1-D, global = G L, local = L (any L).
 * Arguments: data has ITEMS G L uints (values below 2^16); partial has
 *   4 G uints; sums has G L uints.
 */

#define BINS 4
#ifndef ITEMS
#define ITEMS 8
#endif

// run: count_rows --global 256 --local 64 --arg data=random:2048:0:65536 --arg partial=zeros:16
// run: count_rows --global 96 --local 24 --arg data=random:768:0:65536 --arg partial=zeros:16
__kernel void count_rows(__global const uint *data, __global uint *partial)
{
    __local uint bins[BINS];

    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    int group = get_group_id(0);

    for (int b = lid; b < BINS; b += lsize)  //~ loop: divergent //~ warning[L0201]
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    int base = group * ITEMS * lsize + lid;
    for (int k = 0; k < ITEMS; k++)
        atomic_inc(&bins[data[base + k * lsize] & (BINS - 1)]);  //~ warning[L0209]
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int b = lid; b < BINS; b += lsize)  //~ loop: divergent //~ warning[L0201]
        partial[group * BINS + b] = bins[b];
}

// An index that steps by the local size, a private sum carried across the
// iterations (kept per SIMD group between them) and atomic_add of values.
// run: sum_rows --global 256 --local 64 --arg data=random:2048:0:65536 --arg partial=zeros:16 --arg sums=zeros:256
// run: sum_rows --global 96 --local 24 --arg data=random:768:0:65536 --arg partial=zeros:16 --arg sums=zeros:96
__kernel void sum_rows(__global const uint *data, __global uint *partial,
                       __global uint *sums)
{
    __local uint bins[BINS];

    uint lid = get_local_id(0);
    uint lsize = get_local_size(0);
    uint group = get_group_id(0);

    for (uint b = lid; b < BINS; b += lsize)  //~ loop: divergent //~ warning[L0201]
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    uint sum = 0;
    uint i = group * ITEMS * lsize + lid;
    for (int k = 0; k < ITEMS; k++, i += lsize) {
        uint v = data[i];
        sum += v;
        atomic_add(&bins[v & (BINS - 1)], v >> 2);  //~ warning[L0209]
    }
    sums[get_global_id(0)] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint b = lid; b < BINS; b += lsize)  //~ loop: divergent //~ warning[L0201]
        partial[group * BINS + b] = bins[b];
}
