/*
 * transpose_local.cl - out-of-place transpose of a height x width float
 * matrix through a BLOCK_DIM x BLOCK_DIM tile in __local memory, so that
 * both the global read and the global write are contiguous along
 * dimension 0. The tile has one column of padding (BLOCK_DIM + 1) so that
 * the column-wise read of the tile hits BLOCK_DIM + 1 different banks;
 * transpose_unpadded shows the tile without it.
 *
 * Launch: 2-D, global = (round_up(width, BLOCK_DIM), round_up(height,
 *   BLOCK_DIM)), local = (BLOCK_DIM, BLOCK_DIM); items outside the matrix
 *   load and store nothing but still reach the barrier.
 * Arguments: idata is height x width, odata is width x height, row-major.
 */

#ifndef BLOCK_DIM
#define BLOCK_DIM 16
#endif

// run: transpose --global 64,48 --local 16,16 --arg odata=zeros:2400 --arg idata=random:2400 --arg width=60 --arg height=40
// run: transpose --global 64,48 --local 8,8 -D BLOCK_DIM=8 --arg odata=zeros:2400 --arg idata=random:2400 --arg width=60 --arg height=40
// run: transpose --global 32,32 --local 4,4 -D BLOCK_DIM=4 --arg odata=zeros:1024 --arg idata=random:1024 --arg width=32 --arg height=32
__kernel void transpose(__global float *odata, __global const float *idata,
                        int width, int height)
{
    __local float tile[BLOCK_DIM][BLOCK_DIM + 1];

    int tx = get_local_id(0);  //~ shape: contiguous
    int ty = get_local_id(1);  //~ shape: uniform
    int xIndex = get_group_id(0) * BLOCK_DIM + tx;  //~ shape: contiguous
    int yIndex = get_group_id(1) * BLOCK_DIM + ty;  //~ shape: uniform

    if (xIndex < width && yIndex < height)
        tile[ty][tx] = idata[yIndex * width + xIndex];  //~ access: tile[ty][tx]=store:contiguous, idata[yIndex * width + xIndex]=contiguous

    barrier(CLK_LOCAL_MEM_FENCE);

    // The block at (group 1, group 0) of the output: swap the group ids.
    xIndex = get_group_id(1) * BLOCK_DIM + tx;
    yIndex = get_group_id(0) * BLOCK_DIM + ty;
    if (xIndex < height && yIndex < width)
        odata[yIndex * height + xIndex] = tile[tx][ty];  //~ access: odata[yIndex * height + xIndex]=store:contiguous, tile[tx][ty]=strided(68) //~ warning[L0204]
}

// run: transpose_unpadded --global 64,48 --local 16,16 --arg odata=zeros:2400 --arg idata=random:2400 --arg width=60 --arg height=40
// run: transpose_unpadded --global 32,32 --local 8,8 -D BLOCK_DIM=8 --arg odata=zeros:1024 --arg idata=random:1024 --arg width=32 --arg height=32
__kernel void transpose_unpadded(__global float *odata,
                                 __global const float *idata,
                                 int width, int height)
{
    __local float tile[BLOCK_DIM][BLOCK_DIM];

    int tx = get_local_id(0);
    int ty = get_local_id(1);
    int xIndex = get_group_id(0) * BLOCK_DIM + tx;
    int yIndex = get_group_id(1) * BLOCK_DIM + ty;

    if (xIndex < width && yIndex < height)
        tile[ty][tx] = idata[yIndex * width + xIndex];
    barrier(CLK_LOCAL_MEM_FENCE);

    xIndex = get_group_id(1) * BLOCK_DIM + tx;
    yIndex = get_group_id(0) * BLOCK_DIM + ty;
    if (xIndex < height && yIndex < width)
        odata[yIndex * height + xIndex] = tile[tx][ty];  //~ access: tile[tx][ty]=strided(64) //~ warning[L0204]
}
