// L0901: barriers and memory fences are not supported yet (lanes runs one
// SIMD group at a time, without work-group synchronisation). Otherwise
// valid OpenCL C: each work-item doubles its element, then reads the one
// its mirror wrote; global memory only.
//
// Launch: 1-D, global = n (a multiple of the local size), one work-group.

__kernel void mirror_after_barrier(__global float *data, __global float *out, int n)
{
    int i = get_global_id(0);
    data[i] *= 2.0f;
    barrier(CLK_GLOBAL_MEM_FENCE);                  //~ error[L0901]
    out[i] = data[n - 1 - i];
    mem_fence(CLK_GLOBAL_MEM_FENCE);                //~ error[L0901]
    out[i] += 1.0f;
}
