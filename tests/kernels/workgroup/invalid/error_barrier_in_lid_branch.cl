// A barrier inside a branch on the local id: only the first half of every
// work-group reaches it; the second half finishes while the first half
// waits. Undefined behaviour in OpenCL; lanes rejects it (L0401, the
// reason chain leads to get_local_id) and the reference interpreter and
// oclgrind report the divergence at run time.

// run: half_barrier --global 128 --local 64 --arg data=random:128 --arg tile=local:256
// expect-run: BarrierDivergence at 15
__kernel void half_barrier(__global float *data, __local float *tile)
{
    uint lid = get_local_id(0);
    tile[lid] = data[get_global_id(0)];
    if (lid < get_local_size(0) / 2) {
        // The first half folds the second half in.
        barrier(CLK_LOCAL_MEM_FENCE);  //~ error[L0401]
        tile[lid] += tile[lid + get_local_size(0) / 2];
    }
    data[get_global_id(0)] = tile[lid];
}
