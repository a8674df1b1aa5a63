/* PolyBench GEMM as plain C (PolyBench's own loop order i, k, j):
 * C = alpha * A * B + beta * C, rows i in [lo, hi). */
void gemm(int ni, int nj, int nk, float alpha, float beta, float *C, const float *A,
          const float *B, int lo, int hi)
{
    if (hi > ni)
        hi = ni;
    for (int i = lo; i < hi; i++) {
        for (int j = 0; j < nj; j++)
            C[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++) {
            float a = alpha * A[i * nk + k];
            for (int j = 0; j < nj; j++)
                C[i * nj + j] += a * B[k * nj + j];
        }
    }
}
