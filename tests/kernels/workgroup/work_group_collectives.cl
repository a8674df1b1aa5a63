/*
 * work_group_collectives.cl - the work-group collective functions of
 * OpenCL C 2.0 in place of hand-written __local trees:
 *
 * block_sum:      work_group_reduce_add per work-group.
 * block_scan:     inclusive scan within each work-group
 *                 (work_group_scan_inclusive_add) plus the block total.
 * normalize_max:  divides each element by the maximum of its work-group
 *                 (work_group_reduce_max), and flags the group when any
 *                 element is negative (work_group_any).
 * subtract_first: subtracts the value of the group's first work-item
 *                 (work_group_broadcast), scanning exclusively for the
 *                 rank of the positive elements (work_group_scan_exclusive_add).
 *
 * Needs -cl-std=CL2.0. Every work-item of a work-group reaches every
 * collective (no early return).
 * Launch: 1-D, global = G L, local = L (any L the device allows).
 * Arguments: in has G L ints (in [0, 100) for the sums, so no overflow),
 *   out the same; block_totals and flags have G ints.
 */

// build: -cl-std=CL2.0
// skip-runtime: pocl oclgrind -- PoCL 3.1 and oclgrind 21.10 do not implement
// the work-group functions; the specs are for lanes run --interpret.
// run: block_sum --global 256 --local 64 --arg in=random:256 --arg block_totals=zeros:4
// run: block_sum --global 256 --local 32 --arg in=random:256 --arg block_totals=zeros:8
__kernel void block_sum(__global const int *in, __global int *block_totals)
{
    int x = in[get_global_id(0)];  //~ shape: varying
    int total = work_group_reduce_add(x);  //~ shape: uniform
    if (get_local_id(0) == 0)  //~ branch: divergent
        block_totals[get_group_id(0)] = total;
}

// run: block_scan --global 256 --local 64 --arg in=random:256 --arg out=zeros:256 --arg block_totals=zeros:4
// run: block_scan --global 256 --local 128 --arg in=random:256 --arg out=zeros:256 --arg block_totals=zeros:2
__kernel void block_scan(__global const int *in, __global int *out,
                         __global int *block_totals)
{
    size_t gid = get_global_id(0);  //~ shape: contiguous
    int x = in[gid];
    int prefix = work_group_scan_inclusive_add(x);  //~ shape: varying
    out[gid] = prefix;  //~ access: out[gid]=store:contiguous
    if (get_local_id(0) == get_local_size(0) - 1)  //~ branch: divergent
        block_totals[get_group_id(0)] = prefix;
}

// run: normalize_max --global 256 --local 64 --arg in=random:256:-5:100 --arg out=zeros:256 --arg flags=zeros:4
// run: normalize_max --global 256 --local 16 --arg in=random:256:-5:100 --arg out=zeros:256 --arg flags=zeros:16
__kernel void normalize_max(__global const int *in, __global int *out,
                            __global int *flags)
{
    size_t gid = get_global_id(0);
    int x = in[gid];
    int m = work_group_reduce_max(x);  //~ shape: uniform
    int any_negative = work_group_any(x < 0);  //~ shape: uniform
    out[gid] = m > 0 ? (x * 1000) / m : 0;  //~ branch: uniform //~ warning[L0205]
    if (get_local_id(0) == 0)
        flags[get_group_id(0)] = any_negative ? 1 : 0;
}

// run: subtract_first --global 256 --local 64 --arg in=random:256 --arg out=zeros:256
// run: subtract_first --global 128 --local 128 --arg in=random:128 --arg out=zeros:128
__kernel void subtract_first(__global const int *in, __global int *out)
{
    size_t gid = get_global_id(0);
    int x = in[gid];
    int first = work_group_broadcast(x, 0);  //~ shape: uniform
    int rank = work_group_scan_exclusive_add(x > first ? 1 : 0);  //~ shape: varying //~ branch: divergent
    out[gid] = (x - first) * 1000 + rank;
}
