/*
 * matvec_local_reduce.cl - y = A x for a dense row-major rows x cols float
 * matrix, one work-group per row: the work-items stride over the row
 * (consecutive work-items read consecutive elements), then combine their
 * partial dot products by a tree in __local memory. Work-item 0 writes
 * the row's result. A variant with float4 loads (cols a multiple of 4)
 * cuts the number of loads by four.
 *
 * Launch: 1-D, global = rows L, local = L (a power of two).
 * Arguments: A has rows * cols floats, x has cols floats, y has rows
 *   floats; partial is L floats of __local memory.
 */

// run: matvec_rows --global 2048 --local 64 --arg A=random:6000 --arg x=random:187 --arg y=zeros:32 --arg partial=local:256 --arg rows=32 --arg cols=187
// run: matvec_rows --global 2048 --local 128 --arg A=random:3200 --arg x=random:200 --arg y=zeros:16 --arg partial=local:512 --arg rows=16 --arg cols=200
// run: matvec_rows --global 320 --local 16 --arg A=random:100 --arg x=random:5 --arg y=zeros:20 --arg partial=local:64 --arg rows=20 --arg cols=5
__kernel void matvec_rows(__global const float *A, __global const float *x,
                          __global float *y, __local float *partial,
                          int rows, int cols)
{
    int row = get_group_id(0);  //~ shape: uniform
    int lid = get_local_id(0);  //~ shape: contiguous
    int L = get_local_size(0);

    float sum = 0.0f;
    for (int j = lid; j < cols; j += L)  //~ loop: divergent //~ shape: j=contiguous //~ warning[L0201]
        sum += A[row * cols + j] * x[j];  //~ access: A[row * cols + j]=contiguous, x[j]=contiguous
    partial[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int s = L / 2; s > 0; s >>= 1) {  //~ loop: uniform
        if (lid < s)
            partial[lid] += partial[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[row] = partial[0];  //~ access: y[row]=store:uniform
}

// run: matvec_rows4 --global 1024 --local 64 --arg A=random:2048 --arg x=random:128 --arg y=zeros:16 --arg partial=local:256 --arg rows=16 --arg cols=128
// run: matvec_rows4 --global 256 --local 32 --arg A=random:24 --arg x=random:3 --arg y=zeros:8 --arg partial=local:128 --arg rows=8 --arg cols=12
__kernel void matvec_rows4(__global const float4 *A, __global const float4 *x,
                           __global float *y, __local float *partial,
                           int rows, int cols)
{
    int row = get_group_id(0);
    int lid = get_local_id(0);
    int L = get_local_size(0);
    int cols4 = cols / 4;

    float sum = 0.0f;
    for (int j = lid; j < cols4; j += L)  //~ warning[L0201]
        sum += dot(A[row * cols4 + j], x[j]);  //~ access: A[row * cols4 + j]=contiguous
    partial[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int s = L / 2; s > 0; s >>= 1) {
        if (lid < s)
            partial[lid] += partial[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[row] = partial[0];
}
