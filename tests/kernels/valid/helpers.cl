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

inline float sq(float x)  //~ shape: varying
{
    return x * x;
}

inline float dist2(float2 a, float2 b)  //~ shape: a=varying, b=uniform
{
    return sq(a.x - b.x) + sq(a.y - b.y);
}

int clamp_index(int i, int n)  //~ shape: i=contiguous, n=uniform
{
    if (i < 0)  //~ branch: divergent
        return 0;
    if (i >= n)  //~ branch: divergent
        return n - 1;
    return i;
}

float load_clamped(__global const float *p, int i, int n)
{
    return p[clamp_index(i, n)];  //~ warning[L0202]
}

void accumulate(float *acc, float *weight_sum, float v, float w)
{
    *acc += v * w;
    *weight_sum += w;
}

void store_pair(__global float *out, int i, float a, float b)
{
    out[2 * i] = a;  //~ access: out[2 * i]=store:strided(8) //~ warning[L0204]
    out[2 * i + 1] = b;  //~ access: out[2 * i + 1]=store:strided(8) //~ warning[L0204]
}

float weighted_average3(__global const float *p, int i, int n)
{
    float acc = 0.0f;
    float wsum = 0.0f;  //~ shape: uniform
    accumulate(&acc, &wsum, load_clamped(p, i - 1, n), 0.25f);
    accumulate(&acc, &wsum, load_clamped(p, i, n), 0.5f);
    accumulate(&acc, &wsum, load_clamped(p, i + 1, n), 0.25f);
    return acc / wsum;
}

__kernel void smooth3(__global const float *in, __global float *out,
                      __global float *out2, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float s = weighted_average3(in, i, n);  //~ shape: varying
    out[i] = s;  //~ access: out[i]=store:contiguous
    store_pair(out2, i, s, sq(in[i] - s));  //~ access: in[i]=contiguous
}

__kernel void nearest_point(__global const float2 *points, int npts,
                            __global const float2 *queries,
                            __global int *best_idx, __global float *best_d2,
                            int nq)
{
    int q = get_global_id(0);  //~ shape: contiguous
    if (q >= nq)
        return;

    float2 p = queries[q];
    int best = 0;  //~ shape: varying
    float bd = dist2(p, points[0]);  //~ shape: varying //~ access: points[0]=uniform
    for (int k = 1; k < npts; k++) {  //~ shape: uniform //~ loop: uniform
        float d = dist2(p, points[k]);  //~ shape: varying //~ access: points[k]=uniform
        if (d < bd) {  //~ branch: divergent
            bd = d;
            best = k;
        }
    }
    best_idx[q] = best;  //~ access: best_idx[q]=store:contiguous
    best_d2[q] = bd;  //~ access: best_d2[q]=store:contiguous
}
