// stream_triad.cl - the STREAM triad (McCalpin): a = b + q * c.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: a, b, c have n floats; q is the scalar.

__kernel void stream_triad(__global float *a, __global const float *b,
                           __global const float *c, float q, int n)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + q * c[i];
}
