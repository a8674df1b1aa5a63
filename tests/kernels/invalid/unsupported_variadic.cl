// L0913: variadic functions are not supported (OpenCL C forbids them;
// clang accepts them only with __cl_clang_variadic_functions). The
// definition is reported, calls to it are not.
//
// Launch: 1-D, global = round_up(n).

float first_of(int count, ...)                      //~ error[L0913]
{
    return (float)count;
}

__kernel void call_variadic(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] = first_of(2, x[i], 1.0f);
}
