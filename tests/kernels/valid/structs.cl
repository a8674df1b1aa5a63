// structs.cl - structs by value and through __global pointers: a typedef'd
// anonymous struct, a nested struct, a typedef of a tagged struct, a struct
// kernel argument, struct initializer lists, and a private array of
// structs.
//
// Launch: 1-D, one work-item per particle: global = round_up(n); ids >= n
//   return.
// Arguments: ps has n Particle records (24 bytes each: pos, vel, mass,
//   alive; the host uses the same layout); energy has n floats; box.lo <=
//   box.hi.

typedef struct {
    float x;
    float y;
} Vec2;

struct Particle {
    Vec2 pos;
    Vec2 vel;
    float mass;
    int alive;
};

typedef struct Particle Particle;

struct Bounds {
    float lo;
    float hi;
};

Vec2 vec2_add(Vec2 a, Vec2 b)
{
    Vec2 r;
    r.x = a.x + b.x;
    r.y = a.y + b.y;
    return r;
}

Vec2 vec2_scale(Vec2 a, float s)
{
    Vec2 r = { a.x * s, a.y * s };
    return r;
}

float vec2_norm2(Vec2 a)
{
    return a.x * a.x + a.y * a.y;
}

__kernel void advance_particles(__global Particle *ps, int n, float dt,
                                struct Bounds box)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    Particle p = ps[i];
    if (!p.alive)
        return;

    p.pos = vec2_add(p.pos, vec2_scale(p.vel, dt));
    if (p.pos.x < box.lo || p.pos.x > box.hi) {
        p.vel.x = -p.vel.x;
        p.pos.x = clamp(p.pos.x, box.lo, box.hi);
    }
    if (p.pos.y < box.lo || p.pos.y > box.hi) {
        p.vel.y = -p.vel.y;
        p.pos.y = clamp(p.pos.y, box.lo, box.hi);
    }
    ps[i] = p;
}

__kernel void kinetic_energy(__global const Particle *ps, __global float *energy, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    __global const Particle *p = &ps[i];
    float e = 0.0f;
    if (p->alive)  //~ warning[L0204]
        e = 0.5f * p->mass * vec2_norm2(p->vel);  //~ warning[L0204] warning[L0204]
    energy[i] = e;
}

// The distance from each particle to the nearest corner of the box, with
// the corners in a private array of structs.
__kernel void nearest_corner(__global const Particle *ps, __global float *dist,
                             struct Bounds box, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    Vec2 corners[4];
    Vec2 origin = { box.lo, box.lo };
    corners[0] = origin;
    corners[1].x = box.hi;
    corners[1].y = box.lo;
    corners[2].x = box.lo;
    corners[2].y = box.hi;
    corners[3].x = box.hi;
    corners[3].y = box.hi;

    Vec2 pos = ps[i].pos;  //~ warning[L0204]
    float best = vec2_norm2(vec2_add(pos, vec2_scale(corners[0], -1.0f)));
    for (int c = 1; c < 4; c++) {
        float d = vec2_norm2(vec2_add(pos, vec2_scale(corners[c], -1.0f)));
        best = fmin(best, d);
    }
    dist[i] = sqrt(best);
}
