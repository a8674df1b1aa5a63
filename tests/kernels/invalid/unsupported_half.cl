// L0906: half arithmetic is not supported yet. Every place the `half` type
// is written (a declaration, a cast) is reported; uses of the variable are
// not reported again. Otherwise valid OpenCL C with cl_khr_fp16.
//
// Launch: 1-D, global = round_up(n).

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void through_half(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    half h = in[i];                                 //~ error[L0906]
    float r = (float)(half)(in[i] * 0.5f);          //~ error[L0906]
    out[i] = h * 2.0f + r;
}

// Pointers to half are storage and accepted; reading one `half` directly
// is half arithmetic.
__kernel void load_half(__global const half *p, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = vload_half(i, p) + p[i];               //~ error[L0906]
}
