/*
 * prototypes.cl - helper functions declared before the kernel that calls
 * them and defined after it (with and without parameter names in the
 * declaration), as SDK files that keep the kernel at the top do. The
 * kernel computes, per work-group, a smoothed copy of its block (a
 * 3-point average with mirrored ends, read from __local memory) and the
 * block's root-mean-square value.
 *
 * Launch: 1-D, global = G L, local = L (a power of two, at most 256).
 * Arguments: in and smooth have G L floats; rms has G floats.
 */

float average3(float, float, float);
uint mirror(int i, uint n);
void block_sum_squares(__local float *sq, uint lid, uint n);

// run: smooth_rms --global 256 --local 64 --arg in=random:256 --arg smooth=zeros:256 --arg rms=zeros:4
// run: smooth_rms --global 256 --local 16 --arg in=random:256 --arg smooth=zeros:256 --arg rms=zeros:16
__kernel void smooth_rms(__global const float *in, __global float *smooth,
                         __global float *rms)
{
    __local float block[256];
    __local float sq[256];

    uint lid = get_local_id(0);  //~ shape: contiguous
    uint n = get_local_size(0);
    uint gid = get_global_id(0);

    float v = in[gid];
    block[lid] = v;
    sq[lid] = v * v;
    barrier(CLK_LOCAL_MEM_FENCE);

    smooth[gid] = average3(block[mirror((int)lid - 1, n)], v, block[mirror((int)lid + 1, n)]);  //~ warning[L0202]
    block_sum_squares(sq, lid, n);
    if (lid == 0)
        rms[get_group_id(0)] = sqrt(sq[0] / n);
}

float average3(float a, float b, float c)
{
    return (a + b + c) / 3.0f;
}

uint mirror(int i, uint n)
{
    if (i < 0)
        return 1;
    if (i >= (int)n)
        return n - 2;
    return (uint)i;
}

// Sequential-addressing tree over n elements; every work-item of the group
// calls it (it contains barriers).
void block_sum_squares(__local float *sq, uint lid, uint n)
{
    for (uint s = n / 2; s > 0; s >>= 1) {  //~ loop: uniform
        if (lid < s)
            sq[lid] += sq[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
