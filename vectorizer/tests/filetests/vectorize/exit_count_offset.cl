// test: lower canonicalize vectorize
// A do-while whose exit tests follow the increment: the value of `k` read
// after the loop is the header's `k + 2` of the iteration the lane left in.
// It counts from `0 + 2`, adding 2 on the back edge for the lanes that go
// round again, with no per-iteration `select` of `k`.
kernel void steps(global const int *a, global int *out) {
    int i = get_global_id(0);
    int k = 0;
    do {
        k += 2;
    } while (a[(i * 5 + k) & 255] != 4);
    out[i] = k;
}
// check: $(start=%\d+) = add i32 i32 0, i32 2
// check: $(head=bb\d+\.do\.body): ; mask $(live=%\d+)
// nextln: $live = phi i1
// check: $(count=%\d+) = phi i32 [$(pre=bb\d+\.[a-z.]+): $start], [$(latch=bb\d+\.[a-z.]+): $(counted=%\d+)] : varying
// not: select i32 %\d+, %\d+
// check: $(two=%\d+) = select i32 $(stay=%\d+), i32 2, i32 0
// nextln: $counted = add i32 $count, $two
