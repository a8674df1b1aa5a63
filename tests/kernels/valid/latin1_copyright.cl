/**********************************************************************
Copyright ©2012 Advanced Micro Devices, Inc. All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the conditions are met.
Contributors: François Müller, José García.
********************************************************************/

// latin1_copyright.cl - SimpleConvolution-style 1-D filter whose license
// header is Latin-1 (not UTF-8), as many SDK files are; the header it
// includes is Latin-1 too. out[i] = sum_k mask[k] * in[i + k].
//
// Launch: 1-D, global = n exactly.
// Arguments: in has n + MASK_WIDTH - 1 floats, mask MASK_WIDTH, out n.

#include "include/latin1_filter.h"

__kernel void simpleConvolution1D(__global const float *in,  /* entrée */
                                  __constant float *mask,
                                  __global float *out)
{
    uint i = get_global_id(0);  //~ shape: contiguous
    float sum = 0.0f;
    for (int k = 0; k < MASK_WIDTH; k++)  //~ loop: uniform
        sum += mask[k] * in[i + k];  /* µs */  //~ access: mask[k]=uniform, in[i + k]=contiguous
    out[i] = sum;  //~ access: out[i]=store:contiguous
}
