// mvt.cl - PolyBench MVT: x1 += A * y1 and x2 += A^T * y2.
//
// Launch: 1-D, global = round_up(n) for both kernels; items with id >= n
//   return. The two kernels are independent.
// Arguments: A is an n x n row-major float matrix; x1, x2, y1, y2 have n
//   elements each.

__kernel void mvt_x1(__global const float *A, __global float *x1,
                     __global const float *y1, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float acc = x1[i];
    for (int j = 0; j < n; j++)
        acc += A[i * n + j] * y1[j];
    x1[i] = acc;
}

__kernel void mvt_x2(__global const float *A, __global float *x2,
                     __global const float *y2, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float acc = x2[i];
    for (int j = 0; j < n; j++)
        acc += A[j * n + i] * y2[j];
    x2[i] = acc;
}
