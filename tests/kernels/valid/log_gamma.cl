// log_gamma.cl - lgamma and lgamma_r (the sign of gamma through a pointer),
// as statistics kernels (log-likelihoods of Poisson and binomial counts)
// use them. Code generation has no lgamma yet: `lanes build` refuses the
// kernel at the call; `lanes check` and `lanes run --interpret` work.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: x has n floats, out n floats, sign n ints.

__kernel void log_gamma(__global const float *x, __global float *out,
                        __global int *sign, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = lgamma_r(x[i] * 4.0f, &sign[i]) + lgamma(x[i] + 3.0f);
}
