// jacobi_2d.cl - PolyBench Jacobi-2D, one sweep: B from A on the interior
// (a full time step also copies B back to A; see
// tests/kernels/valid/jacobi_2d.cl). The boundary is never written.
//
// Launch: 2-D NDRange over the whole n x n grid, dimension 0 over columns j,
//   dimension 1 over rows i: global = (round_up(n), round_up(n)).
//   Items on the boundary or outside the grid do nothing.
// Arguments: A and B are n x n row-major float grids, n >= 3.

__kernel void jacobi_2d_step(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);
    int i = get_global_id(1);

    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)]
                               + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
    }
}
