/* Lower-bound binary search per key as plain C, queries q in [lo, hi). */
void lower_bound_search(const unsigned *sorted, int n, const unsigned *keys, int *result,
                        int nkeys, int lo_q, int hi_q)
{
    if (hi_q > nkeys)
        hi_q = nkeys;
    for (int q = lo_q; q < hi_q; q++) {
        unsigned key = keys[q];
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (sorted[mid] < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        result[q] = lo;
    }
}
