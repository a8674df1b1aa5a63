// nbody.cl - one explicit Euler step of an all-pairs gravitational N-body
// simulation, without local memory: every work-item loops over all bodies.
// Positions are float4 (xyz = position, w = mass); velocities float4 (w
// unused, copied through).
//
// Launch: 1-D, one work-item per body: global = round_up(n); ids >= n return.
// Arguments: pos, vel (inputs) and new_pos, new_vel (outputs) have n float4
//   elements each; eps2 > 0 is the softening term, dt the time step.
//
// The loop over j is uniform and pos[j] is a uniform load (a broadcast).

__kernel void nbody_step(__global const float4 *pos,
                         __global const float4 *vel,
                         __global float4 *new_pos,
                         __global float4 *new_vel,
                         int n, float dt, float eps2)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    float4 p = pos[i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float3 d = q.xyz - p.xyz;
        float r2 = dot(d, d) + eps2;
        float inv_r = rsqrt(r2);
        float s = q.w * inv_r * inv_r * inv_r;
        acc += s * d;
    }

    float4 v = vel[i];
    v.xyz += acc * dt;
    p.xyz += v.xyz * dt;
    new_pos[i] = p;
    new_vel[i] = v;
}
