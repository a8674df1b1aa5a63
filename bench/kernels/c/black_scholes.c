/* Black-Scholes European options as plain C (libm expf/logf/sqrtf), options
 * i in [lo, hi). */
#include <math.h>

#define RSQRT_2PI 0.39894228040143267794f

static float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
    const float a4 = -1.821255978f, a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
    float c = RSQRT_2PI * expf(-0.5f * d * d) * poly;
    return d > 0.0f ? 1.0f - c : c;
}

void black_scholes(float *call, float *put, const float *S, const float *X, const float *T,
                   float R, float V, int n, int lo, int hi)
{
    if (hi > n)
        hi = n;
    for (int i = lo; i < hi; i++) {
        float s = S[i], x = X[i], t = T[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (R + 0.5f * V * V) * t) / (V * sqrt_t);
        float d2 = d1 - V * sqrt_t;
        float cnd_d1 = cnd(d1), cnd_d2 = cnd(d2);
        float exp_rt = expf(-R * t);
        call[i] = s * cnd_d1 - x * exp_rt * cnd_d2;
        put[i] = x * exp_rt * (1.0f - cnd_d2) - s * (1.0f - cnd_d1);
    }
}
