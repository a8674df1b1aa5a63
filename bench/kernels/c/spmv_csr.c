/* CSR sparse matrix times vector as plain C, rows in [lo, hi). */
void spmv_csr(int nrows, const int *row_ptr, const int *col_idx, const float *vals,
              const float *x, float *y, int lo, int hi)
{
    if (hi > nrows)
        hi = nrows;
    for (int row = lo; row < hi; row++) {
        float dot = 0.0f;
        for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++)
            dot += vals[k] * x[col_idx[k]];
        y[row] = dot;
    }
}
