// constant_memory.cl - __constant memory: a program-scope __constant table
// with an initializer (and its size as a __constant scalar), and a
// __constant pointer kernel argument.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: binomial5: in and out have n floats (n >= 1); reads clamp to
//   the border. poly_eval: x and y have n floats, coeffs has degree + 1
//   floats in __constant memory (highest power first), degree >= 0.
//   gamma_lut: in and out have n uchars.

__constant float binomial_taps[] = { 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f };
__constant int binomial_count = 5;

__constant uchar gamma_table[16] = { 0, 4, 9, 16, 26, 37, 51, 66,
                                     84, 104, 126, 150, 176, 204, 234, 255 };

__kernel void binomial5(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    int half_width = binomial_count / 2;  //~ shape: uniform //~ access: binomial_count=uniform
    float acc = 0.0f;
    for (int k = 0; k < binomial_count; k++) {  //~ shape: uniform //~ loop: uniform
        int j = clamp(i + k - half_width, 0, n - 1);  //~ shape: varying
        acc += binomial_taps[k] * in[j];  //~ access: binomial_taps[k]=uniform, in[j]=gather //~ warning[L0202]
    }
    out[i] = acc;  //~ access: out[i]=store:contiguous
}

__kernel void poly_eval(__global const float *x, __global float *y,
                        __constant float *coeffs, int degree, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;

    float xi = x[i];  //~ shape: varying //~ access: x[i]=contiguous
    float acc = coeffs[0];  //~ access: coeffs[0]=uniform
    for (int k = 1; k <= degree; k++)  //~ shape: uniform //~ loop: uniform
        acc = acc * xi + coeffs[k];  //~ access: coeffs[k]=uniform
    y[i] = acc;  //~ access: y[i]=store:contiguous
}

// 4-bit gamma curve: the table index is the (varying) high nibble.
__kernel void gamma_lut(__global const uchar *in, __global uchar *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;
    out[i] = gamma_table[in[i] >> 4];  //~ access: out[i]=store:contiguous, in[i]=contiguous, gamma_table[in[i] >> 4]=gather //~ warning[L0202]
}
