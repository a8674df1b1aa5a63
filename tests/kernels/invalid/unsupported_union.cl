// L0911: unions are not supported yet. The union definition is reported;
// declarations and member accesses that use it are not reported again.
// Otherwise valid OpenCL C (use as_uint instead).
//
// Launch: 1-D, global = round_up(n).

typedef union {                                     //~ error[L0911]
    float f;
    uint u;
} FloatBits;

__kernel void float_bits(__global const float *in, __global uint *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    FloatBits b;
    b.f = in[i];
    out[i] = b.u;
}
