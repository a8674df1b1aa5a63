// dwt_haar1d.cl - DwtHaar1D of the paper (Table I, n = 2^16): the AMD APP
// SDK's multi-level 1-D Haar wavelet transform. Work-group g owns a block of
// 2 * L samples (L the local size) and halves it level by level:
// active = L >> level work-items each turn one pair into an average and a
// detail coefficient.
//
// dwt_haar1d keeps the block in global memory with every barrier a launch
// boundary: one launch per level, ping-ponging src and dst. dwtHaar1D at
// the end is the SDK's own form: the block in __local memory, the levels
// separated by barrier(), one launch per pass.
//
// Launch: 1-D, global = m / 2 and local = L (a power of two dividing m / 2)
//   for a signal of m samples; levels 0 .. log2(2 * L) - 1 with
//   half_len = m >> (level + 1). Level 0 reads the signal, level k > 0 the dst
//   of level k - 1. After them, the first m / (2 * L) elements of the last
//   dst are the averages of the blocks: the host repeats with m / (2 * L)
//   samples (and a smaller L) until one average is left, as the SDK does.
//   coefs[0] = that average, coefs[half_len + p] = detail p of the level whose
//   output has half_len averages (the usual Haar layout).
// Arguments: src has m floats; dst at least m / 2; coefs m floats.
//
// Divergence: the guard `lid < active`: in every level with
// active = L >> level < W each work-group has a SIMD group with idle lanes,
// and the paper's fast path runs where x0 + W - 1 < active. src[2 * p] and
// src[2 * p + 1] are strided by 2.

__kernel void dwt_haar1d(__global const float *src, __global float *dst,
                         __global float *coefs, uint level, uint half_len)
{
    uint lid = get_local_id(0);
    uint active = (uint)get_local_size(0) >> level;
    if (lid < active) {  //~ branch: divergent
        uint p = (uint)get_group_id(0) * active + lid;
        float a = src[2 * p];  //~ warning[L0204]
        float b = src[2 * p + 1];  //~ warning[L0204]
        dst[p] = (a + b) * M_SQRT1_2_F;
        coefs[half_len + p] = (a - b) * M_SQRT1_2_F;
    }
}

// The SDK's form. Launch per pass over cur samples: 1-D, global = cur / 2,
// local = L (a power of two, at most cur / 2); inSignal holds cur samples,
// sharedArray 2 L floats of __local memory, tLevels = log2(cur),
// signalLength = cur, mLevels = log2(2 L), levelsDone the levels of the
// passes before (0 on the first, which scales the signal by
// 1 / sqrt(signalLength)). Writes the details of its log2(2 L) levels to
// coefsSignal (the layout above) and the block averages to
// AverageSignal[0 .. cur / (2 L)), the next pass's input.
__kernel
void dwtHaar1D(
                __global float *inSignal,
                __global float *coefsSignal,
                __global float *AverageSignal,
                __local float *sharedArray,
                uint tLevels,
                uint signalLength,
                uint levelsDone,
                uint mLevels)
{
    size_t localId = get_local_id(0);
    size_t groupId = get_group_id(0);
    size_t globalId = get_global_id(0);
    size_t localSize = get_local_size(0);

    /**
     * Read input signal data from global memory
     * to shared memory
     */
    float t0 = inSignal[groupId * localSize * 2 + localId];
    float t1 = inSignal[groupId * localSize * 2 + localSize + localId];
    // Divide with signal length for normalized decomposition
    if(0 == levelsDone)
    {
       float r = rsqrt((float)signalLength);
       t0 *= r;
       t1 *= r;
    }
    sharedArray[localId] = t0;
    sharedArray[localSize + localId] = t1;

    barrier(CLK_LOCAL_MEM_FENCE);

    uint levels = tLevels > mLevels ? mLevels: tLevels;
    uint activeThreads = (1 << levels) / 2;
    uint midOutPos = signalLength / 2;

    float rsqrt_two = rsqrt(2.0f);
    for(uint i = 0; i < levels; ++i)  //~ loop: uniform
    {
        float data0, data1;
        if(localId < activeThreads)  //~ branch: divergent
        {
            data0 = sharedArray[2 * localId];  //~ warning[L0204]
            data1 = sharedArray[2 * localId + 1];  //~ warning[L0204]
        }

        /* make sure all work items have read from sharedArray before modifying it */
        barrier(CLK_LOCAL_MEM_FENCE);

        if(localId < activeThreads)  //~ branch: divergent
        {
            sharedArray[localId] = (data0 + data1) * rsqrt_two;
            uint globalPos = midOutPos + groupId * activeThreads + localId;
            coefsSignal[globalPos] = (data0 - data1) * rsqrt_two;  //~ warning[L0203]

            midOutPos >>= 1;
        }
        activeThreads >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /**
     * Write 0th element for the next decomposition
     * steps which are performed on host
     */

     if(0 == localId)  //~ branch: divergent
        AverageSignal[groupId] = sharedArray[0];
}
