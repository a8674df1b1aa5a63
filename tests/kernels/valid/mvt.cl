// mvt.cl - PolyBench MVT: x1 += A * y1 and x2 += A^T * y2.
//
// Launch: 1-D, global = round_up(n) for both kernels; items with id >= n
//   return. The two kernels are independent.
// Arguments: A is an n x n row-major float matrix; x1, x2, y1, y2 have n
//   elements each.

__kernel void mvt_x1(__global const float *A, __global float *x1,
                     __global const float *y1, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;
    float acc = x1[i];  //~ shape: varying //~ access: x1[i]=contiguous
    for (int j = 0; j < n; j++)  //~ shape: uniform //~ loop: uniform
        acc += A[i * n + j] * y1[j];  //~ access: A[i * n + j]=gather, y1[j]=uniform //~ warning[L0202]
    x1[i] = acc;  //~ access: x1[i]=store:contiguous
}

__kernel void mvt_x2(__global const float *A, __global float *x2,
                     __global const float *y2, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;
    float acc = x2[i];
    for (int j = 0; j < n; j++)  //~ shape: uniform //~ loop: uniform
        acc += A[j * n + i] * y2[j];  //~ access: A[j * n + i]=contiguous, y2[j]=uniform
    x2[i] = acc;  //~ access: x2[i]=store:contiguous
}
