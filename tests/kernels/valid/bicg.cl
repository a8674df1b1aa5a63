// bicg.cl - PolyBench BiCG sub-kernel of the BiCGStab solver:
//   bicg_q: q = A * p      one work-item per row i      (strided reads of A)
//   bicg_s: s = A^T * r    one work-item per column j   (contiguous reads)
//
// Launch: 1-D. bicg_q with global = round_up(nx), bicg_s with
//   global = round_up(ny); extra items return. The kernels are independent.
// Arguments: A is nx x ny row-major; p has ny elements, q and r have nx,
//   s has ny.

__kernel void bicg_q(__global const float *A, __global const float *p,
                     __global float *q, int nx, int ny)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < nx) {  //~ branch: divergent
        float acc = 0.0f;
        for (int j = 0; j < ny; j++)  //~ shape: uniform //~ loop: uniform
            acc += A[i * ny + j] * p[j];  //~ access: A[i * ny + j]=gather, p[j]=uniform //~ warning[L0202]
        q[i] = acc;  //~ access: q[i]=store:contiguous
    }
}

__kernel void bicg_s(__global const float *A, __global const float *r,
                     __global float *s, int nx, int ny)
{
    int j = get_global_id(0);  //~ shape: contiguous
    if (j < ny) {
        float acc = 0.0f;
        for (int i = 0; i < nx; i++)  //~ shape: uniform //~ loop: uniform
            acc += r[i] * A[i * ny + j];  //~ access: r[i]=uniform, A[i * ny + j]=contiguous
        s[j] = acc;  //~ access: s[j]=store:contiguous
    }
}
