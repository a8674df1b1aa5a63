/* Block sums as plain C: partial[g] = sum of in[512 g .. 512 g + 512), groups g in [lo, hi). */
#define BLOCK 512

void reduce_sum(const float *in, float *partial, int n, int lo, int hi)
{
    for (int g = lo; g < hi; g++) {
        int end = (g + 1) * BLOCK < n ? (g + 1) * BLOCK : n;
        float s = 0.0f;
        for (int i = g * BLOCK; i < end; i++)
            s += in[i];
        partial[g] = s;
    }
}
