/*
 * enum_types.cl - enumerations: an `enum` of operation codes selecting
 * what each work-group computes (a uniform switch), an enum-typed
 * parameter, and enumerators used as array sizes and as case labels.
 * Each work-group reduces its block in __local memory with the
 * operation.
 *
 * Launch: 1-D, global = G L, local = L (a power of two, at most
 *   MAX_GROUP).
 * Arguments: in has G L ints in [0, 100); out has G ints; op is one of
 *   the reduce_op values (0 sum, 1 min, 2 max, 3 count of odd values).
 */

enum reduce_op { OP_SUM, OP_MIN, OP_MAX, OP_COUNT_ODD };
enum { MAX_GROUP = 256 };

int combine(enum reduce_op op, int a, int b)
{
    switch (op) {  //~ branch: uniform
    case OP_MIN:
        return min(a, b);
    case OP_MAX:
        return max(a, b);
    default:
        return a + b;
    }
}

// run: reduce_op --global 256 --local 64 --arg in=random:256 --arg out=zeros:4 --arg op=0
// run: reduce_op --global 256 --local 32 --arg in=random:256 --arg out=zeros:8 --arg op=1
// run: reduce_op --global 256 --local 128 --arg in=random:256 --arg out=zeros:2 --arg op=2
// run: reduce_op --global 256 --local 16 --arg in=random:256 --arg out=zeros:16 --arg op=3
__kernel void reduce_op(__global const int *in, __global int *out, enum reduce_op op)
{
    __local int scratch[MAX_GROUP];

    uint lid = get_local_id(0);
    int v = in[get_global_id(0)];
    scratch[lid] = op == OP_COUNT_ODD ? (v & 1) : v;  //~ branch: uniform
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {  //~ loop: uniform
        if (lid < s)
            scratch[lid] = combine(op, scratch[lid], scratch[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
