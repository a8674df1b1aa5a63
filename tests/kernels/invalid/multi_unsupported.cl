// Unsupported features mixed with ordinary errors: the kernels use
// unsupported features (and a supported `__local` parameter), and the
// ordinary errors next to them are still reported (an unsupported feature
// does not stop the checks).

__kernel void with_barrier(__global float *x)
{
    int i = get_global_id(0);
    x[i] = 1.0f;
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE);        //~ error[L0901]
    x[i] += y;                                      //~ error[L0003]
}

__kernel void with_local(__global float *x,
                         __local float *tmp)
{
    int l = get_local_id(0);
    tmp[l] = x[get_global_id(0)];
    float4 w = (float4)(tmp[l]) + (float2)(1.0f);   //~ error[L0004]
    x[get_global_id(0)] = w.x;
}

__kernel void with_printf(__global const int *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        printf("%d\n", x[i]);
    n = i;
    const int m = n;
    m = 2;                                          //~ error[L0008]
}

__kernel void with_goto(__global int *x, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        goto out;                                   //~ error[L0907]
    x[i] = 0;
out:                                                //~ error[L0907]
    x[i] += 1;
}
