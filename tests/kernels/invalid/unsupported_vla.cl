// L0914: variable-length arrays are not supported (OpenCL C forbids them):
// an array sized by a kernel argument and one sized by a local variable.
// The declarations are reported; indexing them is not.
//
// Launch: 1-D, global = round_up(n); 1 <= m <= 16.

__kernel void window_sum(__global const float *in, __global float *out, int n, int m)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float window[m];                                //~ error[L0914]
    int len = 4;
    float extra[len];                               //~ error[L0914]
    float s = 0.0f;
    for (int k = 0; k < m; k++) {
        window[k] = in[min(i + k, n - 1)];
        s += window[k];
    }
    for (int k = 0; k < len; k++) {
        extra[k] = s;
        s += extra[k] * 0.0f;
    }
    out[i] = s;
}
