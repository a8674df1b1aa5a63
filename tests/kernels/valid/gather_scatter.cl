// gather_scatter.cl - indirect accesses through index arrays.
//   gather:      out[i] = in[idx[i]]
//   scatter:     out[idx[i]] = in[i]      (idx must be a permutation)
//   gather_rows: copies whole rows selected by an index (a uniform loop
//                whose loads are contiguous runs starting at a gathered base)
//
// Launch: 1-D. gather, scatter: global = round_up(n); ids >= n return.
//   gather_rows: global = round_up(nsel); ids >= nsel return.
// Arguments: gather: idx has n ints in [0, len(in)). scatter: idx is a
//   permutation of 0 .. n-1, in and out have n floats. gather_rows: src is
//   nrows x cols, rows has nsel ints in [0, nrows), dst is nsel x cols.

__kernel void gather(__global const float *in, __global const int *idx,
                     __global float *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        out[i] = in[idx[i]];  //~ access: out[i]=store:contiguous, idx[i]=contiguous, in[idx[i]]=gather //~ warning[L0202]
}

__kernel void scatter(__global const float *in, __global const int *idx,
                      __global float *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        out[idx[i]] = in[i];  //~ access: out[idx[i]]=scatter, idx[i]=contiguous, in[i]=contiguous //~ warning[L0203]
}

__kernel void gather_rows(__global const float *src, __global const int *rows,
                          __global float *dst, int nsel, int cols)
{
    int s = get_global_id(0);  //~ shape: contiguous
    if (s >= nsel)  //~ branch: divergent
        return;

    __global const float *from = src + rows[s] * cols;  //~ shape: varying //~ access: rows[s]=contiguous
    __global float *to = dst + s * cols;  //~ shape: varying
    for (int c = 0; c < cols; c++)  //~ shape: uniform //~ loop: uniform
        to[c] = from[c];  //~ access: to[c]=scatter, from[c]=gather //~ warning[L0203] warning[L0202]
}
