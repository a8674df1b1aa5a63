// Seeded bug: a __local histogram updated with a plain increment instead
// of atomic_inc: two work-items of a group with the same bin read and
// write the same counter between two barriers.

// run: histogram_plain --global 256 --local 64 --arg data=random:256:0:16 --arg hist=zeros:64
// expect-run: DataRace at 16
__kernel void histogram_plain(__global const uint *data, __global uint *hist)
{
    __local uint bins[16];
    uint lid = get_local_id(0);
    if (lid < 16)
        bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    uint bin = data[get_global_id(0)] & 15;
    bins[bin]++;  //~ warning[L0202] warning[L0203]
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid < 16)
        hist[get_group_id(0) * 16 + lid] = bins[lid];
}
