// nbody_local.cl - one explicit Euler step of an all-pairs gravitational
// n-body simulation (AMD APP SDK NBody style): every work-item integrates one
// body; the positions of all bodies stream through __local memory one tile
// of GROUP_SIZE bodies at a time, each work-item of the group loading one.
// Same arithmetic, in the same order, as nbody.cl.
//
// Launch: 1-D, global = n, local = GROUP_SIZE (-D, 256 by default); n a
//   multiple of GROUP_SIZE.
// Arguments: pos, vel (inputs) and new_pos, new_vel (outputs) have n float4
//   elements each (xyz, w = mass); eps2 > 0 is the softening term, dt the
//   time step.

#ifndef GROUP_SIZE
#define GROUP_SIZE 256
#endif

__kernel void nbody_local(__global const float4 *pos,
                          __global const float4 *vel,
                          __global float4 *new_pos,
                          __global float4 *new_vel,
                          int n, float dt, float eps2)
{
    __local float4 tile[GROUP_SIZE];

    int i = get_global_id(0);
    int lid = get_local_id(0);

    float4 p = pos[i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (int t = 0; t < n; t += GROUP_SIZE) {
        tile[lid] = pos[t + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < GROUP_SIZE; j++) {
            float4 q = tile[j];
            float3 d = q.xyz - p.xyz;
            float r2 = dot(d, d) + eps2;
            float inv_r = rsqrt(r2);
            float s = q.w * inv_r * inv_r * inv_r;
            acc += s * d;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    float4 v = vel[i];
    v.xyz += acc * dt;
    p.xyz += v.xyz * dt;
    new_pos[i] = p;
    new_vel[i] = v;
}
