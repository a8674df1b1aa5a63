/* Transpose as plain C, blocked by 16 x 16: out (width x height) = in^T, input rows in [lo, hi). */
void transpose(const float *in, float *out, int width, int height, int lo, int hi)
{
    if (hi > height)
        hi = height;
    for (int y0 = lo; y0 < hi; y0 += 16)
        for (int x0 = 0; x0 < width; x0 += 16)
            for (int y = y0; y < y0 + 16 && y < hi; y++)
                for (int x = x0; x < x0 + 16 && x < width; x++)
                    out[x * height + y] = in[y * width + x];
}
