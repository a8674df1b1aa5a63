// black_scholes.cl - European option pricing with the Black-Scholes formula;
// the cumulative normal distribution uses the Abramowitz-Stegun polynomial.
//
// Launch: 1-D, one work-item per option: global = round_up(n); ids >= n
//   return.
// Arguments: S (spot), X (strike), T (years to expiry) have n floats each,
//   all > 0; call and put receive n prices; R is the riskless rate and V
//   the volatility (> 0).

#define RSQRT_2PI 0.39894228040143267794f

// Cumulative normal distribution function; the branch on the sign of d is
// divergent.
float cnd(float d)
{
    const float a1 = 0.31938153f;
    const float a2 = -0.356563782f;
    const float a3 = 1.781477937f;
    const float a4 = -1.821255978f;
    const float a5 = 1.330274429f;

    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
    float c = RSQRT_2PI * exp(-0.5f * d * d) * poly;
    if (d > 0.0f)
        c = 1.0f - c;
    return c;
}

__kernel void black_scholes(__global float *call, __global float *put,
                            __global const float *S, __global const float *X,
                            __global const float *T, float R, float V, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    float s = S[i];
    float x = X[i];
    float t = T[i];
    float sqrt_t = sqrt(t);
    float d1 = (log(s / x) + (R + 0.5f * V * V) * t) / (V * sqrt_t);
    float d2 = d1 - V * sqrt_t;
    float cnd_d1 = cnd(d1);
    float cnd_d2 = cnd(d2);
    float exp_rt = exp(-R * t);

    call[i] = s * cnd_d1 - x * exp_rt * cnd_d2;
    put[i] = x * exp_rt * (1.0f - cnd_d2) - s * (1.0f - cnd_d1);
}
