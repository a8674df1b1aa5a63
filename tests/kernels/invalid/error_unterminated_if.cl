// L0012: an #ifdef that is never closed; reported on the #ifdef line.
// USE_FAST_PATH is not defined, so the kernel after it is skipped.

__kernel void slow_path(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] *= 2.0f;
}

#ifdef USE_FAST_PATH
//~^ error[L0012]
__kernel void fast_path(__global float4 *x, int n4)
{
    int i = get_global_id(0);
    if (i < n4)
        x[i] *= 2.0f;
}
