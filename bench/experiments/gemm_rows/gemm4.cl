// gemm4.cl - bench/kernels/gemm.cl with a register block of four rows per
// work-item, written by hand (ni a multiple of 4): what a body running four
// rows of a work-group would compute. Each C element's sum is in the same
// order as gemm.cl's, so the results are bit-identical. Launch: global =
// (nj, ni / 4), local (64, 1). See gemm_rows.c.
__kernel void gemm4(int ni, int nj, int nk, float alpha, float beta,
                    __global float *C, __global const float *A, __global const float *B)
{
    int j = get_global_id(0);
    int i = 4 * get_global_id(1);
    if (i >= ni || j >= nj)
        return;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (int k = 0; k < nk; k++) {
        float b = B[k * nj + j];
        a0 += A[i * nk + k] * b;
        a1 += A[(i + 1) * nk + k] * b;
        a2 += A[(i + 2) * nk + k] * b;
        a3 += A[(i + 3) * nk + k] * b;
    }
    C[i * nj + j] = beta * C[i * nj + j] + alpha * a0;
    C[(i + 1) * nj + j] = beta * C[(i + 1) * nj + j] + alpha * a1;
    C[(i + 2) * nj + j] = beta * C[(i + 2) * nj + j] + alpha * a2;
    C[(i + 3) * nj + j] = beta * C[(i + 3) * nj + j] + alpha * a3;
}
