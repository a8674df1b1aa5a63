/*
 * stencil_1d_halo.cl - 1-D convolution with a (2 RADIUS + 1)-point mask:
 * out[i] = sum_j w[j + RADIUS] * in[i + j], values outside [0, n) read as
 * zero. Each work-group stages its L elements plus RADIUS halo elements on
 * each side in __local memory; the first RADIUS work-items load the halos.
 *
 * Launch: 1-D, global = round_up(n, L), local = L >= RADIUS; work-items at
 *   or beyond n take part in the loads and the barrier and store nothing.
 * Arguments: in and out have n floats, weights has 2 RADIUS + 1 floats,
 *   tile is L + 2 RADIUS floats of __local memory.
 */

#ifndef RADIUS
#define RADIUS 3
#endif

// run: stencil_1d --global 1024 --local 64 --arg in=random:1000 --arg out=zeros:1000 --arg weights=random:7 --arg n=1000 --arg tile=local:280
// run: stencil_1d --global 1024 --local 256 --arg in=random:1000 --arg out=zeros:1000 --arg weights=random:7 --arg n=1000 --arg tile=local:1048
// run: stencil_1d --global 96 --local 8 -D RADIUS=2 --arg in=random:90 --arg out=zeros:90 --arg weights=random:5 --arg n=90 --arg tile=local:48
__kernel void stencil_1d(__global const float *in, __global float *out,
                         __constant float *weights, int n,
                         __local float *tile)
{
    int gid = get_global_id(0);  //~ shape: contiguous
    int lid = get_local_id(0);  //~ shape: contiguous
    int L = get_local_size(0);  //~ shape: uniform

    tile[lid + RADIUS] = gid < n ? in[gid] : 0.0f;  //~ branch: divergent //~ access: tile[lid + RADIUS]=store:contiguous, in[gid]=contiguous
    if (lid < RADIUS) {  //~ branch: divergent
        int left = gid - RADIUS;
        int right = gid + L;
        tile[lid] = (left >= 0 && left < n) ? in[left] : 0.0f;  //~ access: tile[lid]=store:contiguous, in[left]=contiguous
        tile[lid + L + RADIUS] = right < n ? in[right] : 0.0f;  //~ access: in[right]=contiguous
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum = 0.0f;
    for (int j = -RADIUS; j <= RADIUS; j++)  //~ loop: uniform //~ shape: j=uniform
        sum += weights[j + RADIUS] * tile[lid + RADIUS + j];  //~ access: weights[j + RADIUS]=uniform, tile[lid + RADIUS + j]=contiguous
    if (gid < n)
        out[gid] = sum;
}
