// helpers.cl - non-kernel helper functions calling each other: inline
// helpers, helpers taking __global and __private pointers, a helper with an
// early return, a void helper writing through a pointer, and two kernels
// sharing them.
//
// Launch: 1-D. smooth3: global = round_up(n); ids >= n return.
//   nearest_point: global = round_up(nq); ids >= nq return.
// Arguments: smooth3: in and out have n floats, n >= 1; out2 has 2 * n.
//   nearest_point: points has npts float2, queries has nq float2, best_idx
//   has nq ints and best_d2 nq floats; npts >= 1.

inline float sq(float x)
{
    return x * x;
}

inline float dist2(float2 a, float2 b)
{
    return sq(a.x - b.x) + sq(a.y - b.y);
}

int clamp_index(int i, int n)
{
    if (i < 0)
        return 0;
    if (i >= n)
        return n - 1;
    return i;
}

float load_clamped(__global const float *p, int i, int n)
{
    return p[clamp_index(i, n)];
}

void accumulate(float *acc, float *weight_sum, float v, float w)
{
    *acc += v * w;
    *weight_sum += w;
}

void store_pair(__global float *out, int i, float a, float b)
{
    out[2 * i] = a;
    out[2 * i + 1] = b;
}

float weighted_average3(__global const float *p, int i, int n)
{
    float acc = 0.0f;
    float wsum = 0.0f;
    accumulate(&acc, &wsum, load_clamped(p, i - 1, n), 0.25f);
    accumulate(&acc, &wsum, load_clamped(p, i, n), 0.5f);
    accumulate(&acc, &wsum, load_clamped(p, i + 1, n), 0.25f);
    return acc / wsum;
}

__kernel void smooth3(__global const float *in, __global float *out,
                      __global float *out2, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    float s = weighted_average3(in, i, n);
    out[i] = s;
    store_pair(out2, i, s, sq(in[i] - s));
}

__kernel void nearest_point(__global const float2 *points, int npts,
                            __global const float2 *queries,
                            __global int *best_idx, __global float *best_d2,
                            int nq)
{
    int q = get_global_id(0);
    if (q >= nq)
        return;

    float2 p = queries[q];
    int best = 0;
    float bd = dist2(p, points[0]);
    for (int k = 1; k < npts; k++) {
        float d = dist2(p, points[k]);
        if (d < bd) {
            bd = d;
            best = k;
        }
    }
    best_idx[q] = best;
    best_d2[q] = bd;
}
