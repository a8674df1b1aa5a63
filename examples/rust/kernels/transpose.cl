// transpose.cl - B = SCALE * A^T for a row-major height x width matrix A,
// the naive transpose of the NVIDIA SDK.
//
// Launch: a 2-D NDRange of width x height work-items (x along a row of A);
// the global size may be rounded up, the extra work-items do nothing.
//   in   width * height floats (A, row-major)
//   out  height * width floats (B, row-major)

#include "scale.h"

__kernel void transpose(__global float *out, __global const float *in, int width, int height)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x < width && y < height)
        out[x * height + y] = SCALE * in[y * width + x];
}
