// A kernel parameter pointing into __local memory (its size set by
// clSetKernelArg): each work-item stages its element through its own slot.
//
// Launch: 1-D, the local buffer holds one float per work-item.

__kernel void stage_through_local(__global const float *in,
                                  __global float *out,
                                  __local float *tile,
                                  int n)
{
    int i = get_global_id(0);
    int l = get_local_id(0);
    tile[l] = i < n ? in[i] : 0.0f;
    if (i < n)
        out[i] = tile[l] * 0.5f;
}
