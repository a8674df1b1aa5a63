/* convolution_main.c - calls the SIMD object lanes builds from
 * examples/convolution.cl, like any C library, and checks it against a plain
 * C loop.
 *
 *   lanes build examples/convolution.cl -o conv.o --header conv.h --target avx512skx-x16
 *   cc -O2 -I. examples/c/convolution_main.c conv.o -o conv && ./conv
 *
 * (`make demo` does exactly this.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "conv.h"

static void reference(const float *in, float *out, const float *st, int width, int sw)
{
    int vstep = (sw - 1) / 2;
    for (int x = 0; x < width; x++) {
        int left = x - vstep < 0 ? 0 : x - vstep;
        int right = x + vstep > width - 1 ? width - 1 : x + vstep;
        float sum = 0.0f;
        for (int i = left; i <= right; i++)
            sum += in[i] * st[i - (x - vstep)];
        out[x] = sum;
    }
}

int main(void)
{
    enum { WIDTH = 1000, SW = 7 };
    float *in = malloc(WIDTH * sizeof(float));
    float *out = malloc(WIDTH * sizeof(float));
    float *want = malloc(WIDTH * sizeof(float));
    float stencil[SW];
    for (int i = 0; i < WIDTH; i++)
        in[i] = (float)((i * 37) % 101) / 101.0f;
    for (int i = 0; i < SW; i++)
        stencil[i] = 1.0f / (1 + i);

    /* 1000 work-items: not a multiple of the SIMD width, so the last
     * group runs masked. local_size 0 lets lanes choose the work-group. */
    lanes_range r = { 1, { 0, 0, 0 }, { WIDTH, 1, 1 }, { 0, 0, 0 } };
    int err = convolution(in, out, stencil, WIDTH, SW, &r);
    if (err) {
        fprintf(stderr, "convolution: error %d\n", err);
        return 1;
    }
    reference(in, want, stencil, WIDTH, SW);
    int bad = 0;
    for (int i = 0; i < WIDTH; i++)
        if (fabsf(out[i] - want[i]) > 1e-5f * (1.0f + fabsf(want[i])))
            bad++;
    printf("convolution of %d pixels: out[0] = %g, out[%d] = %g; %s\n", WIDTH, out[0],
           WIDTH - 1, out[WIDTH - 1], bad ? "MISMATCH" : "matches the C loop");
    free(in);
    free(out);
    free(want);
    return bad != 0;
}
