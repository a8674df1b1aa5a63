// fast_walsh_transform.cl - FastWalshTransform of the paper (Table I,
// n = 2^24) as in the AMD APP SDK: one butterfly pass per launch, in place.
//
// Launch: 1-D, global = n / 2 (any local size), for n a multiple of
//   2 * step; the whole transform of n = 2^k floats runs the passes
//   step = 1, 2, 4, ..., n / 2 in this order.
// Arguments: data has n floats; step >= 1.
//
// Divergence: tid % step and tid / step vary across a SIMD group, so pair and
// match are neither uniform nor contiguous for a general step and both loads
// and stores are gathers and scatters (and the division is a varying integer
// division). When step is a multiple of the SIMD width W and the group starts
// at a multiple of W, group = tid % step is contiguous and tid / step uniform
// in the group, so the accesses become packed: the paper's precondition
// `t mod 4 = 0` (W = 4).

__kernel void fast_walsh_transform(__global float *data, uint step)
{
    uint tid = get_global_id(0);
    uint group = tid % step;  //~ warning[L0205]
    uint pair = 2 * step * (tid / step) + group;  //~ warning[L0205]
    uint match = pair + step;
    float t1 = data[pair];  //~ warning[L0202]
    float t2 = data[match];  //~ warning[L0202]
    data[pair] = t1 + t2;  //~ warning[L0203]
    data[match] = t1 - t2;  //~ warning[L0203]
}
