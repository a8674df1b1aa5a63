// union_float_bits.cl - float/int bit tricks through a union, as kernels
// ported from C write them: the exponent of each float read through the
// integer member, a fast inverse square root that writes the integer member
// and reads the float one, and a union initialized from a brace list.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: in, rsq and expo have n elements; in holds positive normal floats.

typedef union {
    float f;
    uint u;
    uchar bytes[4];
} FloatBits;

union Pair {
    int2 v;
    long l;
};

__kernel void float_bits(__global const float *in, __global float *rsq,
                         __global int *expo, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;
    FloatBits x;  //~ warning[L0206]
    x.f = in[i];
    expo[i] = (int)((x.u >> 23) & 0xff) - 127 + (x.bytes[0] & 0);

    FloatBits y = { in[i] };  //~ warning[L0206]
    y.u = 0x5f3759df - (y.u >> 1);
    float half_x = 0.5f * in[i];
    rsq[i] = y.f * (1.5f - half_x * y.f * y.f);

    union Pair p = { .l = 0 };
    p.v.x = 1;
    expo[i] += (int)(p.l - 1);
}
