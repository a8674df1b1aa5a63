// test: lower canonicalize
// LCSSA: `sum`, defined in the loop and used after it, leaves through a
// φ in the exit block; the loop counter `k`, not used after the loop,
// gets none.
kernel void row_sum(global float *out, global const float *in, int taps) {
    int x = get_global_id(0);
    float sum = 0.0f;
    for (int k = 0; k < taps; k++)
        sum += in[x + k];
    out[x] = sum;
}
// check: bb1.for.cond:
// nextln: $(k=%\d+) = phi i32 [bb0.entry: i32 0]
// nextln: $(sum=%\d+) = phi f32 [bb0.entry: f32 0.0]
// check: bb4.for.end:
// nextln: $(out=%\d+) = phi f32 [bb1.for.cond: $sum]
// not: phi
// check: store f32 $out,
