/* Sub-histograms as plain C: partial[g] counts the low bytes of data[g 8192 .. (g + 1) 8192), groups g in [lo, hi). */
#define BINS 256
#define BLOCK (256 * 32)

void histogram256(const unsigned *data, unsigned *partial, int lo, int hi)
{
    for (int g = lo; g < hi; g++) {
        unsigned *bins = partial + g * BINS;
        for (int b = 0; b < BINS; b++)
            bins[b] = 0;
        for (int i = g * BLOCK; i < (g + 1) * BLOCK; i++)
            bins[data[i] & 0xffu]++;
    }
}
