/* The STREAM triad as plain C: a = b + q * c for i in [lo, hi). */
void stream_triad(float *a, const float *b, const float *c, float q, int n, int lo, int hi)
{
    if (hi > n)
        hi = n;
    for (int i = lo; i < hi; i++)
        a[i] = b[i] + q * c[i];
}
