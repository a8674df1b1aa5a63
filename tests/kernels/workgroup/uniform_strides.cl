/*
 * uniform_strides.cl - __local accesses whose distance from one work-item
 * to the next is the same in the whole work-group but not a constant, as
 * in the tree levels of a Blelloch scan (temp[offset * (2 * lid + 1) - 1]):
 * the code generator tries such accesses at strides of 1, 2 and 4
 * elements at run time (packed loads, and a load, blend and store for a
 * store) and gathers or scatters otherwise.
 *
 * tree_levels: an up-sweep with the offsets 1, 2, 4, ... 64 (strides of
 *   2 to 128 elements), then a down-sweep that swaps and adds, on SPAN
 *   floats of __local memory; out gets the array. The indices are computed
 *   under the guard, as scan.cl does.
 * signed_strides: for s = -5 .. 5 and for the stride (k & 3) + 1 from an
 *   argument, each work-item reads t[base + s * lid] (s = 0: one element
 *   for all) and writes u[base + s * lid] (s != 0), then every u is
 *   folded into t; the indices stay inside the arrays by a guard on lid
 *   that leaves the last SIMD groups partly or wholly inactive.
 * short_strides: signed_strides' walk on ushort elements (2 bytes).
 *
 * Launch: 1-D, any global and local size (at most 256 work-items per
 *   group), global offset 0.
 * Arguments: in has 8192 floats (ushorts: 8192), out has 16 SPAN floats
 *   (the work-group g writes out[g * SPAN ...], g < 16).
 */

#define SPAN 512

// run: tree_levels --global 1024 --local 64 --arg in=random:8192 --arg out=zeros:8192
// run: tree_levels --global 512 --local 256 --arg in=random:8192 --arg out=zeros:8192
// run: signed_strides --global 1024 --local 64 --arg in=random:8192 --arg out=zeros:8192 --arg k=2
// run: signed_strides --global 600 --local 200 --arg in=random:8192 --arg out=zeros:8192 --arg k=7
// run: short_strides --global 1024 --local 64 --arg in=random:8192 --arg out=zeros:8192 --arg k=1
// run: short_strides --global 768 --local 256 --arg in=random:8192 --arg out=zeros:8192 --arg k=6

__kernel void tree_levels(__global const float *in, __global float *out)
{
    __local float t[SPAN];
    int lid = get_local_id(0);
    int n = get_local_size(0);
    int g = get_group_id(0);

    for (int i = lid; i < SPAN; i += n)  //~ warning[L0201]
        t[i] = in[(g * 37 + i) & 8191];  //~ warning[L0202]
    int offset = 1;
    for (; offset <= 64; offset <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < SPAN / (2 * offset)) {
            int ai = offset * (2 * lid + 1) - 1;
            int bi = offset * (2 * lid + 2) - 1;
            t[bi] += t[ai];  //~ warning[L0202] //~ warning[L0202] //~ warning[L0203]
        }
    }
    for (offset >>= 1; offset >= 1; offset >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < SPAN / (2 * offset)) {
            int ai = offset * (2 * lid + 1) - 1;
            int bi = offset * (2 * lid + 2) - 1;
            float x = t[ai];  //~ warning[L0202]
            t[ai] = t[bi];  //~ warning[L0202] //~ warning[L0203]
            t[bi] += x;  //~ warning[L0202] //~ warning[L0203]
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < SPAN; i += n)  //~ warning[L0201]
        out[(g * SPAN + i) & 8191] = t[i];  //~ warning[L0203]
}

__kernel void signed_strides(__global const float *in, __global float *out, int k)
{
    __local float t[SPAN];
    __local float u[SPAN];
    int lid = get_local_id(0);
    int n = get_local_size(0);
    int g = get_group_id(0);

    for (int i = lid; i < SPAN; i += n) {  //~ warning[L0201]
        t[i] = in[(g * 53 + i) & 8191];  //~ warning[L0202]
        u[i] = 0.0f;
    }
    for (int r = 0; r < 12; r++) {
        int s = r < 11 ? r - 5 : (k & 3) + 1;
        int base = s < 0 ? SPAN - 1 : 0;
        int items = s == 0 ? SPAN : SPAN / abs(s);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < items) {
            int i = base + s * lid;
            float v = t[i];  //~ warning[L0202]
            if (s != 0)
                u[i] = v * 0.5f + (float)s;  //~ warning[L0203]
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = lid; j < SPAN; j += n)  //~ warning[L0201]
            t[j] += u[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < SPAN; i += n)  //~ warning[L0201]
        out[(g * SPAN + i) & 8191] = t[i];  //~ warning[L0203]
}

__kernel void short_strides(__global const ushort *in, __global ushort *out, int k)
{
    __local ushort t[SPAN];
    __local ushort u[SPAN];
    int lid = get_local_id(0);
    int n = get_local_size(0);
    int g = get_group_id(0);

    for (int i = lid; i < SPAN; i += n) {  //~ warning[L0201]
        t[i] = in[(g * 53 + i) & 8191];  //~ warning[L0202]
        u[i] = 0;
    }
    for (int r = 0; r < 12; r++) {
        int s = r < 11 ? r - 5 : (k & 3) + 1;
        int base = s < 0 ? SPAN - 1 : 0;
        int items = s == 0 ? SPAN : SPAN / abs(s);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < items) {
            int i = base + s * lid;
            ushort v = t[i];  //~ warning[L0202]
            if (s != 0)
                u[i] = (ushort)(v * 3 + s);  //~ warning[L0203]
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = lid; j < SPAN; j += n)  //~ warning[L0201]
            t[j] += u[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < SPAN; i += n)  //~ warning[L0201]
        out[(g * SPAN + i) & 8191] = t[i];  //~ warning[L0203]
}
