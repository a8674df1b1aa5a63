/*
 * binomial_option.cl - European call options priced with a binomial
 * lattice, one option per work-group, in the manner of the AMD APP SDK
 * BinomialOption sample: the NUM_STEPS + 1 leaf values (NUM_STEPS = local
 * size - 1) live in __local memory and the work-group walks the lattice
 * back to its root, one level per barrier, alternating two buffers.
 *
 * Copyright © 2026 The lanes authors. MIT licence.
 * Lattice parameters after the Cox-Ross-Rubinstein paper; thanks to
 * Jürgen Müller for the two-buffer formulation.
 *
 * Launch: 1-D, global = numOptions L, local = L (NUM_STEPS = L - 1 >= 1).
 * Arguments: spot and strike have numOptions floats (> 0); call has
 *   numOptions floats; callA and callB are L floats of __local memory
 *   each; T (years), R (rate) and V (volatility) > 0.
 */

// run: binomial_options --global 512 --local 64 --arg spot=random:8:10:30 --arg strike=random:8:10:30 --arg call=zeros:8 --arg callA=local:256 --arg callB=local:256 --arg T=1 --arg R=0.02 --arg V=0.3
// run: binomial_options --global 1024 --local 256 --arg spot=random:4:10:30 --arg strike=random:4:10:30 --arg call=zeros:4 --arg callA=local:1024 --arg callB=local:1024 --arg T=0.5 --arg R=0.05 --arg V=0.2
// run: binomial_options --global 96 --local 16 --arg spot=random:6:10:30 --arg strike=random:6:10:30 --arg call=zeros:6 --arg callA=local:64 --arg callB=local:64 --arg T=2 --arg R=0.01 --arg V=0.4
__kernel void binomial_options(__global const float *spot, __global const float *strike,
                               __global float *call, __local float *callA,
                               __local float *callB, float T, float R, float V)
{
    uint tid = get_local_id(0);  //~ shape: contiguous
    uint bid = get_group_id(0);  //~ shape: uniform
    uint numSteps = get_local_size(0) - 1;

    float S = spot[bid];  //~ shape: uniform
    float X = strike[bid];

    // Cox-Ross-Rubinstein up/down factors and discounted probabilities.
    float dt = T / numSteps;
    float vsdt = V * sqrt(dt);
    float rInv = exp(-R * dt);
    float u = exp(vsdt);
    float d = 1.0f / u;
    float pu = (1.0f / rInv - d) / (u - d);
    float puByr = pu * rInv;  //~ shape: uniform
    float pdByr = (1.0f - pu) * rInv;

    float profit = S * exp(vsdt * (2.0f * tid - (float)numSteps)) - X;  //~ shape: varying
    callA[tid] = profit > 0.0f ? profit : 0.0f;  //~ access: callA[tid]=store:contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    __local float *from = callA;
    __local float *to = callB;
    for (uint j = numSteps; j > 0; j--) {  //~ loop: uniform
        if (tid < j)  //~ branch: divergent
            to[tid] = puByr * from[tid + 1] + pdByr * from[tid];  //~ access: from[tid + 1]=contiguous
        barrier(CLK_LOCAL_MEM_FENCE);
        __local float *t = from;
        from = to;
        to = t;
    }
    if (tid == 0)
        call[bid] = from[0];
}
