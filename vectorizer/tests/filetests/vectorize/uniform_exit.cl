// test: lower canonicalize vectorize
// A divergent loop with a uniform exit (`it < max_iter`, in the header)
// and a varying one (the escape test). Only the header's branch reaches
// the uniform exit's target, so the loop ends in the iteration that takes
// it: the dispatch tells the two exits apart by that edge's mask in the
// last iteration, and nothing in the loop records which exit a lane took.
// `it`, read at the varying exit, counts instead of being captured: 0 on
// entry, + 1 on the back edge for the lanes that go round again. The loop
// has no `select` of an `i32` but that count.
kernel void escape(global uint *out, global const float *c, uint max_iter) {
    int i = get_global_id(0);
    float z = 0.0f;
    uint it = 0;
    while (it < max_iter && z * z <= 4.0f) {
        z = z * z + c[i];
        it++;
    }
    out[i] = it;
}
// check: $(head=bb\d+\.while\.cond): ; mask $(live=%\d+)
// nextln: $live = phi i1
// nextln: $(iv=%\d+) = phi i32 [$(pre=bb\d+\.[a-z.]+): i32 0], [bb3.while.body: $(ivnext=%\d+)] : uniform
// check: $(count=%\d+) = phi i32 [$pre: i32 0], [bb3.while.body: $(counted=%\d+)] : varying
// nextln: $(uniform=%\d+) = cmp ult i32 $iv, %2
// check: $(left=%\d+) = xor i1 $uniform, true
// nextln: $(leaving=%\d+) = select i1 $live, $left, false
// not: select i32
// check: br $uniform, $(rhs=bb\d+\.land\.rhs), $(body=bb\d+\.while\.body)
// check: $body: ; mask $(stay=%\d+)
// not: select i32
// check: $ivnext = add i32 $iv, i32 1
// nextln: $(one=%\d+) = select i32 $stay, i32 1, i32 0
// nextln: $counted = add i32 $count, $one
// check: br $(more=%\d+), $head, $(dispatch=bb\d+\.loop\.dispatch)
// check: $dispatch:
// nextln: phi i1 [$pre: false], [$body: $leaving]
