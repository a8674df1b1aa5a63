// test: lower canonicalize vectorize schedule
// A work-group-uniform loop that reads one row of the work-group's block
// per iteration (`data[base + k * lsize]`) gets a barrier at the start of
// its latch (vectorize/row_order.rs): each iteration is a region, run for
// every SIMD group before the next, so the block is read row by row. The
// loop counter, `lsize` and the group id are the same in every SIMD
// group: kept once per work-group (the row's start `base` depends on the
// local id and is kept per SIMD group).
kernel void rows(global const uint *data, global uint *partial) {
    local uint bins[4];
    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    int group = get_group_id(0);
    if (lid < 4)
        bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int base = group * 8 * lsize + lid;
    for (int k = 0; k < 8; k++)
        atomic_inc(&bins[data[base + k * lsize] & 3u]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 4)
        partial[group * 4 + lid] = bins[lid];
}
// check: bb5.for.inc: ; mask
// nextln: barrier local|global
// nextln: add nsw i32 $(k=%\d+), i32 1 : uniform
// check: schedule @rows: 4 regions
// nextln: region 0: from the entry
// nextln: region 1: after `barrier local` in bb2.if.end
// nextln: region 2: after `barrier local` in bb6.for.end
// nextln: region 3: after `barrier local|global` in bb5.for.inc
// nextln: kept per SIMD group: [
// sameln: i32 varying]
// nextln: kept per work-group: [
// sameln: $k i32]
