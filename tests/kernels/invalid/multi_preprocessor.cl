// Several independent errors across preprocessing and the code after it:
// a missing include, an unknown directive, a macro called with the wrong
// number of arguments, an undeclared name and an assignment to a constant.
// The inactive #if 0 group contains garbage that must not be reported.

#include "not_there.h"
//~^ error[L0010]
#pragma unroll_everything
#warnings_as_errors on
//~^ error[L0011]

#define AXPY(a, x, y) ((a) * (x) + (y))
#define N_TAPS 3

#if 0
this is not OpenCL C at all @ 12abc
#error not reported: inactive group
#endif

__kernel void uses_macros(__global float *x, __global const float *y, float a, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    x[i] = AXPY(a, x[i]);                           //~ error[L0014]
    x[i] += AXPY(a, y[i], N_TAPS);
    x[i] *= scale;                                  //~ error[L0003]
}

__constant float taps[N_TAPS] = { 0.25f, 0.5f, 0.25f };

__kernel void writes_constant(__global float *x)
{
    int i = get_global_id(0);
    taps[1] = x[i];                                 //~ error[L0008]
}
