// test: lower promote
// Rodinia cfd style: FLOAT3 locals filled by a helper through a pointer and
// read by another that takes them by value. After promotion no private
// memory is left: every field is an SSA value (a register per lane once
// vectorized), the loop carries the accumulated fields in φs.
typedef struct {
    float x;
    float y;
    float z;
} FLOAT3;

inline void compute_velocity(float density, FLOAT3 momentum, FLOAT3 *velocity)
{
    velocity->x = momentum.x / density;
    velocity->y = momentum.y / density;
    velocity->z = momentum.z / density;
}

inline float compute_speed_sqd(FLOAT3 velocity)
{
    return velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z;
}

__kernel void speeds(__global const float *variables, __global float *out, int nelr)
{
    int i = get_global_id(0);
    FLOAT3 momentum;
    momentum.x = variables[i + 1 * nelr];
    momentum.y = variables[i + 2 * nelr];
    momentum.z = variables[i + 3 * nelr];
    FLOAT3 velocity;
    compute_velocity(variables[i], momentum, &velocity);
    FLOAT3 sum = { 0.0f, 0.0f, 0.0f };
    for (int j = 0; j < nelr; j++)
        sum.y += compute_speed_sqd(velocity);
    out[i] = sum.x + sum.y + sum.z;
}

// A varying index keeps the array in memory; its constant-index neighbour
// in the same kernel is promoted.
__kernel void lookup(__global const int *in, __global int *out)
{
    int i = get_global_id(0);
    int fixed[2] = { 10, 20 };
    int table[4] = { 1, 2, 3, 4 };
    out[i] = table[in[i] & 3] + fixed[1];
}
// check: kernel @speeds
// not: alloca
// not: ptr(private)
// check: fdiv f32
// check: fdiv f32
// check: fdiv f32
// check: phi f32
// not: alloca
// check: kernel @lookup
// check: alloca 16 bytes
// not: alloca
// check: ret
