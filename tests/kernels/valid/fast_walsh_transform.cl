// fast_walsh_transform.cl - one butterfly step of the in-place fast
// Walsh-Hadamard transform over n = 2^k floats. The host launches it for
// step = 1, 2, 4, ..., n / 2.
//
// Launch: 1-D, one work-item per butterfly: global = round_up(n / 2);
//   ids >= n / 2 return.
// Arguments: data has n floats, n a power of two >= 2; step a power of two
//   with 1 <= step < n.
//
// For step >= W the two accesses of a SIMD group are contiguous; for small
// steps they are strided with gaps (the fast path a precondition step >= W
// selects).

__kernel void fast_walsh_transform(__global float *data, uint n, uint step)
{
    uint tid = get_global_id(0);  //~ shape: contiguous
    if (tid >= n / 2)  //~ branch: divergent
        return;

    uint group = tid % step;  //~ shape: varying //~ warning[L0205]
    uint pair = 2u * step * (tid / step) + group;  //~ shape: varying //~ warning[L0205]
    uint match = pair + step;  //~ shape: varying

    float t1 = data[pair];  //~ access: data[pair]=gather //~ warning[L0202]
    float t2 = data[match];  //~ access: data[match]=gather //~ warning[L0202]
    data[pair] = t1 + t2;  //~ access: data[pair]=scatter //~ warning[L0203]
    data[match] = t1 - t2;  //~ access: data[match]=scatter //~ warning[L0203]
}
