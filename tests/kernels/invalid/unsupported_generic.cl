// L0919: the generic address space (OpenCL C 2.0) is not supported. The
// __generic pointer parameter is reported; passing __global and __private
// pointers to it is not. Otherwise valid OpenCL C 2.0.
//
// Launch: 1-D, global = round_up(n); x has 2 * n floats, out has n.

float sum2(__generic const float *p)                //~ error[L0919]
{
    return p[0] + p[1];
}

__kernel void generic_sum(__global const float *x, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float pair[2] = { x[i], 1.0f };
    out[i] = sum2(x + 2 * i) + sum2(pair);
}
