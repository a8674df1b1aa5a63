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
    int i = get_global_id(0);
    if (i >= n)
        return;

    int half_width = binomial_count / 2;
    float acc = 0.0f;
    for (int k = 0; k < binomial_count; k++) {
        int j = clamp(i + k - half_width, 0, n - 1);
        acc += binomial_taps[k] * in[j];
    }
    out[i] = acc;
}

__kernel void poly_eval(__global const float *x, __global float *y,
                        __constant float *coeffs, int degree, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    float xi = x[i];
    float acc = coeffs[0];
    for (int k = 1; k <= degree; k++)
        acc = acc * xi + coeffs[k];
    y[i] = acc;
}

// 4-bit gamma curve: the table index is the (varying) high nibble.
__kernel void gamma_lut(__global const uchar *in, __global uchar *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = gamma_table[in[i] >> 4];
}
