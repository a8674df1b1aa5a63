// sub_groups.cl - the sub-group built-ins of OpenCL C 2.x as lanes maps
// them: one sub-group is one SIMD group of W consecutive work-items along
// dimension 0. get_sub_group_size, get_sub_group_local_id, sub_group_any,
// sub_group_all, sub_group_broadcast, sub_group_reduce_add/min/max,
// sub_group_scan_inclusive_add, sub_group_scan_exclusive_max, and an
// if (sub_group_any(cond)) guard around a divergent branch (a BOSCC skip).
//
// Launch: 1-D, global = round_up(n, L) where the local size L is a multiple
//   of the sub-group size; every work-item of a sub-group reaches the
//   sub-group functions (no early return before them), items with
//   id >= n contribute neutral values and store nothing.
// Arguments: subgroup_stats: in has n ints; out has 8 * n ints.
//   clamp_negative: x has n floats.
// Results of the reductions depend on the sub-group size, as on any device.

__kernel void subgroup_stats(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    bool active = i < n;  //~ shape: varying
    int v = active ? in[i] : 0;  //~ shape: varying //~ branch: divergent //~ access: in[i]=contiguous

    uint sg_size = get_sub_group_size();  //~ shape: uniform
    uint lane = get_sub_group_local_id();  //~ shape: contiguous
    int small = v & 0xffff;                       // no overflow in the sums

    int total = sub_group_reduce_add(small);  //~ shape: uniform
    int lo = sub_group_reduce_min(active ? v : INT_MAX);  //~ shape: uniform //~ branch: divergent
    int hi = sub_group_reduce_max(active ? v : INT_MIN);  //~ shape: uniform //~ branch: divergent
    int incl = sub_group_scan_inclusive_add(small);  //~ shape: varying
    int excl_max = sub_group_scan_exclusive_max(v);  //~ shape: varying
    int first = sub_group_broadcast(v, 0);  //~ shape: uniform
    int any_neg = sub_group_any(v < 0);  //~ shape: uniform
    int all_pos = sub_group_all(v > 0);  //~ shape: uniform

    if (active) {  //~ branch: divergent
        out[8 * i + 0] = total;  //~ access: out[8 * i + 0]=store:strided(32) //~ warning[L0204]
        out[8 * i + 1] = lo;  //~ warning[L0204]
        out[8 * i + 2] = hi;  //~ warning[L0204]
        out[8 * i + 3] = incl;  //~ warning[L0204]
        out[8 * i + 4] = excl_max;  //~ warning[L0204]
        out[8 * i + 5] = first;  //~ warning[L0204]
        out[8 * i + 6] = (any_neg ? 1 : 0) | (all_pos ? 2 : 0);  //~ branch: uniform //~ access: out[8 * i + 6]=store:strided(32) //~ warning[L0204]
        out[8 * i + 7] = (int)(lane * 100u + sg_size);  //~ warning[L0204]
    }
}

// Replaces negative values by a damped magnitude; sub-groups without any
// negative value skip the divergent branch entirely.
__kernel void clamp_negative(__global float *x, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    bool active = i < n;
    float v = active ? x[i] : 0.0f;  //~ shape: varying //~ branch: divergent //~ access: x[i]=load:contiguous
    bool neg = v < 0.0f;  //~ shape: varying

    if (sub_group_any(neg)) {  //~ branch: uniform
        if (neg) {  //~ branch: divergent
            v = -v * 0.5f;
            v = fmin(v, 1.0e3f);
        }
    }

    if (sub_group_all(active)) {  //~ branch: uniform
        x[i] = v;              // the whole group is in range: unmasked store  //~ access: x[i]=store:contiguous
    } else if (active) {  //~ branch: divergent
        x[i] = v;  //~ access: x[i]=store:contiguous
    }
}
