// bitonic_sort_step.cl - one compare-exchange step of a bitonic sorting
// network over n = 2^k unsigned keys. The host runs, for stage = 0 .. k-1
// and pass = 0 .. stage, one launch with those parameters; afterwards data
// is sorted (ascending if ascending != 0, else descending).
//
// Launch: 1-D, one work-item per compared pair: global = round_up(n / 2);
//   ids >= n / 2 return.
// Arguments: data has n uints, n a power of two >= 2;
//   0 <= pass <= stage < log2(n); ascending is 0 or 1.
//
// The pair indices are computed with shifts, divisions and remainders by
// uniform powers of two: within a SIMD group the loads are contiguous runs
// or strided, and the direction flip is uniform per block of 2^stage items.

__kernel void bitonic_sort_step(__global uint *data, uint n, uint stage,
                                uint pass, uint ascending)
{
    uint tid = get_global_id(0);  //~ shape: contiguous
    if (tid >= n / 2)  //~ branch: divergent
        return;

    uint pair_distance = 1u << (stage - pass);  //~ shape: uniform
    uint block_width = 2u * pair_distance;  //~ shape: uniform
    uint left = (tid % pair_distance) + (tid / pair_distance) * block_width;  //~ shape: varying
    uint right = left + pair_distance;  //~ shape: varying

    uint increasing = ascending;  //~ shape: varying
    if ((tid >> stage) & 1u)  //~ branch: divergent
        increasing = 1u - increasing;

    uint a = data[left];  //~ access: data[left]=gather //~ warning[L0202]
    uint b = data[right];  //~ access: data[right]=gather //~ warning[L0202]
    uint lesser = min(a, b);
    uint greater = max(a, b);
    if (increasing) {  //~ branch: divergent
        data[left] = lesser;  //~ access: data[left]=scatter //~ warning[L0203]
        data[right] = greater;  //~ access: data[right]=scatter //~ warning[L0203]
    } else {
        data[left] = greater;  //~ access: data[left]=scatter //~ warning[L0203]
        data[right] = lesser;  //~ access: data[right]=scatter //~ warning[L0203]
    }
}
