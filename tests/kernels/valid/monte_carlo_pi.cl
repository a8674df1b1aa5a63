// monte_carlo_pi.cl - Monte-Carlo estimation of pi: each work-item runs its
// own xorshift32 generator in registers, draws samples points in the unit
// square and counts those inside the quarter circle. The host sums hits.
//
// Launch: 1-D, global = round_up(nitems); ids >= nitems return.
// Arguments: hits has nitems uints; seed is any uint; samples >= 0.
//
// The generator state is per item (varying); the sample loop is uniform.

inline uint xorshift32(uint *state)
{
    uint x = *state;  //~ shape: varying
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

__kernel void monte_carlo_pi(__global uint *hits, uint seed, int samples, int nitems)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= nitems)  //~ branch: divergent
        return;

    // A per-item seed that is never 0 (xorshift's fixed point).
    uint state = (seed ^ ((uint)i * 0x9e3779b9u)) | 1u;
    uint count = 0;  //~ shape: varying
    for (int s = 0; s < samples; s++) {  //~ shape: uniform //~ loop: uniform
        float px = (xorshift32(&state) >> 8) * (1.0f / 16777216.0f);  //~ shape: varying
        float py = (xorshift32(&state) >> 8) * (1.0f / 16777216.0f);
        if (px * px + py * py <= 1.0f)  //~ branch: divergent
            count++;
    }
    hits[i] = count;  //~ access: hits[i]=store:contiguous
}
