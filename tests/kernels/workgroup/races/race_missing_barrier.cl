// Seeded bug: the tree reduction of reduction_sequential.cl without the
// barrier between loading the tile and the first step, so work-item t
// reads tile[t + s] before work-item t + s has written it.

// run: reduce_no_first_barrier --global 256 --local 64 --arg in=random:256 --arg partial=zeros:4
// expect-run: DataRace at 17
__kernel void reduce_no_first_barrier(__global const int *in, __global int *partial)
{
    __local int tile[64];
    uint lid = get_local_id(0);  //~ shape: contiguous

    tile[lid] = in[get_global_id(0)];
    // missing: barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {  //~ loop: uniform
        if (lid < s)
            tile[lid] += tile[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = tile[0];
}
