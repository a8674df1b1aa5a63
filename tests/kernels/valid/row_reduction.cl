// row_reduction.cl - histogram-free reductions, one row per work-item.
//   row_sum: sums[r] = sum of row r of a rows x cols matrix.
//   row_max: maxes[r] = largest element of row r and argmax[r] its column
//            (the first one on ties).
//
// Launch: 1-D, global = round_up(rows); ids >= rows return.
// Arguments: m is a rows x cols row-major float matrix with cols >= 1;
//   sums, maxes and argmax have rows elements.
//
// The loops are uniform; m[r * cols + c] is strided by cols across a SIMD
// group.

__kernel void row_sum(__global const float *m, __global float *sums,
                      int rows, int cols)
{
    int r = get_global_id(0);
    if (r >= rows)
        return;

    __global const float *row = m + r * cols;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += row[c];
    sums[r] = s;
}

__kernel void row_max(__global const float *m, __global float *maxes,
                      __global int *argmax, int rows, int cols)
{
    int r = get_global_id(0);
    if (r >= rows)
        return;

    float best = m[r * cols];
    int best_c = 0;
    for (int c = 1; c < cols; c++) {
        float v = m[r * cols + c];
        if (v > best) {
            best = v;
            best_c = c;
        }
    }
    maxes[r] = best;
    argmax[r] = best_c;
}
