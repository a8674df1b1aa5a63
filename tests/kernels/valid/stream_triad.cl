// stream_triad.cl - the four STREAM bandwidth kernels (McCalpin):
//   copy:  c = a          scale: b = q * c
//   add:   c = a + b      triad: a = b + q * c
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: a, b, c have n floats; q is the scalar.

__kernel void stream_copy(__global const float *a, __global float *c, int n)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i];
}

__kernel void stream_scale(__global float *b, __global const float *c, float q, int n)
{
    int i = get_global_id(0);
    if (i < n)
        b[i] = q * c[i];
}

__kernel void stream_add(__global const float *a, __global const float *b,
                         __global float *c, int n)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

__kernel void stream_triad(__global float *a, __global const float *b,
                           __global const float *c, float q, int n)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + q * c[i];
}
