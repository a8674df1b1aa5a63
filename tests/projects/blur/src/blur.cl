#pragma lanes ignore(L0202)
#ifndef RADIUS
#error "RADIUS comes from lanes.toml"
#endif
#include "blur.h"

__kernel void blur_row(__global const float *in, __global float *out, int width)
{
    int x = get_global_id(0);
    float sum = 0.0f;
    for (int i = max(0, x - RADIUS); i <= min(width - 1, x + RADIUS); ++i)
        sum += in[i];
    out[x] = sum * BLUR_WEIGHT;
}

__kernel void lookup(__global const int *idx, __global const float *data,
                     __global float *out, int n)
{
    int x = get_global_id(0);
    if (x < n) {
        out[x] = data[idx[x]];
        #pragma lanes ignore(L0203)
        out[idx[x]] = 1.0f;
        out[idx[x] + 1] = 2.0f;
    }
}
