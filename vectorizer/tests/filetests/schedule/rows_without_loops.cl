// test: lower canonicalize vectorize schedule
// A kernel without loops runs its regions row by row even with barriers
// and a `__local` tile (stencil_2d's halo tile): a SIMD group walks no
// memory that the next row's could reuse from L1, and row after row the
// SIMD groups of a region touch consecutive bytes of `in` and `out`.
kernel void halo(global const float *in, global float *out, int width) {
    local float tile[6][66];
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int gx = get_global_id(0);
    int gy = get_global_id(1);
    tile[ly + 1][lx + 1] = in[gy * width + gx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gy * width + gx] = tile[ly + 1][lx + 1] + tile[ly][lx + 1];
}
// check: schedule @halo: 2 regions, SIMD groups the longer of rows and column blocks innermost, work-group memory
// nextln: region 0: from the entry
// nextln: region 1: after `barrier local` in bb0.entry
