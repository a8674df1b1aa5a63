// Control-divergence cases of Moll's thesis (ch. 7) and of LLVM's
// DivergenceAnalysis tests, written as OpenCL C. The CFGs are the ones the
// notes reconstruct (notes/rv-thesis-part1.md §7.2-7.3); `switch (0) {
// default: ... break; ... }` gives a forward jump (goto) without a loop.
// `data[t + ...]` is a lane-varying value; kernel arguments are uniform.

// Fig. 7.9b with p varying: A branches on p to B or C, B branches on q to D
// or E, C goes to D. D joins A->B->D and A->C->D, two disjoint paths from
// the divergent branch, before A's immediate post-dominator F: x in D is
// varying. (Analyses that only reconverge at the IPD miss this.)
__kernel void fig_7_9b_p_varying(__global int *out, int q)
{
    int t = get_global_id(0);
    int x = 0;                          //~ shape: varying
    switch (0) {
    default:
        if (t & 1) {                    //~ branch: divergent
            if (q == 0) {               //~ branch: uniform
                out[t] = 3;             // E
                break;                  // E -> F
            }
            x = 1;                      // B -> D
        } else {
            x = 2;                      // C -> D
        }
        out[t] = x;                     // D
    }
}

// Fig. 7.9b with p uniform and q varying: only one path from B reaches D, so
// x stays uniform (analyses that treat every join above the IPD as
// divergent report it varying).
__kernel void fig_7_9b_q_varying(__global int *out, int p)
{
    int t = get_global_id(0);
    int x = 0;                          //~ shape: uniform
    switch (0) {
    default:
        if (p > 0) {                    //~ branch: uniform
            if (t & 1) {                //~ branch: divergent
                out[t] = 3;
                break;
            }
            x = 1;
        } else {
            x = 2;
        }
        out[t] = x;
    }
}

// Fig. 7.9c with a and c uniform, b varying: the lanes that take b never
// reach the join of x, so x is uniform although its join is control
// dependent on b (absolute control dependence gets this wrong).
__kernel void fig_7_9c(__global int *out, __global const int *data, int a, int c)
{
    int t = get_global_id(0);
    int x;                              //~ shape: uniform
    if (a > 0) {                        //~ branch: uniform
        if (data[t] > 0) {              //~ branch: divergent
            out[t] = -1;
            return;
        }
        if (c > 0)                      //~ branch: uniform
            x = 0;
        else
            x = 1;
    } else {
        x = 1;
    }
    out[t] = x;
}

// Fig. 7.9a: a loop with two exits. Exit D depends only on the uniform h
// (i >= n), exit E on the varying b (data[t] > i) followed by the uniform c.
// D is a uniform exit: all lanes still in the loop leave there in the same
// iteration, so d is uniform. E is a divergent exit: lanes reach it in
// different iterations, so e is varying. (Gated SSA's single loop predicate
// makes both exits divergent.)
__kernel void fig_7_9a(__global int *out, __global const int *data, int n, int m)
{
    int t = get_global_id(0);
    for (int i = 0;; i++) {             //~ loop: divergent //~ warning[L0201]
        if (i >= n) {
            int d = i * 2;              //~ shape: uniform
            out[t] = d;
            break;
        }
        if (data[t] > i) {              //~ branch: divergent
            if (i >= m) {
                int e = i * 3;          //~ shape: varying
                out[t] = e;
                return;
            }
        }
    }
}

// Fig. 7.7b: a partially divergent loop with two uniform exits and one
// divergent exit (which returns). The two uniform exits join after the
// loop: lanes that arrive there all left in the same iteration through
// uniform exits, so a is uniform.
__kernel void fig_7_7b(__global int *out, __global const int *keys, int n, int m)
{
    int t = get_global_id(0);
    int a = 0;                          //~ shape: uniform
    for (int i = 0;; i++) {             //~ loop: divergent //~ warning[L0201]
        if (i >= n) {
            a = 1;
            break;
        }
        if (i >= m) {
            a = 2;
            break;
        }
        if (keys[t] == i) {
            out[t] = -1;
            return;
        }
    }
    out[t] = a;
}

// Fig. 7.3: a divergent branch in the loop header region; the loop has two
// exits E and F with no disjoint paths from the branch, yet lanes leave
// through different exits in different iterations, so the join X after the
// loop is varying (r), and so is the counter.
__kernel void fig_7_3(__global int *out, __global const int *data, int n)
{
    int t = get_global_id(0);
    int i = 0;                          //~ shape: varying
    int r;                              //~ shape: varying
    while (1) {                         //~ loop: divergent //~ warning[L0201]
        if (data[t + i] > 0) {          //~ branch: divergent //~ warning[L0202]
            i += 1;
            if (i >= n) {
                r = 1;                  // E
                break;
            }
        }
        i += 2;
        if (i > 4 * n) {
            r = 2;                      // F
            break;
        }
    }
    out[t] = r;                         // X
}

