/*
 * shared_values.cl - values that are the same in every SIMD group of a
 * work-group, kept across barriers: a loop counter with barriers in the
 * loop, a value loaded from __local memory after a barrier, a collective's
 * result and a sum carried from iteration to iteration (beside a per-item
 * one); and __local increments through signed and unsigned 32-bit
 * indices, with several lanes on one bin. lanes keeps the uniform ones
 * once per work-group (docs/codegen.md, "Values kept once per work-group").
 *
 * Launch: 1-D, global = G L, local = L (any L).
 * Arguments: data has G L ints (0 to 999); out has G L ints.
 */

#define BINS 8

// build: -cl-std=CL2.0
// skip-runtime: pocl oclgrind -- PoCL 3.1 and oclgrind 21.10 do not implement
// the work-group functions; the specs are for lanes run --interpret.
// run: shared_values --global 256 --local 64 --arg data=random:256:0:1000 --arg out=zeros:256
// run: shared_values --global 60 --local 20 --arg data=random:60:0:1000 --arg out=zeros:60
__kernel void shared_values(__global const int *data, __global int *out)
{
    __local int bins[BINS];
    __local int first;

    int lid = get_local_id(0);
    int gid = get_global_id(0);

    if (lid < BINS)
        bins[lid] = 0;
    if (lid == 0)
        first = data[gid] & 15;
    barrier(CLK_LOCAL_MEM_FENCE);
    int start = first;
    int total = work_group_reduce_add(data[gid] & 7);
    int acc = 0;
    int mine = 0;
    for (int k = 0; k < 4; k++) {
        atomic_inc(&bins[(data[gid] + k * start) % BINS]);  //~ warning[L0209]
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += bins[k] + start;
        mine += bins[(lid + k) % BINS];  //~ warning[L0202]
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    atomic_add(&bins[(uint)(data[gid] >> 3) & 7u], total);  //~ warning[L0209]
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = acc * 1000 + mine + bins[lid % BINS] + total;  //~ warning[L0202]
}
