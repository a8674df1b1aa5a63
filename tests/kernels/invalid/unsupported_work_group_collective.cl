// L0917: work-group collective functions (OpenCL C 2.0) are not supported
// yet; sub_group_* are the supported equivalents. Each call is reported.
// Otherwise valid OpenCL C 2.0: every work-item reaches the collectives.
//
// Launch: 1-D, global = round_up(n, L).

__kernel void group_stats(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    float v = i < n ? in[i] : 0.0f;
    float total = work_group_reduce_add(v);                 //~ error[L0917]
    float before = work_group_scan_exclusive_add(v);        //~ error[L0917]
    int any_negative = work_group_any(v < 0.0f);            //~ error[L0917]
    if (i < n)
        out[i] = any_negative ? before : total - before;
}
