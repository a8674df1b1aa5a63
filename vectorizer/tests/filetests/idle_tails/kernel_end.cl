// test: lower canonicalize vectorize idle_tails
// A tree reduction whose last region ends the kernel: the `ret` after the
// `lid == 0` store is no effect, so that region's idle tail is skipped as
// the tree levels' are (SIMD groups past lane 0 have nothing to do there).
#define N 64
kernel void tree(global const float *in, global float *out) {
    local float s[N];
    int lid = get_local_id(0);
    s[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = N / 2; k > 0; k >>= 1) {
        if (lid < k)
            s[lid] += s[lid + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = s[0];
}
// check: idle tails:
// nextln: effects in bb0.entry: idle when never
// nextln: effects in bb3.if.then: idle when xstart >= %77
// nextln: effects in bb7.if.then: idle when xstart > i32 0
// nextln: region 0: runs every SIMD group
// nextln: region 1: idle tail skipped, copies [%77]
// nextln: region 2: idle tail skipped, copies [%77]
