/* 2-D convolution with clamp-to-edge borders as plain C, rows y in [lo, hi). */
static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

void convolution_2d(const float *input, float *output, const float *filter, int width,
                    int height, int filterWidth, int lo, int hi)
{
    int r = (filterWidth - 1) / 2;
    if (hi > height)
        hi = height;
    for (int y = lo; y < hi; y++) {
        for (int x = 0; x < width; x++) {
            float sum = 0.0f;
            for (int fy = 0; fy < filterWidth; fy++) {
                int sy = clampi(y + fy - r, 0, height - 1);
                for (int fx = 0; fx < filterWidth; fx++) {
                    int sx = clampi(x + fx - r, 0, width - 1);
                    sum += filter[fy * filterWidth + fx] * input[sy * width + sx];
                }
            }
            output[y * width + x] = sum;
        }
    }
}
