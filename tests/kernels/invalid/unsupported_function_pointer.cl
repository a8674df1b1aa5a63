// L0908: function pointers are not supported (OpenCL C forbids them; clang
// accepts them only with its __cl_clang_function_pointers extension). The
// declaration of the pointer is reported, its call is not.
//
// Launch: 1-D, global = round_up(n).

float twice(float v)
{
    return 2.0f * v;
}

float halve(float v)
{
    return 0.5f * v;
}

__kernel void apply(__global float *x, int n, int which)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float (*fn)(float) = which ? twice : halve;     //~ error[L0908]
    x[i] = fn(x[i]);
}
