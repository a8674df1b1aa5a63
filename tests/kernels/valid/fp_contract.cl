// fp_contract.cl - floating-point contraction (OpenCL C's FP_CONTRACT, on by
// default): a multiply feeding an add or subtract of the same expression may
// be computed as one fused multiply-add, rounded once. `product_residual`
// subtracts the product rounded by a statement of its own from the same
// product: fused, that is the exact rounding error of the product; not fused
// (no FMA on the target, or `FP_CONTRACT OFF` as in `residual_off`), 0.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: a, b, r have n floats; x, y, r4 have n float4; da, db, dr have
//   n doubles; m has n * n floats, v and dot have n floats.
// Requires a device with double support (cl_khr_fp64).

__kernel void product_residual(int n, __global const float *a,
                               __global const float *b, __global float *r)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float p = a[i] * b[i];
    r[i] = a[i] * b[i] - p;
}

__kernel void residual_off(int n, __global const float *a,
                           __global const float *b, __global float *r)
{
#pragma OPENCL FP_CONTRACT OFF
    int i = get_global_id(0);
    if (i >= n)
        return;
    float p = a[i] * b[i];
    r[i] = a[i] * b[i] - p;
}

__kernel void residual4(int n, float s, __global const float4 *x,
                        __global const float4 *y, __global float4 *r4)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float4 p = s * x[i] * y[i];
    r4[i] = s * x[i] * y[i] - p;
}

__kernel void residual_double(int n, __global const double *da,
                              __global const double *db, __global double *dr)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    double p = da[i] * db[i];
    dr[i] = -(da[i] * db[i]) + p;
}

__kernel void matrix_vector(int n, __global const float *m,
                            __global const float *v, __global float *dot)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += m[i * n + k] * v[k];  //~ warning[L0202]
    dot[i] = acc;
}
