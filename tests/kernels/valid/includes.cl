// includes.cl - #include of local headers: include/common.h (with an
// include guard) is included directly and again through include/image.h,
// which includes it relative to its own directory.
//
// Launch: 2-D NDRange, dimension 0 over x, dimension 1 over y:
//   global = (round_up(size.width), round_up(size.height)); items outside
//   the image return.
// Arguments: src and dst are size.width x size.height row-major float
//   images (width, height >= 1); t is the blend factor in [0, 1].

#include "include/common.h"
#include "include/image.h"

__kernel void blend_shifted(__global const float *src, __global float *dst,
                            ImageSize size, float t)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= size.width || y >= size.height)
        return;

    float here = src[pixel_index(size, x, y)];  //~ warning[L0202]
    float right = src[pixel_index(size, x + 1, y)];  //~ warning[L0202]
    float below = src[pixel_index(size, x, y + 1)];  //~ warning[L0202]
    float v = lerp(here, 0.5f * (right + below), t);
    dst[y * size.width + x] = fabs(v) < COMMON_EPS ? 0.0f : v;
}
