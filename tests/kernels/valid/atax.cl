// atax.cl - PolyBench ATAX: y = A^T * (A * x), in two kernels.
//   atax_ax:  tmp[i] = sum_j A[i][j] * x[j]      one work-item per row i
//   atax_aty: y[j]   = sum_i A[i][j] * tmp[i]    one work-item per column j
//
// Launch: 1-D. atax_ax with global = round_up(nx), atax_aty with
//   global = round_up(ny); extra items return. Run atax_ax first.
// Arguments: A is an nx x ny row-major float matrix, x has ny elements,
//   tmp has nx, y has ny.
//
// In atax_ax consecutive items read A with a stride of ny floats (a gather
// or strided load); in atax_aty the reads of A are contiguous.

__kernel void atax_ax(__global const float *A, __global const float *x,
                      __global float *tmp, int nx, int ny)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= nx)  //~ branch: divergent
        return;
    float sum = 0.0f;  //~ shape: varying
    for (int j = 0; j < ny; j++)  //~ shape: uniform //~ loop: uniform
        sum += A[i * ny + j] * x[j];  //~ access: A[i * ny + j]=gather, x[j]=uniform //~ warning[L0202]
    tmp[i] = sum;  //~ access: tmp[i]=store:contiguous
}

__kernel void atax_aty(__global const float *A, __global const float *tmp,
                       __global float *y, int nx, int ny)
{
    int j = get_global_id(0);  //~ shape: contiguous
    if (j >= ny)  //~ branch: divergent
        return;
    float sum = 0.0f;
    for (int i = 0; i < nx; i++)  //~ shape: uniform //~ loop: uniform
        sum += A[i * ny + j] * tmp[i];  //~ access: A[i * ny + j]=contiguous, tmp[i]=uniform
    y[j] = sum;  //~ access: y[j]=store:contiguous
}
