// L0015: invalid casts: an explicit cast between vector types (use
// convert_float4), a struct cast to a scalar, a pointer cast to float, a
// vector cast to a vector of another length, a float cast to a pointer.
// Implicit conversions that do not exist (a vector initialized from another
// vector type, a struct from a scalar) are mismatched types, L0004.

typedef struct {
    float a;
    float b;
} Pair;

__kernel void casts(__global int4 *iv, __global float4 *fv,
                    __global Pair *pairs, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int4 q = iv[i];
    float4 f = (float4)q;              //~ error[L0015]
    float4 g = q;                      //~ error[L0004]
    int s = (int)pairs[i];             //~ error[L0015]
    Pair p = 1.0f;                     //~ error[L0004]
    float h = (float)out;              //~ error[L0015]
    int2 t = (int2)fv[i];              //~ error[L0015]
    __global float *z = (__global float *)out[i]; //~ error[L0015]
    out[i] = f.x + g.y + (float)s + p.a + h + (float)t.x + z[0];
}
