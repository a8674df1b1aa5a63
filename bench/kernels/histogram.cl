// histogram.cl - 256-bin histogram, AMD SDK Histogram style: each
// work-group counts its block of the input into a private histogram in
// __local memory with atomic_inc, then writes it out as one sub-histogram per
// group (a second pass, or the host, adds them up).
//
// Launch: 1-D, global = G L, local = L (a divisor of 256). Work-item lid of
//   group g reads data[(g ITEMS + k) L + lid] for k < ITEMS (-D ITEMS, 32 by
//   default), so a group covers ITEMS L consecutive values.
// Arguments: data has G L ITEMS uints (the low byte is the value); partial
//   has G * 256 uints.

#define BINS 256
#ifndef ITEMS
#define ITEMS 32
#endif

__kernel void histogram256(__global const uint *data, __global uint *partial)
{
    __local uint bins[BINS];

    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    int group = get_group_id(0);

    for (int b = lid; b < BINS; b += lsize)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    int base = group * ITEMS * lsize + lid;
    for (int k = 0; k < ITEMS; k++)
        atomic_inc(&bins[data[base + k * lsize] & 0xffu]);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int b = lid; b < BINS; b += lsize)
        partial[group * BINS + b] = bins[b];
}
