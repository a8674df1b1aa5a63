// syrk.cl - PolyBench SYRK, lower triangle only:
//   C[i][j] = beta * C[i][j] + alpha * sum_k A[i][k] * A[j][k]   for j <= i.
//
// Launch: 2-D NDRange, dimension 0 over columns j, dimension 1 over rows i:
//   global = (round_up(n), round_up(n)). Items outside the matrix and items
//   above the diagonal (j > i) return without writing.
// Arguments: A is n x m row-major, C is n x n row-major; n, m >= 1.
//
// The early exit j > i makes the return divergent in the SIMD groups that
// straddle the diagonal; A[j*m + k] is a strided read across the group.

__kernel void syrk_lower(int n, int m, float alpha, float beta,
                         __global const float *A, __global float *C)
{
    int j = get_global_id(0);  //~ shape: contiguous
    int i = get_global_id(1);  //~ shape: uniform
    if (i >= n || j >= n)
        return;
    if (j > i)  //~ branch: divergent
        return;

    float sum = 0.0f;  //~ shape: varying
    for (int k = 0; k < m; k++)  //~ shape: uniform //~ loop: uniform
        sum += A[i * m + k] * A[j * m + k];  //~ access: A[i * m + k]=uniform, A[j * m + k]=gather //~ warning[L0202]
    C[i * n + j] = beta * C[i * n + j] + alpha * sum;  //~ access: C[i * n + j]=store:contiguous, C[i * n + j]=load:contiguous
}
