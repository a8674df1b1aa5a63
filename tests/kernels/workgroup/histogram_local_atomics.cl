/*
 * histogram_local_atomics.cl - 256-bin histogram of bytes. Each work-group
 * counts its part of the input into a private copy of the histogram in
 * __local memory with atomic_inc, then merges it into the global histogram
 * with one atomic_add per bin (histogram256), or writes it out as one
 * sub-histogram per work-group for a second pass, as the AMD SDK
 * Histogram sample does (histogram_partial).
 *
 * Launch: 1-D, global = G L, local = L (any L up to 256 that divides 256).
 *   Each work-item reads ITEMS consecutive uchar4 values (4 ITEMS bytes),
 *   work-item i from offset i ITEMS.
 * Arguments: data has 4 ITEMS G L bytes (as uchar4), hist has BINS uints
 *   (zeroed by the host for histogram256), partial has G BINS uints.
 */

#define BINS 256
#ifndef ITEMS
#define ITEMS 4
#endif

// run: histogram256 --global 256 --local 64 --arg data=random:1024:0:256 --arg hist=zeros:256
// run: histogram256 --global 512 --local 256 --arg data=random:2048:0:256 --arg hist=zeros:256
// run: histogram256 --global 128 --local 32 -D ITEMS=2 --arg data=random:256:0:256 --arg hist=zeros:256
__kernel void histogram256(__global const uchar4 *data, __global uint *hist)
{
    __local uint local_hist[BINS];

    uint lid = get_local_id(0);  //~ shape: contiguous
    uint gid = get_global_id(0);  //~ shape: contiguous
    uint lsize = get_local_size(0);

    for (uint i = lid; i < BINS; i += lsize)  //~ loop: divergent //~ warning[L0201]
        local_hist[i] = 0;  //~ access: local_hist[i]=store:contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < ITEMS; k++) {  //~ loop: uniform
        uchar4 v = data[gid * ITEMS + k];  //~ access: data[gid * ITEMS + k]=strided(16) //~ warning[L0204]
        atomic_inc(&local_hist[v.x]);  //~ warning[L0209]
        atomic_inc(&local_hist[v.y]);  //~ warning[L0209]
        atomic_inc(&local_hist[v.z]);  //~ warning[L0209]
        atomic_inc(&local_hist[v.w]);  //~ warning[L0209]
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint i = lid; i < BINS; i += lsize)  //~ loop: divergent //~ warning[L0201]
        atomic_add(&hist[i], local_hist[i]);  //~ warning[L0209]
}

// run: histogram_partial --global 256 --local 64 --arg data=random:1024:0:256 --arg partial=zeros:1024
// run: histogram_partial --global 256 --local 128 --arg data=random:1024:0:256 --arg partial=zeros:512
__kernel void histogram_partial(__global const uchar4 *data,
                                __global uint *partial)
{
    __local uint local_hist[BINS];

    uint lid = get_local_id(0);
    uint gid = get_global_id(0);
    uint lsize = get_local_size(0);
    uint group = get_group_id(0);  //~ shape: uniform

    for (uint i = lid; i < BINS; i += lsize)  //~ warning[L0201]
        local_hist[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < ITEMS; k++) {
        uchar4 v = data[gid * ITEMS + k];  //~ warning[L0204]
        atomic_add(&local_hist[v.x], 1u);  //~ warning[L0209]
        atomic_add(&local_hist[v.y], 1u);  //~ warning[L0209]
        atomic_add(&local_hist[v.z], 1u);  //~ warning[L0209]
        atomic_add(&local_hist[v.w], 1u);  //~ warning[L0209]
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint i = lid; i < BINS; i += lsize)  //~ warning[L0201]
        partial[group * BINS + i] = local_hist[i];  //~ access: partial[group * BINS + i]=store:contiguous
}
