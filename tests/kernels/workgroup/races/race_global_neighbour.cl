// Seeded bug in __global memory: an in-place smoothing step where each
// work-item reads its left neighbour's element while that work-item
// overwrites it; a barrier with CLK_GLOBAL_MEM_FENCE between the read
// and the write (or a second buffer) removes the race within a group.

// run: smooth_in_place --global 128 --local 64 --arg data=random:128
// expect-run: DataRace at 12
__kernel void smooth_in_place(__global float *data)
{
    size_t gid = get_global_id(0);
    size_t lid = get_local_id(0);
    float left = lid > 0 ? data[gid - 1] : data[gid];
    data[gid] = 0.5f * (left + data[gid]);
}
