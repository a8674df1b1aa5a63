// L0019: return statements that do not match the function: a value
// returned from a void helper and from a kernel, no value returned from an
// int helper.

void store(__global float *x, int i)
{
    x[i] = 0.0f;
    return 1;                       //~ error[L0019]
}

int index_of(__global const float *x, int n, float v)
{
    for (int k = 0; k < n; k++)
        if (x[k] == v)
            return k;
    return;                         //~ error[L0019]
}

__kernel void search(__global float *x, __global int *pos, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return 0;                   //~ error[L0019]
    pos[i] = index_of(x, n, x[i]);
    store(x, i);
}
