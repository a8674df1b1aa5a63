/* One Jacobi-2D sweep as plain C: B from A on the interior, rows i in [lo, hi). */
void jacobi_2d_step(const float *A, float *B, int n, int lo, int hi)
{
    if (lo < 1)
        lo = 1;
    if (hi > n - 1)
        hi = n - 1;
    for (int i = lo; i < hi; i++)
        for (int j = 1; j < n - 1; j++)
            B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)] +
                                   A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
