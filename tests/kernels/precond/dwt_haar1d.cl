// dwt_haar1d.cl - DwtHaar1D of the paper (Table I, n = 2^16): the AMD APP
// SDK's multi-level 1-D Haar wavelet transform. Work-group g owns a block of
// 2 * L samples (L the local size) and halves it level by level:
// active = L >> level work-items each turn one pair into an average and a
// detail coefficient.
//
// The SDK keeps the block in __local memory and separates the levels with
// barrier(); lanes does not compile __local memory and barriers yet (L0901,
// L0902, DESIGN section 1), so here the averages go to global memory and
// every barrier is a launch boundary: one launch per level, ping-ponging src
// and dst.
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
