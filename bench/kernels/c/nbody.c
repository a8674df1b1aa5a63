/* One all-pairs N-body Euler step as plain C, bodies i in [lo, hi). */
#include <math.h>

typedef struct {
    float x, y, z, w;
} float4;

void nbody_step(const float4 *pos, const float4 *vel, float4 *new_pos, float4 *new_vel, int n,
                float dt, float eps2, int lo, int hi)
{
    if (hi > n)
        hi = n;
    for (int i = lo; i < hi; i++) {
        float4 p = pos[i];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; j++) {
            float dx = pos[j].x - p.x, dy = pos[j].y - p.y, dz = pos[j].z - p.z;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv_r = 1.0f / sqrtf(r2);
            float s = pos[j].w * inv_r * inv_r * inv_r;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        float4 v = vel[i];
        v.x += ax * dt;
        v.y += ay * dt;
        v.z += az * dt;
        p.x += v.x * dt;
        p.y += v.y * dt;
        p.z += v.z * dt;
        new_pos[i] = p;
        new_vel[i] = v;
    }
}
