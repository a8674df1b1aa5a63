// matmul_tiled.cl - C = A * B for square row-major float matrices, NVIDIA
// SDK matrixMul style: each work-group computes one TILE x TILE block of C
// and walks the shared dimension tile by tile, staging one tile of A and one
// of B in __local memory between two barriers.
//
// Launch: 2-D, global = (n, n), local = (TILE, TILE); n a multiple of TILE
//   (the host picks TILE with -D, 16 by default).
// Arguments: A, B and C are n x n.

#ifndef TILE
#define TILE 16
#endif

__kernel void matmul_tiled(__global const float *A, __global const float *B,
                           __global float *C, int n)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];

    int tx = get_local_id(0);
    int ty = get_local_id(1);
    int col = get_global_id(0);
    int row = get_global_id(1);

    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
