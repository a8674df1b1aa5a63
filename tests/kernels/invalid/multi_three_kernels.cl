// Several independent errors: three kernels, each with a different mistake
// (an undeclared name, a vector type mismatch, a missing semicolon). All
// three are reported; an error in one kernel does not hide the others.

__kernel void uses_undeclared(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] = x[i] * gain;                         //~ error[L0003]
}

__kernel void mixes_vectors(__global float4 *f, __global int4 *k, int n)
{
    int i = get_global_id(0);
    if (i < n)
        f[i] = f[i] * k[i];                         //~ error[L0004]
}

__kernel void forgets_semicolon(__global float *y, int n)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = 0.0f                                 //~ error[L0001]
}
