// transpose.cl - out-of-place transpose of a height x width float matrix
// (NVIDIA SDK transpose): a TILE x TILE block is read along rows into a
// __local tile padded to TILE + 1 columns, then written along rows of the
// output, so both global accesses are contiguous along dimension 0.
//
// Launch: 2-D, global = (round_up(width, TILE), round_up(height, TILE)),
//   local = (TILE, TILE) (-D TILE, 16 by default).
// Arguments: in is height x width, out is width x height, row-major.

#ifndef TILE
#define TILE 16
#endif

__kernel void transpose(__global const float *in, __global float *out,
                        int width, int height)
{
    __local float tile[TILE][TILE + 1];

    int tx = get_local_id(0);
    int ty = get_local_id(1);
    int x = get_group_id(0) * TILE + tx;
    int y = get_group_id(1) * TILE + ty;
    if (x < width && y < height)
        tile[ty][tx] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);

    x = get_group_id(1) * TILE + tx;
    y = get_group_id(0) * TILE + ty;
    if (x < height && y < width)
        out[y * height + x] = tile[tx][ty];
}
