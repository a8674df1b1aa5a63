// Work-items beyond the problem size return before the barrier that the
// others wait at: the common bounds check placed too early. The barrier is
// control dependent on `gid >= n`, which varies within a work-group when n
// is not a multiple of the local size (L0401; at run time the returned
// work-items never arrive).

// run: early_return --global 64 --local 32 --arg in=random:50 --arg out=zeros:50 --arg n=50 --arg tile=local:132
// expect-run: BarrierDivergence at 17
__kernel void early_return(__global const float *in, __global float *out, int n,
                           __local float *tile)
{
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    if (gid >= n)
        return;
    tile[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);  //~ error[L0401]
    out[gid] = 0.5f * (tile[lid] + tile[(lid + 1) % get_local_size(0)]);  //~ warning[L0205] warning[L0202]
}
