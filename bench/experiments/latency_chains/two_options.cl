// two_options.cl - bench/kernels/black_scholes.cl's kernel computing two
// options per work-item (i and i + n/2): two independent chains side by
// side, the experiment behind loop-free interleaving (README.md).
// Launch: global = n / 2.
#include "../../kernels/black_scholes.cl"

__kernel void black_scholes2(__global float *call, __global float *put,
                            __global const float *S, __global const float *X,
                            __global const float *T, float R, float V, int n)
{
    int i0 = get_global_id(0);
    int h = n / 2;
    if (i0 >= h)
        return;
    int i1 = i0 + h;
    float s0 = S[i0], s1 = S[i1];
    float x0 = X[i0], x1 = X[i1];
    float t0 = T[i0], t1 = T[i1];
    float q0 = sqrt(t0), q1 = sqrt(t1);
    float a0 = (log(s0 / x0) + (R + 0.5f * V * V) * t0) / (V * q0);
    float a1 = (log(s1 / x1) + (R + 0.5f * V * V) * t1) / (V * q1);
    float b0 = a0 - V * q0, b1 = a1 - V * q1;
    float ca0 = cnd(a0), ca1 = cnd(a1);
    float cb0 = cnd(b0), cb1 = cnd(b1);
    float e0 = exp(-R * t0), e1 = exp(-R * t1);
    call[i0] = s0 * ca0 - x0 * e0 * cb0;
    call[i1] = s1 * ca1 - x1 * e1 * cb1;
    put[i0] = x0 * e0 * (1.0f - cb0) - s0 * (1.0f - ca0);
    put[i1] = x1 * e1 * (1.0f - cb1) - s1 * (1.0f - ca1);
}
