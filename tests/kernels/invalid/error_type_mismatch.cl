// L0004: operands of invalid or mismatched types: vectors of different
// element types or lengths, arithmetic on pointers with floats, % and ~ on
// floats, shifting by a float, adding two pointers.

__kernel void mismatched(__global float4 *f, __global int4 *iv,
                         __global float *p, int n)
{
    int i = get_global_id(0);
    float4 a = f[i] + iv[i];               //~ error[L0004]
    float2 b = f[i].xy + f[i];             //~ error[L0004]
    float c = p * 2.0f;                    //~ error[L0004]
    float d = p[i] % 2.0f;                 //~ error[L0004]
    int e = ~p[i];                         //~ error[L0004]
    int g = n << 1.5f;                     //~ error[L0004]
    __global float *h = p + p;             //~ error[L0004]
    f[i] = a + (float4)(b, c, d) + (float)(e + g) + h[0];
}
