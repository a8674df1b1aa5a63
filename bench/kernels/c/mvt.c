/* PolyBench MVT's first product as plain C: x1 += A y1, rows i in [lo, hi). */
void mvt_kernel1(float *a, float *x1, float *y1, int n, int lo, int hi)
{
    if (hi > n)
        hi = n;
    for (int i = lo; i < hi; i++)
        for (int j = 0; j < n; j++)
            x1[i] += a[i * n + j] * y1[j];
}
