// A __local array declared at kernel scope: every work-item only touches
// its own slots, so no barrier is needed.
//
// Launch: 1-D, local size <= 64, global = n.

__kernel void scratch_in_local(__global const float *in, __global float *out)
{
    __local float scratch[64 * 4];
    int i = get_global_id(0);
    int l = get_local_id(0);
    for (int k = 0; k < 4; k++)
        scratch[4 * l + k] = in[i] * (float)(k + 1);  //~ warning[L0204]
    float s = 0.0f;
    for (int k = 0; k < 4; k++)
        s += scratch[4 * l + k];  //~ warning[L0204]
    out[i] = s;
}
