// scan.cl - work-efficient exclusive prefix sum of floats per block of
// 2 GROUP_SIZE elements (Blelloch 1990, as the AMD and NVIDIA SDK scan
// samples write it): up-sweep to the root in __local memory, clear the root,
// swap-and-add down the tree. Each block's total goes to sums[group], the
// input of the next level of a large scan.
//
// Launch: 1-D, global = G GROUP_SIZE, local = GROUP_SIZE (-D, 256 by
//   default, a power of two).
// Arguments: in and out have 2 G GROUP_SIZE floats; sums has G floats.

#ifndef GROUP_SIZE
#define GROUP_SIZE 256
#endif

__kernel void scan_blocks(__global const float *in, __global float *out,
                          __global float *sums)
{
    __local float temp[2 * GROUP_SIZE];

    int thid = get_local_id(0);
    int n = 2 * GROUP_SIZE;
    int base = get_group_id(0) * n;
    int offset = 1;

    temp[thid] = in[base + thid];
    temp[thid + GROUP_SIZE] = in[base + thid + GROUP_SIZE];

    for (int d = n >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset <<= 1;
    }

    if (thid == 0) {
        sums[get_group_id(0)] = temp[n - 1];
        temp[n - 1] = 0.0f;
    }

    for (int d = 1; d < n; d <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    out[base + thid] = temp[thid];
    out[base + thid + GROUP_SIZE] = temp[thid + GROUP_SIZE];
}
