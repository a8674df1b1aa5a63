// L0013: an #error directive in an active group. The #error in the
// inactive group is not reported.

#ifndef TILE
#define TILE 8
#endif

#if TILE > 4
#error TILE larger than 4 is not supported by tiled_copy
//~^ error[L0013]
#else
#error never reported: this group is skipped
#endif

__kernel void tiled_copy(__global const float *in, __global float *out, int n)
{
    int t = get_global_id(0);
    for (int k = 0; k < TILE; k++) {
        int i = t * TILE + k;
        if (i < n)
            out[i] = in[i];
    }
}
