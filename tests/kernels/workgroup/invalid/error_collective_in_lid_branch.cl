// Work-group functions are barriers too: every work-item of the group must
// reach them. A work-group reduction and an async copy wait under
// local-id-dependent control (L0401 each).

__kernel void partial_reduce(__global const int *in, __global int *out)
{
    int x = in[get_global_id(0)];
    int total = 0;
    if (get_local_id(0) < 32)
        total = work_group_reduce_add(x);  //~ error[L0401]
    out[get_global_id(0)] = total;
}

__kernel void lonely_copy(__global const float *in, __global float *out,
                          __local float *tile)
{
    size_t n = get_local_size(0);
    event_t e = async_work_group_copy(tile, in + get_group_id(0) * n, n, 0);
    if (get_local_id(0) == 0)
        wait_group_events(1, &e);  //~ error[L0401]
    out[get_global_id(0)] = tile[get_local_id(0)];
}
