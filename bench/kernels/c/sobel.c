/* Sobel gradient magnitude as plain C (border pixels 0), rows y in [lo, hi). */
#include <math.h>

void sobel(const float *in, float *out, int width, int height, int lo, int hi)
{
    if (hi > height)
        hi = height;
    for (int y = lo; y < hi; y++) {
        for (int x = 0; x < width; x++) {
            int idx = y * width + x;
            if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
                out[idx] = 0.0f;
                continue;
            }
            float p00 = in[idx - width - 1], p01 = in[idx - width], p02 = in[idx - width + 1];
            float p10 = in[idx - 1], p12 = in[idx + 1];
            float p20 = in[idx + width - 1], p21 = in[idx + width], p22 = in[idx + width + 1];
            float gx = (p02 + 2.0f * p12 + p22) - (p00 + 2.0f * p10 + p20);
            float gy = (p20 + 2.0f * p21 + p22) - (p00 + 2.0f * p01 + p02);
            out[idx] = sqrtf(gx * gx + gy * gy);
        }
    }
}
