/* Exclusive prefix sums of blocks of 512 floats as plain C, blocks g in [lo, hi). */
#define BLOCK 512

void scan_blocks(const float *in, float *out, float *sums, int lo, int hi)
{
    for (int g = lo; g < hi; g++) {
        float s = 0.0f;
        for (int i = g * BLOCK; i < (g + 1) * BLOCK; i++) {
            out[i] = s;
            s += in[i];
        }
        sums[g] = s;
    }
}
