/*
 * memory_fences.cl - the barrier and fence variants: barrier with both
 * CLK_LOCAL_MEM_FENCE and CLK_GLOBAL_MEM_FENCE (work-items of a group
 * exchange data through a __global scratch buffer), the OpenCL 2.0
 * spelling work_group_barrier, and mem_fence / read_mem_fence /
 * write_mem_fence ordering one work-item's own accesses.
 *
 * rotate_through_global: every work-group rotates its block by one
 *   position: each work-item writes its element to the group's slice of
 *   scratch, and after a barrier with the global fence reads its
 *   neighbour's.
 * pair_swap: work-items swap adjacent elements through __local memory,
 *   fenced by work_group_barrier; the fences order the private stores of
 *   the flag and the value.
 *
 * Launch: 1-D, global = G L, local = L (L even).
 * Arguments: in, out and scratch have G L floats; flags has G L ints.
 */

// build: -cl-std=CL2.0
// run: rotate_through_global --global 256 --local 64 --arg in=random:256 --arg out=zeros:256 --arg scratch=zeros:256
// run: rotate_through_global --global 256 --local 16 --arg in=random:256 --arg out=zeros:256 --arg scratch=zeros:256
__kernel void rotate_through_global(__global const float *in, __global float *out,
                                    __global float *scratch)
{
    size_t gid = get_global_id(0);  //~ shape: contiguous
    size_t lid = get_local_id(0);
    size_t L = get_local_size(0);
    size_t base = gid - lid;  //~ shape: uniform

    scratch[gid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    out[gid] = scratch[base + (lid + 1) % L];  //~ warning[L0205] warning[L0202]
}

// run: pair_swap --global 256 --local 64 --arg in=random:256 --arg out=zeros:256 --arg flags=zeros:256
// run: pair_swap --global 256 --local 8 --arg in=random:256 --arg out=zeros:256 --arg flags=zeros:256
__kernel void pair_swap(__global const float *in, __global float *out, __global int *flags)
{
    __local float tile[256];

    size_t gid = get_global_id(0);
    size_t lid = get_local_id(0);  //~ shape: contiguous

    float v = in[gid];
    read_mem_fence(CLK_GLOBAL_MEM_FENCE);
    tile[lid] = v;
    work_group_barrier(CLK_LOCAL_MEM_FENCE);

    out[gid] = tile[lid ^ 1];  //~ access: tile[lid ^ 1]=gather //~ warning[L0202]
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    flags[gid] = 1;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
}
