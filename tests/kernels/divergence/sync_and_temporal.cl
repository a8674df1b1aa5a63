// Control-induced divergence: the two canonical patterns of Moll's thesis,
// Fig. 7.1, and the LLVM DivergenceAnalysis tests hidden_diverge and
// temporal_diverge. Expectations are checked by tests/corpus.rs against
// `lanes explain --format json --target avx2-i32x8`.

// Fig. 7.1a/b (sync divergence): the branch on `t & 1` is divergent, so the
// lanes meet again in the join with different incoming values. x is varying
// although both of its definitions are constants.
__kernel void sync_join(__global int *out)
{
    int t = get_global_id(0);       //~ shape: contiguous
    int x;                          //~ shape: varying
    if (t & 1)                      //~ branch: divergent
        x = 0;
    else
        x = 1;
    out[t] = x;                     //~ access: out[t]=contiguous
}

// The same join behind a uniform branch: only one path reaches the join
// from the uniform branch, so y stays uniform.
__kernel void uniform_join(__global int *out, int p)
{
    int t = get_global_id(0);
    int y;                          //~ shape: uniform
    if (p > 0)                      //~ branch: uniform
        y = 0;
    else
        y = 1;
    out[t] = y;
}

// Fig. 7.1c/d (temporal divergence), LLVM temporal_diverge: inside the loop
// the counter is the same on all active lanes in every iteration, but lanes
// leave in different iterations, so its value after the loop is varying.
__kernel void temporal(__global int *out, __global const int *limit)
{
    int t = get_global_id(0);
    int n = limit[t];               //~ shape: varying //~ access: limit[t]=contiguous
    int i = 0;                      //~ shape: varying
    while (i < n)                   //~ loop: divergent //~ warning[L0201]
        i++;
    out[t] = i;
}

// A uniform loop: the trip count is a kernel argument.
__kernel void uniform_loop(__global int *out, int n)
{
    int t = get_global_id(0);
    int s = 0;                      //~ shape: uniform
    for (int i = 0; i < n; i++)     //~ loop: uniform //~ shape: i=uniform
        s += i;
    out[t] = s;
}

// LLVM hidden_diverge: entry branches on a varying value to B or C; B
// branches uniformly to C or the merge. The φ in C joins entry→C with
// entry→B→C: disjoint paths from a divergent branch, so it is varying.
__kernel void hidden_diverge(__global int *out, int uni)
{
    int t = get_global_id(0);
    int c = 0;                      //~ shape: varying
    switch (0) {
    default:
        if (t < 0) {                //~ branch: divergent
            c = 1;
        } else {
            if (uni > 0) {          //~ branch: uniform
                c = 2;
            } else {
                break;
            }
        }
        out[t] = c;
    }
}
