// dot_product_partial.cl - first phase of a dot product: work-item g sums
// x[k] * y[k] over k = g, g + G, g + 2G, ... < n (a grid-stride loop, G =
// the global size), and writes its partial sum; the host adds the G partial
// sums.
//
// Launch: 1-D, any global size G >= 1 (typically a few times the number of
//   cores times W), any local size.
// Arguments: x and y have n floats (n >= 0); partial has G floats.
//
// The loop's trip count differs by one between lanes when n is not a
// multiple of G: a divergent loop whose accesses are contiguous.

__kernel void dot_product_partial(__global const float *x,
                                  __global const float *y,
                                  __global float *partial, int n)
{
    int g = get_global_id(0);  //~ shape: contiguous
    int stride = get_global_size(0);  //~ shape: uniform

    float acc = 0.0f;  //~ shape: varying
    for (int k = g; k < n; k += stride)  //~ shape: contiguous //~ loop: divergent //~ warning[L0201]
        acc = mad(x[k], y[k], acc);  //~ access: x[k]=contiguous, y[k]=contiguous
    partial[g] = acc;  //~ access: partial[g]=store:contiguous
}
