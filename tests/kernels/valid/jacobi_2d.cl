// jacobi_2d.cl - PolyBench Jacobi-2D: one time step is jacobi_2d_step
// (B from A on the interior) followed by jacobi_2d_copy (A = B on the
// interior). The boundary rows and columns are never written.
//
// Launch: 2-D NDRange over the whole n x n grid, dimension 0 over columns j,
//   dimension 1 over rows i: global = (round_up(n), round_up(n)).
//   Items on the boundary or outside the grid do nothing.
// Arguments: A and B are n x n row-major float grids, n >= 3.

__kernel void jacobi_2d_step(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);  //~ shape: contiguous
    int i = get_global_id(1);  //~ shape: uniform

    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)]  //~ access: B[i * n + j]=store:contiguous, A[i * n + j]=contiguous, A[i * n + (j - 1)]=contiguous, A[i * n + (j + 1)]=contiguous
                               + A[(i + 1) * n + j] + A[(i - 1) * n + j]);  //~ access: A[(i + 1) * n + j]=contiguous, A[(i - 1) * n + j]=contiguous
    }
}

__kernel void jacobi_2d_copy(__global float *A, __global const float *B, int n)
{
    int j = get_global_id(0);  //~ shape: contiguous
    int i = get_global_id(1);  //~ shape: uniform

    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        A[i * n + j] = B[i * n + j];  //~ access: A[i * n + j]=store:contiguous, B[i * n + j]=contiguous
}
