// spmv_csr.cl - sparse matrix times dense vector, y = A x, with A in CSR
// format; one work-item per row (the "scalar" CSR kernel).
//
// Launch: 1-D, global = round_up(nrows); ids >= nrows return.
// Arguments: row_ptr has nrows + 1 non-decreasing ints starting at 0;
//   col_idx and vals have row_ptr[nrows] entries with 0 <= col_idx[k] <
//   ncols; x has ncols floats, y has nrows floats.
//
// The inner loop's trip count is the row length (divergent); vals[k] and
// col_idx[k] are strided/gathered, x[col_idx[k]] is a gather.

__kernel void spmv_csr(int nrows, __global const int *row_ptr,
                       __global const int *col_idx, __global const float *vals,
                       __global const float *x, __global float *y)
{
    int row = get_global_id(0);
    if (row >= nrows)
        return;

    int begin = row_ptr[row];
    int end = row_ptr[row + 1];
    float dot = 0.0f;
    for (int k = begin; k < end; k++)
        dot += vals[k] * x[col_idx[k]];
    y[row] = dot;
}
