// Images and samplers are opaque: no arithmetic, comparison, conversion or
// assignment (clang: "invalid operands to binary expression", "operand of
// type ... where arithmetic or pointer type is required", "initializing
// 'int' with an expression of incompatible type 'sampler_t'").
//
// Launch: 1-D, global = width of the images.

__kernel void compare(__read_only image1d_t a,
                      __read_only image1d_t b,
                      sampler_t s,
                      sampler_t t,
                      __global int *out)
{
    int i = get_global_id(0);
    out[i] = a == b;                                         //~ error[L0004]
    out[i] = (int)a;                                         //~ error[L0015]
    int bits = s;                                            //~ error[L0004]
    s = t;                                                   //~ error[L0004]
    out[i] += bits;
}
