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
    int r = get_global_id(0);  //~ shape: contiguous
    if (r >= rows)  //~ branch: divergent
        return;

    __global const float *row = m + r * cols;  //~ shape: varying
    float s = 0.0f;  //~ shape: varying
    for (int c = 0; c < cols; c++)  //~ shape: uniform //~ loop: uniform
        s += row[c];  //~ access: row[c]=gather //~ warning[L0202]
    sums[r] = s;  //~ access: sums[r]=store:contiguous
}

__kernel void row_max(__global const float *m, __global float *maxes,
                      __global int *argmax, int rows, int cols)
{
    int r = get_global_id(0);  //~ shape: contiguous
    if (r >= rows)  //~ branch: divergent
        return;

    float best = m[r * cols];  //~ shape: varying //~ access: m[r * cols]=gather //~ warning[L0202]
    int best_c = 0;  //~ shape: varying
    for (int c = 1; c < cols; c++) {  //~ shape: uniform //~ loop: uniform
        float v = m[r * cols + c];  //~ shape: varying //~ access: m[r * cols + c]=gather //~ warning[L0202]
        if (v > best) {  //~ branch: divergent
            best = v;
            best_c = c;
        }
    }
    maxes[r] = best;  //~ access: maxes[r]=store:contiguous
    argmax[r] = best_c;  //~ access: argmax[r]=store:contiguous
}
