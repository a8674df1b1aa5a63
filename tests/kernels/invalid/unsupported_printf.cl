// L0905: printf is not supported yet. Otherwise valid OpenCL C; the format
// string is part of the printf call and not reported as a string literal.
//
// Launch: 1-D, global = round_up(n).

__kernel void debug_print(__global const float *x, int n)
{
    int i = get_global_id(0);
    if (i < n && x[i] < 0.0f)
        printf("x[%d] = %f is negative\n", i, x[i]);        //~ error[L0905]
}
