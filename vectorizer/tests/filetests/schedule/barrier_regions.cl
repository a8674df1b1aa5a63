// test: lower canonicalize vectorize schedule
// The work-group schedule of a tile kernel with a barrier and a
// collective: region 0 up to the barrier, region 1 from it to the
// collective's first half, 2 between its halves, 3 after it. A SIMD group
// keeps the collective's operand (read again between its halves); its
// result is the same in every SIMD group (each combines all slots alike),
// kept once per work-group; the lane mask and `l` (the query converted to
// `int`) are computed again.
kernel void tile_sum(global float *out, global const float *in, local float *tile) {
    int l = get_local_id(0);
    tile[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    float x = tile[get_local_size(0) - 1 - l];
    float s = work_group_reduce_add(x);
    out[get_global_id(0)] = x + s;
}
// check: bb0.entry: ; entry ; mask $(mask=%\d+)
// check: $(l=%\d+) = trunc i64 $(lid=%\d+) to i32 : strided(1
// check: $(s=%\d+) = work_group.reduce.fadd f32($(x=%\d+)) : uniform
// check: schedule @tile_sum: 4 regions, SIMD groups the longer of rows and column blocks innermost, work-group memory
// nextln: region 0: from the entry
// nextln: region 1: after `barrier local` in bb0.entry
// nextln: region 2: after `$s = work_group.reduce.fadd f32($x)` (slots written)
// nextln: region 3: after `$s = work_group.reduce.fadd f32($x)` (slots read)
// nextln: kept per SIMD group: [$x f32 varying]
// nextln: kept per work-group: [$s f32]
// nextln: computed again: [$l, $mask]
