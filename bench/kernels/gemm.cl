// gemm.cl - PolyBench GEMM: C = alpha * A * B + beta * C.
//
// Launch: 2-D NDRange. Dimension 0 runs over the columns j of C, dimension 1
//   over the rows i. global = (round_up(nj, L0), round_up(ni, L1)) for any
//   local size (L0, L1); items outside the ni x nj result return at once.
// Arguments: A is ni x nk, B is nk x nj, C is ni x nj, all row-major float
//   matrices; ni, nj, nk >= 1.
//
// Within a SIMD group (consecutive j) the loop over k is uniform, A[i*nk + k]
// is a uniform load and B[k*nj + j] a contiguous one.

__kernel void gemm(int ni, int nj, int nk, float alpha, float beta,
                   __global float *C,
                   __global const float *A,
                   __global const float *B)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= ni || j >= nj)
        return;

    float acc = 0.0f;
    for (int k = 0; k < nk; k++)
        acc += A[i * nk + k] * B[k * nj + j];

    C[i * nj + j] = beta * C[i * nj + j] + alpha * acc;
}
