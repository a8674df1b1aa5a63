// binary_search.cl - every work-item looks up one key in a sorted array:
//   lower_bound_search: the index of the first element >= key (n if none).
//   (From tests/kernels/valid/binary_search.cl, one kernel per benchmark file.)
//
// Launch: 1-D, one work-item per query: global = round_up(nkeys); ids >=
//   nkeys return.
// Arguments: sorted has n uints in ascending order (n >= 0; on unsorted
//   data the result is meaningless but every access stays in [0, n));
//   keys has nkeys uints, result has nkeys ints.
//
// The loop is divergent: the number of halvings depends on each lane's key,
// and sorted[mid] is a gather.

__kernel void lower_bound_search(__global const uint *sorted, int n,
                                 __global const uint *keys,
                                 __global int *result, int nkeys)
{
    int q = get_global_id(0);
    if (q >= nkeys)
        return;

    uint key = keys[q];
    int lo = 0;
    int hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sorted[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    result[q] = lo;
}
