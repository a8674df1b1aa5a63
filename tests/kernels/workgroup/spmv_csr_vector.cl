/*
 * spmv_csr_vector.cl - sparse matrix-vector product y = A x with A in CSR
 * form, SHOC's "vector" kernel: a vector of VECTOR_SIZE consecutive
 * work-items handles one row, each summing a strided part of the row's
 * non-zeros; the partial sums are reduced in __local memory (with a
 * barrier per step, as OpenCL requires; SHOC relies on lock-step warps).
 *
 * Launch: 1-D, global = round_up(rows * VECTOR_SIZE, L), local = L, a
 *   multiple of VECTOR_SIZE (a power of two, 16 by default).
 * Arguments: rowDelimiters has rows + 1 non-decreasing ints starting at 0,
 *   cols has rowDelimiters[rows] ints in [0, length of vec), val the same
 *   number of floats; out has rows floats; partial is L floats of __local
 *   memory.
 */

#ifndef VECTOR_SIZE
#define VECTOR_SIZE 16
#endif

// run: spmv_csr_vector_kernel --global 4096 --local 128 --arg val=random:256 --arg vec=random:256 --arg cols=random:256:0:256 --arg rowDelimiters=iota:257 --arg dim=256 --arg out=zeros:256 --arg partial=local:512
// run: spmv_csr_vector_kernel --global 4096 --local 64 --arg val=random:256 --arg vec=random:256 --arg cols=random:256:0:256 --arg rowDelimiters=iota:257 --arg dim=256 --arg out=zeros:256 --arg partial=local:256
// run: spmv_csr_vector_kernel --global 400 --local 16 -D VECTOR_SIZE=4 --arg val=random:100 --arg vec=random:100 --arg cols=random:100:0:100 --arg rowDelimiters=iota:101 --arg dim=100 --arg out=zeros:100 --arg partial=local:64
__kernel void spmv_csr_vector_kernel(__global const float *val,
                                     __global const float *vec,
                                     __global const int *cols,
                                     __global const int *rowDelimiters,
                                     const int dim, __global float *out,
                                     __local volatile float *partial)
{
    int t = get_local_id(0);  //~ shape: contiguous
    int vecsPerGroup = get_local_size(0) / VECTOR_SIZE;
    int id = t & (VECTOR_SIZE - 1);  //~ shape: contiguous
    int localVec = get_local_id(0) / VECTOR_SIZE;  //~ shape: uniform
    int myRow = get_group_id(0) * vecsPerGroup + localVec;  //~ shape: uniform

    float mySum = 0.0f;
    if (myRow < dim) {  //~ branch: uniform
        int rowStart = rowDelimiters[myRow];  //~ access: rowDelimiters[myRow]=uniform
        int rowEnd = rowDelimiters[myRow + 1];
        for (int j = rowStart + id; j < rowEnd; j += VECTOR_SIZE) {  //~ loop: divergent //~ warning[L0201]
            int col = cols[j];  //~ access: cols[j]=contiguous
            mySum += val[j] * vec[col];  //~ access: vec[col]=gather //~ warning[L0202]
        }
    }
    partial[t] = mySum;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int s = VECTOR_SIZE / 2; s > 0; s >>= 1) {  //~ loop: uniform
        if (id < s)  //~ branch: divergent
            partial[t] += partial[t + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (id == 0 && myRow < dim)
        out[myRow] = partial[t];
}
