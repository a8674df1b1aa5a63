// test: lower canonicalize vectorize
// A divergent loop with a uniform exit (`it < max_iter`, in the header)
// and a varying one (the escape test): the exit index starts at the
// uniform exit's target, so only the varying exit writes it (no
// per-iteration blend of the index for the exit all lanes take at once).
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
// check: $(exit=%\d+) = phi i32 [$(pre=bb\d+\.[a-z.]+): i32 0], [bb3.while.body: $(next=%\d+)] : varying
// not: select i32
// check: br $(uniform=%\d+), $(rhs=bb\d+\.land\.rhs), $(body=bb\d+\.while\.body)
// check: $rhs: ; mask
// check: select i32 $(leave=%\d+), i32 1, $exit
// check: br $(more=%\d+), $head, $(dispatch=bb\d+\.loop\.dispatch)
// check: $dispatch:
