// early_exit.cl - early exits: a loop with a data-dependent break, a helper
// with an early return from inside its loop, and an early return from the
// kernel on a data-dependent condition.
//
// Launch: 1-D, one work-item per row: global = round_up(rows); ids >= rows
//   return.
// Arguments: m is a rows x cols row-major float matrix (cols >= 0); first
//   has rows ints; prefix has rows floats; count has rows ints.

// The column of the first negative entry of a row, or -1.
int first_negative(__global const float *row, int cols)  //~ shape: row=varying, cols=uniform
{
    for (int c = 0; c < cols; c++) {  //~ loop: divergent //~ warning[L0201]
        if (row[c] < 0.0f)  //~ access: row[c]=gather //~ warning[L0202]
            return c;
    }
    return -1;
}

__kernel void first_negative_per_row(__global const float *m, __global int *first,
                                     int rows, int cols)
{
    int r = get_global_id(0);  //~ shape: contiguous
    if (r >= rows)  //~ branch: divergent
        return;
    first[r] = first_negative(m + r * cols, cols);  //~ access: first[r]=store:contiguous
}

// Sums the row until the running sum exceeds limit; stores the sum and the
// number of entries used.
__kernel void accumulate_until(__global const float *m, __global float *prefix,
                               __global int *count, int rows, int cols, float limit)
{
    int r = get_global_id(0);  //~ shape: contiguous
    if (r >= rows)
        return;

    float s = 0.0f;  //~ shape: varying
    int used = 0;  //~ shape: varying
    for (int c = 0; c < cols; c++) {  //~ shape: uniform //~ loop: divergent //~ warning[L0201]
        s += m[r * cols + c];  //~ access: m[r * cols + c]=gather //~ warning[L0202]
        used++;
        if (s > limit)
            break;
    }
    prefix[r] = s;  //~ access: prefix[r]=store:contiguous
    count[r] = used;  //~ access: count[r]=store:contiguous
}

// Rows whose first entry is NaN are left untouched (a data-dependent early
// return); the others are normalised by their first entry.
__kernel void normalise_rows(__global float *m, int rows, int cols)
{
    int r = get_global_id(0);  //~ shape: contiguous
    if (r >= rows || cols == 0)
        return;

    float pivot = m[r * cols];  //~ shape: varying //~ access: m[r * cols]=gather //~ warning[L0202]
    if (isnan(pivot) || pivot == 0.0f)  //~ branch: divergent
        return;

    float inv = 1.0f / pivot;  //~ shape: varying
    for (int c = 0; c < cols; c++)  //~ shape: uniform //~ loop: uniform
        m[r * cols + c] *= inv;  //~ access: m[r * cols + c]=load:gather, m[r * cols + c]=store:scatter //~ warning[L0202] warning[L0203]
}
