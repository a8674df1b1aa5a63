/*
 * matrix_mul_tiled.cl - C = A * B for row-major float matrices, NVIDIA SDK
 * style: each work-group computes one BLOCK_SIZE x BLOCK_SIZE tile of C and
 * walks the shared dimension tile by tile, staging one tile of A and one of
 * B in __local memory between two barriers.
 *
 * Copyright (c) 2026 The lanes authors. Distributed under the MIT licence.
 *
 * Launch: 2-D, global = (wB, hA), local = (BLOCK_SIZE, BLOCK_SIZE);
 *   dimension 0 runs over the columns of C, dimension 1 over its rows.
 * Arguments: A is hA x wA, B is wA x wB, C is hA x wB; wA, wB and hA are
 *   multiples of BLOCK_SIZE (the host picks BLOCK_SIZE with -D).
 */

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

#define AS(i, j) As[i][j]
#define BS(i, j) Bs[i][j]

// run: matrixMul --global 64,32 --local 16,16 --arg C=zeros:2048 --arg A=random:1536 --arg B=random:3072 --arg wA=48 --arg wB=64
// run: matrixMul --global 64,32 --local 8,8 -D BLOCK_SIZE=8 --arg C=zeros:2048 --arg A=random:1536 --arg B=random:3072 --arg wA=48 --arg wB=64
// run: matrixMul --global 32,32 --local 4,4 -D BLOCK_SIZE=4 --arg C=zeros:1024 --arg A=random:256 --arg B=random:256 --arg wA=8 --arg wB=32
__kernel void matrixMul(__global float *C, __global const float *A,
                        __global const float *B, int wA, int wB)
{
    __local float As[BLOCK_SIZE][BLOCK_SIZE];
    __local float Bs[BLOCK_SIZE][BLOCK_SIZE];

    int bx = get_group_id(0);  //~ shape: uniform
    int by = get_group_id(1);  //~ shape: uniform
    int tx = get_local_id(0);  //~ shape: contiguous
    int ty = get_local_id(1);  //~ shape: uniform

    // First and last tile of A processed by the work-group, and the steps.
    int aBegin = wA * BLOCK_SIZE * by;  //~ shape: uniform
    int aEnd = aBegin + wA - 1;
    int aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx;  //~ shape: uniform
    int bStep = BLOCK_SIZE * wB;

    float Csub = 0.0f;  //~ shape: varying

    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {  //~ loop: uniform //~ shape: a=uniform, b=uniform
        AS(ty, tx) = A[a + wA * ty + tx];  //~ access: A[a + wA * ty + tx]=contiguous
        BS(ty, tx) = B[b + wB * ty + tx];  //~ access: B[b + wB * ty + tx]=contiguous
        barrier(CLK_LOCAL_MEM_FENCE);

        #pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k)  //~ loop: uniform //~ shape: k=uniform
            Csub += AS(ty, k) * BS(k, tx);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;  //~ access: C[c + wB * ty + tx]=store:contiguous
}
