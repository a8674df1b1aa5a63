// vector_add_strided.cl - vector additions with non-unit access patterns.
//   vadd_grid_stride: a grid-stride loop (each item handles i, i + G, ...).
//   vadd_strided:     c[i * stride] = a[i * stride] + b[i * stride], with a
//                     uniform stride argument (a strided access).
//   vadd_offset:      reads at i + offset (contiguous, possibly misaligned).
//
// Launch: 1-D. vadd_grid_stride: any global size G >= 1.
//   vadd_strided: global = round_up(count); ids >= count return.
//   vadd_offset: global = round_up(n); ids >= n return.
// Arguments: vadd_grid_stride: a, b, c have n floats. vadd_strided: a, b, c
//   have at least (count - 1) * stride + 1 floats, stride >= 1.
//   vadd_offset: a and b have n + offset floats, c has n, offset >= 0.

__kernel void vadd_grid_stride(__global const float *a, __global const float *b,
                               __global float *c, int n)
{
    for (int i = get_global_id(0); i < n; i += get_global_size(0))  //~ shape: contiguous //~ loop: divergent //~ warning[L0201]
        c[i] = a[i] + b[i];  //~ access: c[i]=store:contiguous, a[i]=contiguous, b[i]=contiguous
}

__kernel void vadd_strided(__global const float *a, __global const float *b,
                           __global float *c, int count, int stride)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= count)  //~ branch: divergent
        return;
    int k = i * stride;  //~ shape: varying
    c[k] = a[k] + b[k];  //~ access: c[k]=scatter, a[k]=gather, b[k]=gather //~ warning[L0203] warning[L0202] warning[L0202]
}

__kernel void vadd_offset(__global const float *a, __global const float *b,
                          __global float *c, int n, int offset)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        c[i] = a[i + offset] + b[i + offset];  //~ access: c[i]=store:contiguous, a[i + offset]=contiguous, b[i + offset]=contiguous
}
