// prefix_sum.cl - PrefixSum of the paper (Table I, n = 512): the AMD APP SDK's
// work-efficient (Blelloch) inclusive scan of one block of n = 2 * L floats
// per work-group (L the local size), one tree level per launch.
//
// prefix_sum_up/prefix_sum_down keep the block in global memory with every
// barrier a launch boundary (the host runs the levels one launch at a time,
// which is what the barriers order); group_prefixSum at the end is the
// SDK's own form: the block in __local memory, the levels separated by
// barrier(), one launch.
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

// The SDK's form. Launch: 1-D, global = G L, local = L (a power of two);
// work-group g scans input[2 L g .. 2 L (g + 1)) into output. block is 2 L
// floats of __local memory; length = 2 L.
__kernel void group_prefixSum(__global float *output,
                              __global const float *input,
                              __local float *block,
                              const uint length)
{
    int tid = get_local_id(0);
    int gid = get_group_id(0);
    int base = gid * length;
    int offset = 1;

    // Each work-item loads two elements.
    block[2 * tid] = input[base + 2 * tid];  //~ warning[L0204]
    block[2 * tid + 1] = input[base + 2 * tid + 1];  //~ warning[L0204]

    // Up-sweep: build the sum tree in place.
    for (int d = length >> 1; d > 0; d >>= 1) {  //~ loop: uniform
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < d) {  //~ branch: divergent
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            block[bi] += block[ai];  //~ warning[L0202] warning[L0203] warning[L0202]
        }
        offset *= 2;
    }

    // Down-sweep: the partial sums are pushed to the right positions.
    for (int d = 2; d < length; d <<= 1) {  //~ loop: uniform
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < d - 1) {  //~ branch: divergent
            int r = offset * (tid + 1) - 1;
            block[r + (offset >> 1)] += block[r];  //~ warning[L0202] warning[L0203] warning[L0202]
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    output[base + 2 * tid] = block[2 * tid];  //~ warning[L0204]
    output[base + 2 * tid + 1] = block[2 * tid + 1];  //~ warning[L0204]
}
