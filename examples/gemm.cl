// gemm.cl - dense matrix multiplication in the style of PolyBench/GPU:
//     C = alpha * A * B + beta * C
//
// Launch: a 2-D NDRange over the result. Dimension 0 runs over the columns
// j of C, dimension 1 over the rows i; global sizes may be rounded up.
//   A   ni x nk floats, row-major
//   B   nk x nj floats, row-major
//   C   ni x nj floats, row-major, updated in place
//
// Under lanes, a SIMD group holds W consecutive columns j of one row i. So
// i is uniform and j contiguous: the loop over k runs the same number of
// times in every lane (uniform), A[i * nk + k] is one scalar load shared by
// all lanes (broadcast), and B[k * nj + j] and C[i * nj + j] are packed
// vector accesses. Swapping the roles of the two dimensions would turn the
// B loads into strided gathers; `lanes explain` shows the difference.

__kernel void gemm(int ni, int nj, int nk, float alpha, float beta,
                   __global float *C,
                   __global const float *A,
                   __global const float *B)
{
    int j = get_global_id(0);  //~ shape: contiguous
    int i = get_global_id(1);  //~ shape: uniform

    if (i < ni && j < nj) {
        C[i * nj + j] *= beta;  //~ access: C[i * nj + j]=load:contiguous, C[i * nj + j]=store:contiguous
        for (int k = 0; k < nk; k++)  //~ shape: uniform //~ loop: uniform
            C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];  //~ access: C[i * nj + j]=load:contiguous, C[i * nj + j]=store:contiguous, A[i * nk + k]=uniform, B[k * nj + j]=contiguous
    }
}
