// A barrier under a branch on loaded data: the condition differs between
// the work-items of a group, so some reach the barrier and some do not
// (L0401, with the loaded value in the reason chain).

// run: data_barrier --global 64 --local 64 --arg in=random:64 --arg out=zeros:64 --arg tile=local:256
// expect-run: BarrierDivergence at 14
__kernel void data_barrier(__global const float *in, __global float *out,
                           __local float *tile)
{
    uint lid = get_local_id(0);
    float v = in[get_global_id(0)];
    tile[lid] = v;
    if (v > 0.5f)
        barrier(CLK_LOCAL_MEM_FENCE);  //~ error[L0401]
    out[get_global_id(0)] = 2.0f * tile[lid];
}
