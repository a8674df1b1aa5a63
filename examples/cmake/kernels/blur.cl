/* blur.cl - a box blur of one row with a clamped border. RADIUS comes from
 * the build (lanes_add_kernels(... DEFINES RADIUS=2)). */
#include "blur_weights.h"

#ifndef RADIUS
#error "RADIUS must be defined: -DRADIUS=N"
#endif

__kernel void blur(__global const float *in, __global float *out, int n)
{
    int x = get_global_id(0);
    if (x >= n)
        return;
    float sum = 0.0f;
    for (int d = -RADIUS; d <= RADIUS; ++d)
        sum += in[clamp(x + d, 0, n - 1)];
    out[x] = sum * BLUR_WEIGHT;
}
