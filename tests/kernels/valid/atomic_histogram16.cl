// The OpenCL 1.1 atomic built-ins atomic_add and atomic_inc on
// volatile __global ints: a 16-bin histogram and a count of zeros.
//
// Launch: 1-D, global = round_up(n); hist has 16 ints, count has 1.

__kernel void histogram16(__global const uint *in, volatile __global int *hist,
                          volatile __global int *count, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    uint bin = in[i] & 15u;
    atomic_add(&hist[bin], 1);  //~ warning[L0209]
    if (in[i] == 0u)
        atomic_inc(count);  //~ warning[L0208]
}
