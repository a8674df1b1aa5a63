// Half-typed code: the closing brace of the first kernel is missing and the
// next kernel follows. A kernel definition cannot start inside a function
// body, so the parser closes the open blocks at `__kernel`; the missing `}`
// is reported like a missing `;`, at the end of the token before it (the
// `}` of the if). The kernels after it are parsed and checked normally.

__kernel void first(__global float *a, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        a[i] = 0.0f;
    }                                               //~ error[L0001]

__kernel void second(__global float *b, int n)
{
    int j = get_global_id(0);
    if (j < n)
        b[j] = bogus;                               //~ error[L0003]
}

__kernel void third(__global float *c)
{
    c[get_global_id(0)] = 1.0f                      //~ error[L0001]
}
