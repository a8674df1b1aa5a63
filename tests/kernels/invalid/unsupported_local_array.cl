// L0902: __local memory is not supported yet: a __local array declared in
// a kernel. Otherwise valid OpenCL C (every work-item only touches its own
// slots, so no barrier is needed); the uses of the array are not reported
// again.
//
// Launch: 1-D, local size <= 64, global = n.

__kernel void scratch_in_local(__global const float *in, __global float *out)
{
    __local float scratch[64 * 4];                  //~ error[L0902]
    int i = get_global_id(0);
    int l = get_local_id(0);
    for (int k = 0; k < 4; k++)
        scratch[4 * l + k] = in[i] * (float)(k + 1);
    float s = 0.0f;
    for (int k = 0; k < 4; k++)
        s += scratch[4 * l + k];
    out[i] = s;
}
