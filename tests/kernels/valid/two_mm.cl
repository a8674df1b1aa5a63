// two_mm.cl - PolyBench 2MM: D = alpha * A * B * C + beta * D, as two
// matrix products run one after the other:
//   mm2_tmp:   tmp = alpha * A * B        (tmp is ni x nj)
//   mm2_final: D   = tmp * C + beta * D   (D is ni x nl)
//
// Launch: 2-D NDRange for each kernel, dimension 0 over columns, dimension 1
//   over rows: global = (round_up(nj), round_up(ni)) for mm2_tmp and
//   (round_up(nl), round_up(ni)) for mm2_final. Items outside return.
// Arguments: row-major float matrices A (ni x nk), B (nk x nj), C (nj x nl),
//   tmp (ni x nj), D (ni x nl); all sizes >= 1. Run mm2_tmp to completion
//   before mm2_final.

__kernel void mm2_tmp(int ni, int nj, int nk, float alpha,
                      __global float *tmp,
                      __global const float *A,
                      __global const float *B)
{
    int j = get_global_id(0);  //~ shape: contiguous
    int i = get_global_id(1);  //~ shape: uniform
    if (i < ni && j < nj) {
        float sum = 0.0f;  //~ shape: varying
        for (int k = 0; k < nk; ++k)  //~ shape: uniform //~ loop: uniform
            sum += alpha * A[i * nk + k] * B[k * nj + j];  //~ access: A[i * nk + k]=uniform, B[k * nj + j]=contiguous
        tmp[i * nj + j] = sum;  //~ access: tmp[i * nj + j]=store:contiguous
    }
}

__kernel void mm2_final(int ni, int nj, int nl, float beta,
                        __global const float *tmp,
                        __global const float *C,
                        __global float *D)
{
    int l = get_global_id(0);  //~ shape: contiguous
    int i = get_global_id(1);  //~ shape: uniform
    if (i < ni && l < nl) {
        float sum = D[i * nl + l] * beta;  //~ shape: varying //~ access: D[i * nl + l]=load:contiguous
        for (int j = 0; j < nj; ++j)  //~ shape: uniform //~ loop: uniform
            sum += tmp[i * nj + j] * C[j * nl + l];  //~ access: tmp[i * nj + j]=uniform, C[j * nl + l]=contiguous
        D[i * nl + l] = sum;  //~ access: D[i * nl + l]=store:contiguous
    }
}
