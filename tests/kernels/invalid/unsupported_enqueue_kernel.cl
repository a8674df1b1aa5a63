// L0909: device-side enqueue is not supported: enqueue_kernel with a block
// literal. The call is reported once; its arguments (get_default_queue,
// ndrange_1D, the block) are not analysed further. Otherwise valid OpenCL
// C 2.0.
//
// Launch: 1-D, a single work-item (global = 1).

void scale_all(__global float *x, int n)
{
    int i = get_global_id(0);
    if (i < n)
        x[i] *= 2.0f;
}

__kernel void parent(__global float *x, int n)
{
    if (get_global_id(0) == 0)
        enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(n), ^{ scale_all(x, n); }); //~ error[L0909]
}
