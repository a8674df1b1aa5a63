// include/image.h - image addressing for includes.cl; includes common.h
// relative to its own directory.

#ifndef LANES_TESTS_IMAGE_H
#define LANES_TESTS_IMAGE_H

#include "common.h"

inline int pixel_index(ImageSize s, int x, int y)
{
    return clamp_coord(y, s.height) * s.width + clamp_coord(x, s.width);
}

#endif
