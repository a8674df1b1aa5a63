// Work-group collective functions (OpenCL C 2.0): a reduction, an
// exclusive scan and work_group_any; every work-item reaches them.
//
// Launch: 1-D, global = round_up(n, L).

__kernel void group_stats(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    float v = i < n ? in[i] : 0.0f;
    float total = work_group_reduce_add(v);
    float before = work_group_scan_exclusive_add(v);
    int any_negative = work_group_any(v < 0.0f);
    if (i < n)
        out[i] = any_negative ? before : total - before;
}
