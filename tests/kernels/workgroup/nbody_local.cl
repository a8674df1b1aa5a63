/*
 * nbody_local.cl - one time step of an all-pairs gravitational n-body
 * simulation (AMD/NVIDIA NBody style): every work-item integrates one body;
 * the positions of all bodies are streamed through __local memory one tile
 * of L bodies at a time, every work-item of the group loading one body of
 * the tile. Positions are float4 (xyz, w = mass), velocities float4.
 *
 * Launch: 1-D, global = numBodies, local = L; numBodies a multiple of L.
 * Arguments: pos, vel, newPos, newVel have numBodies float4 each;
 *   localPos is L float4 of __local memory; deltaTime and epsSqr
 *   (softening, > 0) are scalars.
 */

// run: nbody_sim --global 256 --local 64 --arg pos=random:256 --arg vel=random:256 --arg numBodies=256 --arg deltaTime=0.005 --arg epsSqr=0.01 --arg localPos=local:1024 --arg newPos=zeros:256 --arg newVel=zeros:256
// run: nbody_sim --global 256 --local 32 --arg pos=random:256 --arg vel=random:256 --arg numBodies=256 --arg deltaTime=0.005 --arg epsSqr=0.01 --arg localPos=local:512 --arg newPos=zeros:256 --arg newVel=zeros:256
// run: nbody_sim --global 128 --local 128 --arg pos=random:128 --arg vel=random:128 --arg numBodies=128 --arg deltaTime=0.005 --arg epsSqr=0.01 --arg localPos=local:2048 --arg newPos=zeros:128 --arg newVel=zeros:128

// Acceleration of a body at `pos` caused by `other` (w = mass).
float4 body_body(float4 pos, float4 other, float epsSqr)
{
    float4 r = other - pos;
    r.w = 0.0f;
    float distSqr = dot(r, r) + epsSqr;
    float invDist = rsqrt(distSqr);
    float s = other.w * invDist * invDist * invDist;
    return s * r;
}

__kernel void nbody_sim(__global const float4 *pos, __global const float4 *vel,
                        int numBodies, float deltaTime, float epsSqr,
                        __local float4 *localPos,
                        __global float4 *newPos, __global float4 *newVel)
{
    unsigned int tid = get_local_id(0);  //~ shape: contiguous
    unsigned int gid = get_global_id(0);  //~ shape: contiguous
    unsigned int localSize = get_local_size(0);  //~ shape: uniform
    unsigned int numTiles = numBodies / localSize;  //~ shape: uniform

    float4 myPos = pos[gid];  //~ access: pos[gid]=contiguous
    float4 acc = (float4)(0.0f);

    for (unsigned int i = 0; i < numTiles; ++i) {  //~ loop: uniform //~ shape: i=uniform
        localPos[tid] = pos[i * localSize + tid];  //~ access: localPos[tid]=store:contiguous, pos[i * localSize + tid]=contiguous
        barrier(CLK_LOCAL_MEM_FENCE);

        for (unsigned int j = 0; j < localSize; ++j)  //~ loop: uniform //~ shape: j=uniform
            acc += body_body(myPos, localPos[j], epsSqr);  //~ access: localPos[j]=uniform
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    float4 oldVel = vel[gid];
    float4 v = oldVel + acc * deltaTime;
    float4 p = myPos + v * deltaTime;
    p.w = myPos.w;
    v.w = oldVel.w;
    newPos[gid] = p;  //~ access: newPos[gid]=store:contiguous
    newVel[gid] = v;
}
