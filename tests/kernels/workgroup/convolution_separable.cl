/*
 * convolution_separable.cl - separable 2-D convolution with a
 * (2 RADIUS + 1)-tap filter, NVIDIA SDK convolutionSeparable style: a row
 * pass and a column pass, each staging a tile plus a RADIUS-wide apron in
 * __local memory. Pixels outside the image are clamped to the border.
 *
 * Launch (both passes): 2-D, global = (imageW, imageH), local = (BX, BY)
 *   as fixed by reqd_work_group_size; imageW a multiple of BX, imageH of
 *   BY.
 * Arguments: src and dst have imageW * imageH floats (row-major), filter
 *   has 2 RADIUS + 1 floats.
 */

#ifndef RADIUS
#define RADIUS 4
#endif
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 4
#endif
#define TAPS (2 * RADIUS + 1)

// run: convolutionRows --global 64,16 --local 16,4 --arg dst=zeros:1024 --arg src=random:1024 --arg filter=random:9 --arg imageW=64 --arg imageH=16
// run: convolutionRows --global 64,16 --local 8,8 -D BX=8 -D BY=8 -D RADIUS=2 --arg dst=zeros:1024 --arg src=random:1024 --arg filter=random:5 --arg imageW=64 --arg imageH=16
__attribute__((reqd_work_group_size(BX, BY, 1)))
__kernel void convolutionRows(__global float *dst, __global const float *src,
                              __constant float *filter, int imageW, int imageH)
{
    __local float tile[BY][BX + 2 * RADIUS];

    int lx = get_local_id(0);  //~ shape: contiguous
    int ly = get_local_id(1);  //~ shape: uniform
    int x0 = get_group_id(0) * BX;  //~ shape: uniform
    int y = get_global_id(1);  //~ shape: uniform

    // The tile row with its apron: BX + 2 RADIUS pixels, loaded BX at a time.
    // Lanes 0..2R-1 of the group run twice, the others once: with BX and
    // 2 RADIUS multiples of the SIMD width, whole SIMD groups agree.
    for (int i = lx; i < BX + 2 * RADIUS; i += BX) {  //~ loop: uniform
        int x = clamp(x0 - RADIUS + i, 0, imageW - 1);
        tile[ly][i] = src[y * imageW + x];  //~ access: tile[ly][i]=store:contiguous //~ warning[L0202]
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum = 0.0f;
    #pragma unroll
    for (int k = -RADIUS; k <= RADIUS; k++)  //~ loop: uniform
        sum += filter[RADIUS + k] * tile[ly][lx + RADIUS + k];  //~ access: filter[RADIUS + k]=uniform, tile[ly][lx + RADIUS + k]=contiguous
    dst[y * imageW + x0 + lx] = sum;  //~ access: dst[y * imageW + x0 + lx]=store:contiguous
}

// run: convolutionColumns --global 64,16 --local 16,4 --arg dst=zeros:1024 --arg src=random:1024 --arg filter=random:9 --arg imageW=64 --arg imageH=16
// run: convolutionColumns --global 64,16 --local 8,8 -D BX=8 -D BY=8 -D RADIUS=2 --arg dst=zeros:1024 --arg src=random:1024 --arg filter=random:5 --arg imageW=64 --arg imageH=16
__attribute__((reqd_work_group_size(BX, BY, 1)))
__kernel void convolutionColumns(__global float *dst, __global const float *src,
                                 __constant float *filter, int imageW, int imageH)
{
    __local float tile[BY + 2 * RADIUS][BX];

    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int x = get_global_id(0);  //~ shape: contiguous
    int y0 = get_group_id(1) * BY;

    // Column apron: the loop counter starts at the row id, which is the
    // same for a whole SIMD group, so this loop is uniform.
    for (int i = ly; i < BY + 2 * RADIUS; i += BY) {  //~ loop: uniform //~ shape: i=uniform
        int y = clamp(y0 - RADIUS + i, 0, imageH - 1);
        tile[i][lx] = src[y * imageW + x];  //~ access: tile[i][lx]=store:contiguous, src[y * imageW + x]=contiguous
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum = 0.0f;
    #pragma unroll
    for (int k = -RADIUS; k <= RADIUS; k++)
        sum += filter[RADIUS + k] * tile[ly + RADIUS + k][lx];  //~ access: tile[ly + RADIUS + k][lx]=contiguous
    dst[(y0 + ly) * imageW + x] = sum;
}
