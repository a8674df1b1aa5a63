/*
 * stream_compaction.cl - removes the elements below a threshold from an
 * array, keeping the others (in no particular order): every kept element
 * takes an output slot from a global counter with atomic_inc
 * (compact_global), or the work-group first counts its kept elements in
 * __local memory, reserves one contiguous range with a single atomic_add
 * on the global counter and fills it in order of the local ranks
 * (compact_local, the usual way to cut the traffic on the global counter).
 *
 * Launch: 1-D, global = round_up(n, L), local = L.
 * Arguments: in has n floats; out has room for n floats; count is one
 *   uint, zeroed by the host, and holds the number kept afterwards.
 */

// run: compact_global --global 1024 --local 64 --arg in=random:1000 --arg out=zeros:1000 --arg count=zeros:1 --arg n=1000 --arg threshold=0.5
// run: compact_global --global 1024 --local 256 --arg in=random:1000 --arg out=zeros:1000 --arg count=zeros:1 --arg n=1000 --arg threshold=0.9
__kernel void compact_global(__global const float *in, __global float *out,
                             __global uint *count, uint n, float threshold)
{
    uint gid = get_global_id(0);  //~ shape: contiguous
    if (gid < n) {  //~ branch: divergent
        float v = in[gid];
        if (v >= threshold) {  //~ branch: divergent
            uint slot = atomic_inc(count);  //~ shape: varying //~ warning[L0208]
            out[slot] = v;  //~ access: out[slot]=store:scatter //~ warning[L0203]
        }
    }
}

// run: compact_local --global 1024 --local 64 --arg in=random:1000 --arg out=zeros:1000 --arg count=zeros:1 --arg n=1000 --arg threshold=0.5
// run: compact_local --global 1024 --local 128 --arg in=random:1000 --arg out=zeros:1000 --arg count=zeros:1 --arg n=1000 --arg threshold=0.25
__kernel void compact_local(__global const float *in, __global float *out,
                            __global uint *count, uint n, float threshold)
{
    __local uint local_count;
    __local uint base;

    uint gid = get_global_id(0);
    uint lid = get_local_id(0);  //~ shape: contiguous

    if (lid == 0)
        local_count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    float v = gid < n ? in[gid] : 0.0f;
    bool keep = gid < n && v >= threshold;  //~ shape: varying
    uint rank = 0;
    if (keep)  //~ branch: divergent
        rank = atomic_inc(&local_count);  //~ warning[L0208]
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0)
        base = atomic_add(count, local_count);
    barrier(CLK_LOCAL_MEM_FENCE);

    if (keep)
        out[base + rank] = v;  //~ access: out[base + rank]=store:scatter //~ warning[L0203]
}
