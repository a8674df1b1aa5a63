/* Square matrix product C = A * B as plain C (loop order i, k, j), rows i in [lo, hi). */
void matmul_tiled(const float *A, const float *B, float *C, int n, int lo, int hi)
{
    if (hi > n)
        hi = n;
    for (int i = lo; i < hi; i++) {
        for (int j = 0; j < n; j++)
            C[i * n + j] = 0.0f;
        for (int k = 0; k < n; k++) {
            float a = A[i * n + k];
            for (int j = 0; j < n; j++)
                C[i * n + j] += a * B[k * n + j];
        }
    }
}
