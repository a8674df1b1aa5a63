/*
 * dwt_haar_1d.cl - one-dimensional Haar wavelet decomposition as the AMD
 * APP SDK DwtHaar1D sample organises it: each work-group transforms a block
 * of 2 L samples (L the local size) through all log2(2 L) levels, keeping
 * the running averages in __local memory and halving the number of active
 * work-items per level, with barriers between the levels.
 *
 * Copyright © 2026 The lanes authors. MIT licence.
 *
 * Output layout (N = 2 G L samples, G work-groups): the detail
 * coefficients of level k (1-based, N / 2^k of them) are stored at
 * coefs[N / 2^k + i], i = group * (L >> (k - 1)) + local index; the final
 * average of each block is avgs[group]. (coefs[0 .. G) below the
 * coarsest per-block level is left untouched.)
 *
 * Launch: 1-D, global = G L, local = L, L a power of two.
 * Arguments: signal and coefs have N floats, avgs has G floats,
 *   shared is L floats of __local memory; tLevels = log2(2 L);
 *   signalLength = N.
 */

#define INV_SQRT_2 0.70710678118654752f

// run: dwtHaar1D --global 256 --local 64 --arg signal=random:512 --arg coefs=zeros:512 --arg avgs=zeros:4 --arg shared=local:256 --arg tLevels=7 --arg signalLength=512
// run: dwtHaar1D --global 256 --local 256 --arg signal=random:512 --arg coefs=zeros:512 --arg avgs=zeros:1 --arg shared=local:1024 --arg tLevels=9 --arg signalLength=512
// run: dwtHaar1D --global 64 --local 8 --arg signal=random:128 --arg coefs=zeros:128 --arg avgs=zeros:8 --arg shared=local:32 --arg tLevels=4 --arg signalLength=128
__kernel void dwtHaar1D(__global const float *signal, __global float *coefs,
                        __global float *avgs, __local float *shared,
                        const uint tLevels, const uint signalLength)
{
    size_t lid = get_local_id(0);  //~ shape: contiguous
    size_t gid = get_global_id(0);  //~ shape: contiguous
    size_t group = get_group_id(0);  //~ shape: uniform
    size_t L = get_local_size(0);

    // Level 1: every work-item owns one pair of input samples.
    float t0 = signal[2 * gid];  //~ access: signal[2 * gid]=strided(8) //~ warning[L0204]
    float t1 = signal[2 * gid + 1];  //~ warning[L0204]
    coefs[(signalLength >> 1) + gid] = (t0 - t1) * INV_SQRT_2;  //~ access: coefs[(signalLength >> 1) + gid]=store:contiguous
    shared[lid] = (t0 + t1) * INV_SQRT_2;
    barrier(CLK_LOCAL_MEM_FENCE);

    // Levels 2 .. tLevels on the averages in __local memory.
    for (uint level = 1; level < tLevels; level++) {  //~ loop: uniform //~ shape: level=uniform
        size_t active = L >> level;  //~ shape: uniform
        float a = 0.0f, b = 0.0f;
        if (lid < active) {  //~ branch: divergent
            a = shared[2 * lid];  //~ access: shared[2 * lid]=strided(8) //~ warning[L0204]
            b = shared[2 * lid + 1];  //~ warning[L0204]
            coefs[(signalLength >> (level + 1)) + group * active + lid] = (a - b) * INV_SQRT_2;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < active)
            shared[lid] = (a + b) * INV_SQRT_2;
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (lid == 0)
        avgs[group] = shared[0];
}
