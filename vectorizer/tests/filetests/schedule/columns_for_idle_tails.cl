// test: lower canonicalize vectorize schedule
// Without loops but with a region whose idle tail can be skipped (the
// store behind `l < 4`): the SIMD groups keep the column-block order, in
// which `xstart` never decreases within a region (idle_tail.rs).
kernel void guarded(global float *out, global const float *in) {
    local float t[64];
    int l = get_local_id(0);
    t[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 4)
        out[get_group_id(0) * 4 + l] = t[l] + t[l + 4];
}
// check: schedule @guarded: 2 regions, SIMD groups column block by column block, work-group memory
// nextln: region 0: from the entry
// nextln: region 1: after `barrier local` in bb0.entry
