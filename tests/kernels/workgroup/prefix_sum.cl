/*
 * prefix_sum.cl - inclusive prefix sum of one block of 2 L floats per
 * work-group (L the local size), the work-efficient tree of Blelloch as the
 * AMD APP SDK PrefixSum sample writes it: an up-sweep that builds partial
 * sums in place in __local memory, then a down-sweep that distributes them,
 * every level separated by a barrier.
 *
 * Copyright © 2026 The lanes authors. MIT licence.
 *
 * Launch: 1-D, global = G L, local = L, L a power of two; work-group g scans
 *   input[2 L g .. 2 L (g + 1)) into output (blocks are independent).
 * Arguments: input and output have 2 G L floats; block is 2 L floats of
 *   __local memory; length = 2 L.
 */

// run: group_prefixSum --global 128 --local 64 --arg output=zeros:256 --arg input=random:256 --arg block=local:512 --arg length=128
// run: group_prefixSum --global 256 --local 32 --arg output=zeros:512 --arg input=random:512 --arg block=local:256 --arg length=64
// run: group_prefixSum --global 16 --local 8 --arg output=zeros:32 --arg input=random:32 --arg block=local:64 --arg length=16
__kernel void group_prefixSum(__global float *output,
                              __global const float *input,
                              __local float *block,
                              const uint length)
{
    int tid = get_local_id(0);  //~ shape: contiguous
    int gid = get_group_id(0);  //~ shape: uniform
    int base = gid * length;  //~ shape: uniform
    int offset = 1;  //~ shape: uniform

    // Each work-item loads two elements.
    block[2 * tid] = input[base + 2 * tid];  //~ access: block[2 * tid]=store:strided(8), input[base + 2 * tid]=strided(8) //~ warning[L0204]
    block[2 * tid + 1] = input[base + 2 * tid + 1];  //~ warning[L0204]

    // Up-sweep: build the sum tree in place.
    for (int d = length >> 1; d > 0; d >>= 1) {  //~ loop: uniform //~ shape: d=uniform
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < d) {  //~ branch: divergent
            int ai = offset * (2 * tid + 1) - 1;  //~ shape: varying
            int bi = offset * (2 * tid + 2) - 1;
            block[bi] += block[ai];  //~ access: block[ai]=gather //~ warning[L0202] warning[L0203]
        }
        offset *= 2;
    }

    // Down-sweep: the partial sums are pushed to the right positions.
    for (int d = 2; d < length; d <<= 1) {  //~ loop: uniform
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < d - 1) {  //~ branch: divergent
            int r = offset * (tid + 1) - 1;
            block[r + (offset >> 1)] += block[r];  //~ warning[L0202] warning[L0203]
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    output[base + 2 * tid] = block[2 * tid];  //~ warning[L0204]
    output[base + 2 * tid + 1] = block[2 * tid + 1];  //~ warning[L0204]
}
