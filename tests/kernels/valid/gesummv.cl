// gesummv.cl - PolyBench GESUMMV: y = alpha * A * x + beta * B * x.
//
// Launch: 1-D, one work-item per row: global = round_up(n); ids >= n return.
// Arguments: A and B are n x n row-major float matrices, x has n elements,
//   tmp and y have n elements (tmp receives A * x).

__kernel void gesummv(__global const float *A, __global const float *B,
                      __global const float *x, __global float *y,
                      __global float *tmp, float alpha, float beta, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float t = 0.0f;  //~ shape: varying
    float u = 0.0f;
    for (int j = 0; j < n; j++) {  //~ shape: uniform //~ loop: uniform
        float xj = x[j];  //~ shape: uniform //~ access: x[j]=uniform
        t = fma(A[i * n + j], xj, t);  //~ access: A[i * n + j]=gather //~ warning[L0202]
        u = fma(B[i * n + j], xj, u);  //~ access: B[i * n + j]=gather //~ warning[L0202]
    }
    tmp[i] = t;  //~ access: tmp[i]=store:contiguous
    y[i] = alpha * t + beta * u;  //~ access: y[i]=store:contiguous
}
