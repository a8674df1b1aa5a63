// A global-memory barrier between two phases: each work-item doubles its
// element, then (after the barrier) reads the one its mirror wrote;
// mem_fence orders the work-item's own accesses. One work-group.
//
// Launch: 1-D, global = n = the local size (one work-group).

__kernel void mirror_after_barrier(__global float *data, __global float *out, int n)
{
    int i = get_global_id(0);
    data[i] *= 2.0f;
    barrier(CLK_GLOBAL_MEM_FENCE);
    out[i] = data[n - 1 - i];  //~ warning[L0204]
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    out[i] += 1.0f;
}
