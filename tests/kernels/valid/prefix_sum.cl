// prefix_sum.cl - per-item prefix sums without local memory.
//   row_prefix_sum:     item r computes the inclusive prefix sum of row r of
//                       a rows x row_len matrix (a uniform loop, strided
//                       accesses across the SIMD group).
//   segment_prefix_sum: item s computes the exclusive prefix sum of segment
//                       s of a CSR-style segmented array (a divergent loop:
//                       segment lengths differ).
//
// Launch: 1-D. row_prefix_sum: global = round_up(rows); ids >= rows return.
//   segment_prefix_sum: global = round_up(nsegs); ids >= nsegs return.
// Arguments: row_prefix_sum: in and out have rows * row_len floats.
//   segment_prefix_sum: offsets has nsegs + 1 non-decreasing entries with
//   offsets[0] >= 0 and offsets[nsegs] <= the length of values and out.
//   uint sums wrap around (no undefined behaviour for any input).

__kernel void row_prefix_sum(__global const float *in, __global float *out,
                             int rows, int row_len)
{
    int r = get_global_id(0);  //~ shape: contiguous
    if (r >= rows)  //~ branch: divergent
        return;

    int base = r * row_len;  //~ shape: varying
    float acc = 0.0f;  //~ shape: varying
    for (int j = 0; j < row_len; j++) {  //~ shape: uniform //~ loop: uniform
        acc += in[base + j];  //~ access: in[base + j]=gather //~ warning[L0202]
        out[base + j] = acc;  //~ access: out[base + j]=scatter //~ warning[L0203]
    }
}

__kernel void segment_prefix_sum(__global const uint *values, __global uint *out,
                                 __global const int *offsets, int nsegs)
{
    int s = get_global_id(0);  //~ shape: contiguous
    if (s >= nsegs)  //~ branch: divergent
        return;

    int begin = offsets[s];  //~ shape: varying //~ access: offsets[s]=contiguous
    int end = offsets[s + 1];  //~ shape: varying //~ access: offsets[s + 1]=contiguous
    uint acc = 0;  //~ shape: varying
    for (int k = begin; k < end; k++) {  //~ shape: varying //~ loop: divergent //~ warning[L0201]
        uint v = values[k];  //~ shape: varying //~ access: values[k]=gather //~ warning[L0202]
        out[k] = acc;  //~ access: out[k]=scatter //~ warning[L0203]
        acc += v;
    }
}
