/*
 * compound_literals.cl - C99 compound literals: a struct value built in an
 * expression, `(struct range){ .lo = a, .hi = b }`, passed to and
 * returned from helpers, and a constant array literal indexed in place.
 * Each work-group finds the range (min, max) of its block with a tree in
 * __local memory of struct values.
 *
 * Launch: 1-D, global = G L, local = L (a power of two, at most 256).
 * Arguments: in has G L floats; lo and hi have G floats; out has G L
 *   floats (each element mapped into [0, 1] within its block, with a
 *   three-point smoothing weight from an array literal).
 */

struct range {
    float lo;
    float hi;
};

struct range merge(struct range a, struct range b)
{
    return (struct range){ .lo = fmin(a.lo, b.lo), .hi = fmax(a.hi, b.hi) };
}

// run: block_range --global 256 --local 64 --arg in=random:256 --arg lo=zeros:4 --arg hi=zeros:4 --arg out=zeros:256
// run: block_range --global 256 --local 256 --arg in=random:256 --arg lo=zeros:1 --arg hi=zeros:1 --arg out=zeros:256
__kernel void block_range(__global const float *in, __global float *lo,
                          __global float *hi, __global float *out)
{
    __local struct range tree[256];

    uint lid = get_local_id(0);  //~ shape: contiguous
    uint gid = get_global_id(0);
    float x = in[gid];

    tree[lid] = (struct range){ x, x };
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {  //~ loop: uniform
        if (lid < s)  //~ branch: divergent
            tree[lid] = merge(tree[lid], tree[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    struct range r = tree[0];
    if (lid == 0) {
        lo[get_group_id(0)] = r.lo;
        hi[get_group_id(0)] = r.hi;
    }
    float width = r.hi - r.lo;  //~ shape: uniform
    float weight = ((float[]){ 0.25f, 0.5f, 0.25f })[gid % 3];
    out[gid] = width > 0.0f ? weight * (x - r.lo) / width : 0.0f;
}
