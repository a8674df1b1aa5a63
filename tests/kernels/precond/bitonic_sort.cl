// bitonic_sort.cl - BitonicSort of the paper (Table I, n = 2^20) as in the AMD
// APP SDK: one compare-and-exchange pass per launch, in place.
//
// Launch: 1-D, global = n / 2 (any local size), n = 2^k; the whole sort runs
//   for (stage = 0; stage < k; ++stage)
//       for (pass = 0; pass <= stage; ++pass) launch(stage, pass, direction)
//   and sorts ascending for direction = 1, descending for direction = 0.
// Arguments: data has n uints; pass <= stage < k; direction is 0 or 1.
//
// Divergence: pair_distance = 1 << (stage - pass) is uniform but
// tid % pair_distance and tid / pair_distance are not, so the two loads and
// stores are gathers and scatters unless pair_distance is a multiple of the
// SIMD width W (the paper's `t mod 4 = 0` again); the branches on
// left > right and on the direction of the block vary per lane.

__kernel void bitonic_sort(__global uint *data, uint stage, uint pass, uint direction)
{
    uint tid = get_global_id(0);
    uint increasing = direction;
    uint pair_distance = 1u << (stage - pass);
    uint block_width = 2 * pair_distance;
    uint left_id = (tid % pair_distance) + (tid / pair_distance) * block_width;
    uint right_id = left_id + pair_distance;

    uint left = data[left_id];  //~ warning[L0202]
    uint right = data[right_id];  //~ warning[L0202]

    uint same_direction_block_width = 1u << stage;
    if ((tid / same_direction_block_width) % 2 == 1)  //~ branch: divergent
        increasing = 1 - increasing;

    uint greater, lesser;
    if (left > right) {  //~ branch: divergent
        greater = left;
        lesser = right;
    } else {
        greater = right;
        lesser = left;
    }
    if (increasing) {  //~ branch: divergent
        data[left_id] = lesser;  //~ warning[L0203]
        data[right_id] = greater;  //~ warning[L0203]
    } else {
        data[left_id] = greater;  //~ warning[L0203]
        data[right_id] = lesser;  //~ warning[L0203]
    }
}
