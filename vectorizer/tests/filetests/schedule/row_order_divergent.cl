// test: lower canonicalize vectorize schedule
// The same loop with a trip count that is uniform in a SIMD group but not
// across the work-group (the sub-group id): a barrier in it would be one
// the SIMD groups reach different numbers of times, so the loop stays as
// it is (each SIMD group runs it whole, column order).
kernel void rows(global const uint *data, global uint *partial) {
    local uint bins[4];
    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    int group = get_group_id(0);
    if (lid < 4)
        bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int base = group * 8 * lsize + lid;
    for (int k = 0; k < (int)get_sub_group_id() + 1; k++)
        atomic_inc(&bins[data[base + k * lsize] & 3u]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 4)
        partial[group * 4 + lid] = bins[lid];
}
// check: atomic.add
// not: barrier local|global
// check: schedule @rows: 3 regions
