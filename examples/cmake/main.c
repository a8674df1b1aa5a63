/* Runs the blur kernel that lanes built (blur.h declares it) over a row and
 * checks it against the same blur in C. */
#include <math.h>
#include <stdio.h>

#include "blur.h"

int main(void)
{
    enum { N = 1000 };
    static float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)((i * 7) % 13);

    lanes_range r = { 1, {0, 0, 0}, {N, 1, 1}, {0, 0, 0} }; /* local size 0: lanes chooses */
    if (blur(in, out, N, &r) != 0) {
        fprintf(stderr, "blur: bad range\n");
        return 2;
    }
    for (int x = 0; x < N; x++) {
        float sum = 0.0f;
        for (int d = -RADIUS; d <= RADIUS; d++) {
            int i = x + d < 0 ? 0 : x + d > N - 1 ? N - 1 : x + d;
            sum += in[i];
        }
        float want = sum * (1.0f / (2 * RADIUS + 1));
        if (fabsf(out[x] - want) > 1e-5f * fabsf(want)) {
            printf("blur: out[%d] = %g, expected %g\n", x, out[x], want);
            return 1;
        }
    }
    printf("blur: %d values ok (radius %d)\n", N, RADIUS);
    return 0;
}
