// Seeded bug: shifting a __local array left by one in place. Work-item t
// reads tile[t + 1] while work-item t + 1 overwrites it in the same
// barrier interval (a write-after-read race; the fix is a second buffer,
// or reading into a register and a barrier before the write).

// run: shift_left --global 128 --local 32 --arg data=random:128
// expect-run: DataRace at 16
__kernel void shift_left(__global float *data)
{
    __local float tile[33];
    uint lid = get_local_id(0);
    tile[lid] = data[get_global_id(0)];
    if (lid == 0)
        tile[32] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[lid] = tile[lid + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    data[get_global_id(0)] = tile[lid];
}