// LLVM hidden_doublebreak_diverge: a break out of two loops at once, on a
// varying condition, makes both loops divergent.
__kernel void hidden_doublebreak(__global int *out, __global const int *data, int n)
{
    int t = get_global_id(0);
    int found = -1;                     //~ shape: varying
    for (int i = 0; i < n; i++) {       //~ loop: divergent //~ warning[L0201]
        int hit = 0;
        for (int j = 0; j < n; j++) {   //~ loop: divergent //~ warning[L0201]
            if (data[i * n + j] == t) { //~ access: data[i * n + j]=uniform
                hit = 1;
                break;
            }
        }
        if (hit) {
            found = i;
            break;
        }
    }
    out[t] = found;
}

// LLVM hidden_loopdiverge: a divergent inner loop inside a uniform outer
// loop. The outer loop stays uniform: every lane runs all of its
// iterations.
__kernel void divergent_inner_loop(__global float *out, __global const int *len, int n)
{
    int t = get_global_id(0);
    float s = 0.0f;                     //~ shape: varying
    for (int i = 0; i < n; i++) {       //~ loop: uniform
        for (int j = 0; j < len[t]; j++) //~ loop: divergent //~ warning[L0201]
            s += 1.0f;
    }
    out[t] = s;
}

// LLVM join-at-loop-exit: the exit block is reached from two exiting blocks
// inside the loop, and lanes leave through them in different iterations, so
// the φ(true, false) at the exit is varying.
__kernel void join_at_loop_exit(__global int *out, __global const int *data, int n)
{
    int t = get_global_id(0);
    int which = 0;                      //~ shape: varying
    for (int i = 0;; i++) {             //~ loop: divergent //~ warning[L0201]
        if (data[t] == i) {
            which = 1;
            break;
        }
        if (i >= n) {
            which = 2;
            break;
        }
    }
    out[t] = which;
}

// LLVM trivial-join-at-loop-exit: the exit's other incoming edge comes from
// outside the loop, and the loop itself is uniform, so the join is uniform.
__kernel void trivial_join_at_loop_exit(__global int *out, int n, int skip)
{
    int t = get_global_id(0);
    int v = 0;                          //~ shape: uniform
    switch (0) {
    default:
        if (skip > 0) {                 //~ branch: uniform
            v = 2;
            break;
        }
        for (int i = 0; i < n; i++) {   //~ loop: uniform
            v = 1;
            if (i * i > n)
                break;
        }
    }
    out[t] = v;
}

// Private arrays (AllocaSSA, thesis Fig. 6.11 and the stack-divergence case
// prior analyses miss): (a) a varying value stored at a uniform index makes
// the array per-lane; (b) a uniform value stored at uniform indices keeps it
// shared; (c) a uniform store under divergent control, read after the
// branches meet, makes it per-lane too. The arrays are larger than the 16
// elements kept in registers when indexed at run time, so they stay in
// memory.
__kernel void private_arrays(__global int *out, int u)
{
    int t = get_global_id(0);
    int a[32];                          //~ shape: varying //~ warning[L0206]
    a[u & 31] = t;
    int b[32];                          //~ shape: uniform
    b[u & 31] = 42;
    b[3] = 7;
    int c[32];                          //~ shape: varying //~ warning[L0206]
    c[u & 31] = 0;
    if (t & 1)                          //~ branch: divergent
        c[u & 31] = 1;
    out[t] = a[u & 31] + b[3] + c[u & 31];
}

// Thesis Fig. 6.12 (AllocaSSA). The thesis claims X becomes varying and Y
// stays uniform. The notes flag this as inconsistent, and it is: Z is a φ
// in the sync join of the divergent branch (X on lanes that skipped the
// branch, Y on lanes that took it), so the store through Z + 4 has a
// varying pointer that may point into X or Y, and by the store rule both
// arrays must be per-lane. That is also what the semantics demand: on
// lanes that took the branch Y[4] becomes 2.0f, on the others it stays 0,
// so one shared copy of Y cannot serve all lanes.
__kernel void fig_6_12(__global float *out, int u)
{
    int t = get_global_id(0);
    float X[8] = {0};                   //~ shape: varying //~ warning[L0206]
    float Y[8] = {0};                   //~ shape: varying //~ warning[L0206]
    float *Z = X;                       //~ shape: varying
    if (t & 1) {                        //~ branch: divergent
        X[0] = 1.0f;
        Z = Y;
    }
    if (u > 0)                          //~ branch: uniform
        Z[4] = 2.0f;
    out[t] = Y[4] + X[0];
}
