// macros.cl - the preprocessor: object-like and function-like macros,
// multi-line macros, stringification (#) whose string is discarded when
// checks are compiled out, token pasting (##) building type and kernel
// names, #if/#ifdef/#ifndef/#elif/#else with defined(), #undef, and a
// statement macro wrapped in do { } while (0).
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: every kernel takes arrays of n elements (blur_RADIUS-style
//   kernels read x[i - RADIUS .. i + RADIUS] clamped into [0, n)).
//   Optional -D: RADIUS (default 2), USE_FMA, DEBUG_CHECKS (must stay
//   undefined for lanes: it enables printf).

#ifndef RADIUS
#define RADIUS 2
#endif

#if RADIUS < 1 || RADIUS > 8
#error RADIUS must be between 1 and 8
#endif

#define TAPS (2 * RADIUS + 1)
#define SQUARE(x) ((x) * (x))
#define CLAMP_IDX(i, n) ((i) < 0 ? 0 : ((i) >= (n) ? (n) - 1 : (i)))

#if defined(USE_FMA) && USE_FMA
#define MADD(a, b, c) fma((a), (b), (c))
#elif defined(__OPENCL_VERSION__) && __OPENCL_VERSION__ >= 120
#define MADD(a, b, c) mad((a), (b), (c))
#else
#define MADD(a, b, c) ((a) * (b) + (c))
#endif

#ifdef DEBUG_CHECKS
#define CHECK(cond, msg) \
    do { if (!(cond)) printf("%s\n", msg); } while (0)
#else
#define CHECK(cond, msg) ((void)0)
#endif
#define CHECK_INDEX(i, n) CHECK((i) >= 0 && (i) < (n), #i " out of range")

#define SWAP(T, a, b) \
    do {              \
        T swap_tmp_ = (a); \
        (a) = (b);    \
        (b) = swap_tmp_; \
    } while (0)

#define VEC(T, N) T##N
#define KERNEL_NAME(prefix, T) prefix##_##T

// Generates one scaling kernel per element type.
#define DEFINE_SCALE(T)                                                      \
    __kernel void KERNEL_NAME(scale, T)(__global T *x, T factor, int n)      \
    {                                                                        \
        int i = get_global_id(0);                                            \
        if (i < n)                                                           \
            x[i] = x[i] * factor;                                            \
    }

DEFINE_SCALE(float)  //~ shape: i=contiguous, x=uniform, n=uniform //~ branch: divergent //~ access: DEFINE_SCALE(float)=load:contiguous, DEFINE_SCALE(float)=store:contiguous
DEFINE_SCALE(uint)  //~ shape: i=contiguous, x=uniform //~ branch: divergent //~ access: DEFINE_SCALE(uint)=load:contiguous, DEFINE_SCALE(uint)=store:contiguous
#undef DEFINE_SCALE

__kernel void box_filter(__global const float *x, __global float *y, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;
    CHECK_INDEX(i, n);

    float acc = 0.0f;  //~ shape: varying
    for (int k = -RADIUS; k <= RADIUS; k++)  //~ shape: uniform //~ loop: uniform
        acc = MADD(x[CLAMP_IDX(i + k, n)], 1.0f / TAPS, acc);  //~ branch: divergent //~ warning[L0202]
    y[i] = acc;  //~ access: y[i]=store:contiguous
}

__kernel void sorted_pairs(__global VEC(float, 2) *pairs, __global float *spread, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;

    VEC(float, 2) p = pairs[i];
    float lo = p.x;  //~ shape: varying
    float hi = p.y;
    if (lo > hi)  //~ branch: divergent
        SWAP(float, lo, hi);  //~ shape: varying //~ loop: uniform
    pairs[i] = (VEC(float, 2))(lo, hi);
    spread[i] = SQUARE(hi - lo);  //~ access: spread[i]=store:contiguous
}

#undef SQUARE
#define SQUARE(x) ((x) * (x) * 1)

__kernel void squares(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        out[i] = SQUARE(in[i] & 0x7fff);  //~ access: out[i]=store:contiguous, in[i]=contiguous
}
