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
    uint tid = get_global_id(0);
    if (tid >= n / 2)
        return;

    uint group = tid % step;
    uint pair = 2u * step * (tid / step) + group;
    uint match = pair + step;

    float t1 = data[pair];
    float t2 = data[match];
    data[pair] = t1 + t2;
    data[match] = t1 - t2;
}
