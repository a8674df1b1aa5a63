// A barrier in a loop whose trip count depends on the local id: work-item
// t waits at the barrier t times, so the work-items of a group do not meet
// at the same barrier instances (L0401 at the barrier; at run time the
// first work-item leaves the loop while the others still wait).

// run: triangle_barrier --global 32 --local 16 --arg data=random:32 --arg tile=local:64
// expect-run: BarrierDivergence at 14
__kernel void triangle_barrier(__global float *data, __local float *tile)
{
    uint lid = get_local_id(0);
    tile[lid] = data[get_global_id(0)];
    float acc = 0.0f;
    for (uint i = 0; i < lid; i++) {  //~ warning[L0201]
        barrier(CLK_LOCAL_MEM_FENCE);  //~ error[L0401]
        acc += tile[i];
    }
    data[get_global_id(0)] = acc;
}
