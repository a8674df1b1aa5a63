// matrix_transpose.cl - out-of-place transpose of a rows x cols matrix,
// without local memory: the reads are contiguous along dimension 0 and the
// writes strided by rows (a scatter across the SIMD group).
//
// Launch: 2-D NDRange, dimension 0 over columns c, dimension 1 over rows r:
//   global = (round_up(cols), round_up(rows)); items outside return.
// Arguments: in is rows x cols row-major, out is cols x rows row-major.

__kernel void transpose(__global const float *in, __global float *out,
                        int rows, int cols)
{
    int c = get_global_id(0);  //~ shape: contiguous
    int r = get_global_id(1);  //~ shape: uniform
    if (c < cols && r < rows)
        out[c * rows + r] = in[r * cols + c];  //~ access: out[c * rows + r]=scatter, in[r * cols + c]=contiguous //~ warning[L0203]
}

// The same with uint elements and the work-item-to-element mapping swapped
// (contiguous writes, strided reads).
__kernel void transpose_write_major(__global const uint *in, __global uint *out,
                                    int rows, int cols)
{
    int r = get_global_id(0);   // row of the input == column of the output  //~ shape: contiguous
    int c = get_global_id(1);  //~ shape: uniform
    if (r >= rows || c >= cols)
        return;
    out[c * rows + r] = in[r * cols + c];  //~ access: out[c * rows + r]=contiguous, in[r * cols + c]=gather //~ warning[L0202]
}
