// radix_digit_count.cl - the counting phase of an LSD radix sort without
// local memory or atomics: each work-item owns a contiguous block of keys
// and counts, in a private array, how many keys have each value of the
// current 4-bit digit; it writes its 16 counters digit-major so that the
// host (or a scan kernel) can compute the scatter offsets.
//
// Launch: 1-D, one work-item per block: global = round_up(nblocks); ids >=
//   nblocks return.
// Arguments: keys has n uints; block b covers keys [b * block_size,
//   min(n, (b + 1) * block_size)); counts has 16 * nblocks uints (counts[d
//   * nblocks + b]); shift is 0, 4, ..., 28; block_size >= 1.
//
// The private counters are indexed by a varying digit (AllocaSSA); the last
// block may be shorter (a divergent trip count).

#define RADIX 16

__kernel void radix_digit_count(__global const uint *keys, __global uint *counts,
                                int n, int block_size, int nblocks, uint shift)
{
    int b = get_global_id(0);  //~ shape: contiguous
    if (b >= nblocks)  //~ branch: divergent
        return;

    uint local_counts[RADIX];  //~ shape: varying //~ warning[L0206]
    for (int d = 0; d < RADIX; d++)  //~ shape: uniform //~ loop: uniform
        local_counts[d] = 0;

    int begin = b * block_size;  //~ shape: varying
    int end = min(n, begin + block_size);  //~ shape: varying
    for (int k = begin; k < end; k++) {  //~ shape: varying //~ loop: divergent //~ warning[L0201]
        uint digit = (keys[k] >> shift) & (RADIX - 1);  //~ shape: varying //~ access: keys[k]=gather //~ warning[L0202]
        local_counts[digit]++;
    }

    for (int d = 0; d < RADIX; d++)  //~ shape: uniform //~ loop: uniform
        counts[d * nblocks + b] = local_counts[d];  //~ access: counts[d * nblocks + b]=store:contiguous
}
