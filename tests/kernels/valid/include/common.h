// include/common.h - shared helpers for includes.cl; included both
// directly and through include/image.h, so it needs its include guard.

#ifndef LANES_TESTS_COMMON_H
#define LANES_TESTS_COMMON_H

#define COMMON_EPS 1.0e-6f

typedef struct {
    int width;
    int height;
} ImageSize;

inline int clamp_coord(int v, int limit)
{
    return clamp(v, 0, limit - 1);
}

inline float lerp(float a, float b, float t)
{
    return a + (b - a) * t;
}

#endif // LANES_TESTS_COMMON_H
