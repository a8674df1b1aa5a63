// stream_triad.cl - the four STREAM bandwidth kernels (McCalpin):
//   copy:  c = a          scale: b = q * c
//   add:   c = a + b      triad: a = b + q * c
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: a, b, c have n floats; q is the scalar.

__kernel void stream_copy(__global const float *a, __global float *c, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        c[i] = a[i];  //~ access: c[i]=store:contiguous, a[i]=contiguous
}

__kernel void stream_scale(__global float *b, __global const float *c, float q, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        b[i] = q * c[i];  //~ access: b[i]=store:contiguous, c[i]=contiguous
}

__kernel void stream_add(__global const float *a, __global const float *b,
                         __global float *c, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        c[i] = a[i] + b[i];  //~ access: c[i]=store:contiguous, a[i]=contiguous, b[i]=contiguous
}

__kernel void stream_triad(__global float *a, __global const float *b,
                           __global const float *c, float q, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        a[i] = b[i] + q * c[i];  //~ access: a[i]=store:contiguous, b[i]=contiguous, c[i]=contiguous
}
