// binary_search.cl - every work-item looks up one key in a sorted array.
//   lower_bound_search: the index of the first element >= key (n if none).
//   find_exact:         the index of an element equal to key, or -1; stops
//                       as soon as it hits one (a data-dependent break).
//
// Launch: 1-D, one work-item per query: global = round_up(nkeys); ids >=
//   nkeys return.
// Arguments: sorted has n uints in ascending order (n >= 0; on unsorted
//   data the result is meaningless but every access stays in [0, n));
//   keys has nkeys uints, result has nkeys ints.
//
// Both loops are divergent: the number of halvings and the early exit
// depend on each lane's key, and sorted[mid] is a gather.

__kernel void lower_bound_search(__global const uint *sorted, int n,
                                 __global const uint *keys,
                                 __global int *result, int nkeys)
{
    int q = get_global_id(0);  //~ shape: contiguous
    if (q >= nkeys)  //~ branch: divergent
        return;

    uint key = keys[q];  //~ shape: varying //~ access: keys[q]=contiguous
    int lo = 0;
    int hi = n;
    while (lo < hi) {  //~ loop: divergent //~ warning[L0201]
        int mid = lo + (hi - lo) / 2;  //~ shape: varying
        if (sorted[mid] < key)  //~ branch: divergent //~ access: sorted[mid]=gather //~ warning[L0202]
            lo = mid + 1;
        else
            hi = mid;
    }
    result[q] = lo;  //~ access: result[q]=store:contiguous
}

__kernel void find_exact(__global const uint *sorted, int n,
                         __global const uint *keys,
                         __global int *result, int nkeys)
{
    int q = get_global_id(0);  //~ shape: contiguous
    if (q >= nkeys)
        return;

    uint key = keys[q];
    int lo = 0;
    int hi = n - 1;
    int found = -1;  //~ shape: varying
    while (lo <= hi) {  //~ loop: divergent //~ warning[L0201]
        int mid = lo + (hi - lo) / 2;
        uint v = sorted[mid];  //~ shape: varying //~ access: sorted[mid]=gather //~ warning[L0202]
        if (v == key) {
            found = mid;
            break;
        }
        if (v < key)  //~ branch: divergent
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    result[q] = found;  //~ access: result[q]=store:contiguous
}
