// prefix_sum.cl - PrefixSum of the paper (Table I, n = 512): the AMD APP SDK's
// work-efficient (Blelloch) inclusive scan of one block of n = 2 * L floats
// per work-group (L the local size), one tree level per launch.
//
// The SDK keeps the block in __local memory and separates the levels with
// barrier(); lanes does not compile __local memory and barriers yet (L0901,
// L0902, DESIGN section 1), so here the block lives in global memory and
// every barrier is a launch boundary: the host runs the levels one launch
// at a time, which is what the barriers order.
//
//   prefix_sum_up:   up-sweep level;   for (d = L, offset = 1; d > 0;
//                    d >>= 1, offset <<= 1) launch(d, offset)
//   prefix_sum_down: down-sweep level; then offset = 2 * L and
//                    for (d = 1; d < L; d = 2 * d + 1) { offset >>= 1;
//                    launch(d, offset); }
//
// Launch: 1-D, global = G * L, local = L (a power of two); work-group g scans
// data[2 * L * g .. 2 * L * (g + 1)) in place. After all levels each block
// holds its inclusive prefix sums.
// Arguments: data has 2 * G * L floats; d and offset as above.
//
// Divergence: the guard `lid < d` of every level. Up-sweep levels with
// d < W and all down-sweep levels with d not a multiple of W (d = 1, 3, 7,
// ...) leave part of a SIMD group idle; the fast path runs where the whole
// group is inside (x0 + W - 1 < d) or outside the guard. The indices
// offset * (2 * lid + 1) - 1 are strided by 2 * offset.

__kernel void prefix_sum_up(__global float *data, uint d, uint offset)
{
    uint lid = get_local_id(0);
    uint base = 2 * get_local_size(0) * get_group_id(0);
    if (lid < d) {  //~ branch: divergent
        uint ai = base + offset * (2 * lid + 1) - 1;
        uint bi = base + offset * (2 * lid + 2) - 1;
        data[bi] += data[ai];  //~ warning[L0202] warning[L0203] warning[L0202]
    }
}

__kernel void prefix_sum_down(__global float *data, uint d, uint offset)
{
    uint lid = get_local_id(0);
    uint base = 2 * get_local_size(0) * get_group_id(0);
    if (lid < d) {  //~ branch: divergent
        uint ai = base + offset * (lid + 1) - 1;
        uint bi = ai + (offset >> 1);
        data[bi] += data[ai];  //~ warning[L0202] warning[L0203] warning[L0202]
    }
}
