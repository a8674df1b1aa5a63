// test: build
// target: avx2-i32x8
// Prefetch of the work-groups ahead (emit/prefetch.rs): in a kernel with
// barriers, a packed load whose address follows the group id prefetches
// the same element of a later work-group, 4 KiB on. `block_sums` is 2 KiB
// per work-group: two work-groups ahead, a constant offset. `pitched`'s
// stride is a launch value: the distance is a shift by the stride's
// leading zeros, no division. A group id through a division gives no
// prefetch.
kernel void block_sums(global const float *in, global float *out) {
    local float t[256];
    int lid = get_local_id(0);
    int i = get_group_id(0) * 512 + lid;
    t[lid & 255] = in[i] + in[i + 256];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        out[get_group_id(0)] = t[0] + t[1];
}

kernel void pitched(global const int *in, global int *out, int pitch) {
    local int row[64];
    int lid = get_local_id(0);
    row[lid & 63] = in[get_group_id(0) * pitch + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = row[lid & 63];
}

kernel void through_a_division(global const int *in, global int *out) {
    local int t[64];
    int lid = get_local_id(0);
    t[lid & 63] = in[get_group_id(0) / 3 * 64 + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[lid & 63];
}
// check: @block_sums_groups(
// check: $(a=%\d+) = getelementptr i8, ptr $(=%\d+), i64 4096
// check: call void @llvm.prefetch.p0(ptr $a, i32 0, i32 3, i32 1)
// check: @pitched_groups(
// check: @llvm.ctlz.i64(
// check: @llvm.usub.sat.i64(
// check: call void @llvm.prefetch.p0(
// check: @through_a_division_groups(
// not: @llvm.prefetch
// check: @through_a_division(
