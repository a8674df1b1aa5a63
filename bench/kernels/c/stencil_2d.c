/* Heat-equation step as plain C with replicated borders, rows y in [lo, hi). */
void stencil_2d(const float *in, float *out, int width, int height, float alpha, int lo, int hi)
{
    if (hi > height)
        hi = height;
    for (int y = lo; y < hi; y++) {
        const float *up = in + (y > 0 ? y - 1 : 0) * width;
        const float *row = in + y * width;
        const float *down = in + (y < height - 1 ? y + 1 : height - 1) * width;
        for (int x = 0; x < width; x++) {
            float c = row[x];
            float w = row[x > 0 ? x - 1 : 0];
            float e = row[x < width - 1 ? x + 1 : width - 1];
            out[y * width + x] = c + alpha * (up[x] + down[x] + e + w - 4.0f * c);
        }
    }
}
