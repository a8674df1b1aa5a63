/* nbody_local computes what nbody_step computes (only the staging through
 * __local memory differs), so the plain-C version is nbody.c's, included
 * under another name: both files go into one library. */
#define nbody_step nbody_local_all_pairs
#include "nbody.c"
#undef nbody_step

void nbody_local(const float4 *pos, const float4 *vel, float4 *new_pos, float4 *new_vel, int n,
                 float dt, float eps2, int lo, int hi)
{
    nbody_local_all_pairs(pos, vel, new_pos, new_vel, n, dt, eps2, lo, hi);
}
