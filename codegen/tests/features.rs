//! Differential tests of constructs the corpus uses little or not at all:
//! switch, bool memory, saturating conversions, sub-group operations under
//! divergent control flow and in loops, float reductions and scans,
//! divisions and shifts in divergent code, every work-item query with
//! constant and run-time dimensions, per-lane private arrays, pointer
//! selects, vector arguments and 3-D launches. Each kernel runs through the
//! JIT and the interpreter on random inputs for every target this machine
//! runs (see `common::check_kernel`).

mod common;

use common::*;

const SRC: &str = r#"
__kernel void switches(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    int v = in[i];
    int r = 0;
    switch (v % 5) {
    case 0: r = 10; break;
    case 1: r = 20;
    case 2: r += 30; break;
    case 4: r = -v; break;
    default: r = v * v;
    }
    int u = 0;
    switch (n % 3) {          // uniform switch
    case 0: u = 1; break;
    case 1: u = 2; break;
    default: u = 3;
    }
    out[i] = r * 4 + u;
}

__kernel void bools(__global const int *in, __global uchar *flags, __global int *out, int n)
{
    int i = get_global_id(0);
    bool b[4];
    for (int k = 0; k < 4; k++)
        b[k] = (in[i + k] & 1) != 0;
    int c = 0;
    for (int k = 0; k < 4; k++)
        if (b[k]) c += 1 << k;
    flags[i] = (uchar)(c > 5);
    out[i] = c;
}

__kernel void conversions(__global const float *in, __global int *out,
                          __global uchar *small, __global float *back, int n)
{
    int i = get_global_id(0);
    float x = in[i] * 1.0e10f;
    out[i] = convert_int_sat(x);
    small[i] = convert_uchar_sat(in[i] * 200.0f);
    back[i] = (float)(int)(in[i] * 100.0f) + (float)(uint)(i * 3u);
}

__kernel void divergent_subgroups(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);
    int v = in[i];
    int r = 0;
    if (v > 7) {
        r = sub_group_reduce_add(v) + 1000 * sub_group_scan_exclusive_add(1);
        r += 100000 * (int)sub_group_any(v > 12);
        r += 200000 * (int)sub_group_all(v > 9);
        r += sub_group_reduce_max(v) * 3 + sub_group_reduce_min(v) * 5;
    } else {
        r = -sub_group_scan_inclusive_add(v) - 7 * sub_group_reduce_max(v);
    }
    for (int k = 0; k < v % 4; k++)
        r += sub_group_reduce_add(k + 1);
    out[i] = r;
}

__kernel void float_horizontal(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    float v = in[i];
    out[4 * i + 0] = sub_group_reduce_add(v);
    out[4 * i + 1] = sub_group_reduce_min(v) + sub_group_reduce_max(v);
    out[4 * i + 2] = sub_group_scan_inclusive_add(v);
    out[4 * i + 3] = sub_group_scan_exclusive_max(v) + sub_group_scan_inclusive_min(v);
}

__kernel void broadcasts(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);
    int v = in[i];
    uint lane = (uint)(n % 3);
    out[i] = sub_group_broadcast(v, lane) + sub_group_broadcast(v * 2, 0u);
}

__kernel void divisions(__global const int *in, __global int *out, __global uint *uout, int n)
{
    int i = get_global_id(0);
    int d = in[i] - 4;
    int r = 0;
    if (d != 0)
        r = (i * 37 - 100) / d + (i * 37 - 100) % d;
    uint ud = (uint)in[i] & 3u;
    uint q = 0;
    if (ud != 0u)
        q = ((uint)i * 1000u) / ud + ((uint)i * 1001u) % ud;
    int s = 0;
    if (n > 100)              // never: a uniform division by zero inside
        s = i / (n - n);
    out[i] = r + s + (in[i] << (n + 29)) + (i >> in[i]);
    uout[i] = q + ((uint)0x80000000u >> (uint)in[i]);
}

// Division and remainder by constants (negative, -1, 0) and by `1 << k`
// under divergent control, with dividends of both signs, INT_MIN and
// INT_MAX among them; shift amounts of every value (taken modulo the width).
__kernel void constant_divisions(__global const int *in, __global int *out,
                                 __global uint *uout, __global long *lout, uint n)
{
    int i = get_global_id(0);
    int v = in[i];
    int x = i % 5 == 0 ? INT_MIN : i % 5 == 1 ? INT_MAX : (v - 8) * 0x01010101 * (i + 1);
    uint ux = (uint)x;
    int k = v * 3 + i;
    int r = 0;
    uint ur = 0u;
    long lr = 0;
    if (v & 1) {
        r = x / 2 + x % 8 + x / -4 + x % -16 + x / 7 + x % -7;
        if (x != INT_MIN)
            r += x / -1 + x % -1;
        r += x / (1 << k) + x % (1 << k) + x / (1 << n) + x % (1 << n);
        ur = ux / 2u + ux % 8u + ux / 0xffffffffu + ux % 10u;
        ur += ux / (1u << k) + ux % (1u << k) + ux / (1u << n) + ux % (1u << n);
        long lx = (long)x * 3;
        lr = lx / (1u << k) + lx % (1u << k) + lx / (1L << k) + lx % (1L << (k + 40));
    } else if (n > 100) {
        r = x / 0;            // never: inactive lanes must not trap
    }
    out[i] = r;
    uout[i] = ur;
    lout[i] = lr;
}

__kernel void queries(__global long *out, int d)
{
    size_t gx = get_global_id(0), gy = get_global_id(1), gz = get_global_id(2);
    size_t w = get_global_size(0), h = get_global_size(1);
    size_t idx = (gz * h + gy) * w + gx;
    __global long *o = out + 16 * idx;
    o[0] = get_local_id(0) + 10 * get_local_id(1) + 100 * get_local_id(2);
    o[1] = get_group_id(0) + 10 * get_group_id(1) + 100 * get_group_id(2);
    o[2] = get_local_size(0) + 10 * get_local_size(1) + 100 * get_local_size(2);
    o[3] = get_num_groups(0) + 10 * get_num_groups(1) + 100 * get_num_groups(2);
    o[4] = get_global_offset(0) + 10 * get_work_dim();
    o[5] = get_sub_group_size() + 100 * get_sub_group_local_id();
    o[6] = get_num_sub_groups() + 100 * get_sub_group_id();
    o[7] = get_max_sub_group_size();
    o[8] = get_global_id(d) + 10 * get_local_size(d) + 100 * get_group_id(d + 1);
    o[9] = get_global_size(d + 5) + get_local_id(d + 7) + get_num_groups((uint)d - 3u);
    o[10] = get_local_id((int)(gx & 1));
    o[11] = get_global_id((uint)(gx % 3));
}

__kernel void private_arrays(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);
    int a[8];
    for (int k = 0; k < 8; k++)
        a[k] = in[(i + k) % 16] * (k + 1);
    int j = in[i] % 8;
    a[j] += 100;
    int s = 0;
    for (int k = 0; k <= j; k++)
        s += a[k];
    out[i] = s + a[(j + 3) % 8];
}

__kernel void pointer_select(__global const float *a, __global const float *b,
                             __global float *out, int n)
{
    int i = get_global_id(0);
    __global const float *p = (i & 1) ? a : b;
    __global const float *q = n > 5 ? a : b;
    out[i] = p[i] + q[i + 1] * 0.5f;
}

__kernel void vector_args(__global float *out, float4 s, int2 k, int n)
{
    int i = get_global_id(0);
    float4 v = (float4)(i, i + 1, i + 2, i + 3) * s;
    out[i] = v.x + v.y + v.z + v.w + (float)(k.x * i + k.y);
}

__kernel void early_exit_loop(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);
    int acc = 0;
    for (int k = 0; k < 20; k++) {
        int v = in[(i * 3 + k) % 64];
        if (v == 13) break;
        if (v > 10) continue;
        acc += v;
        if (acc > 40) { out[i] = -acc; return; }
    }
    out[i] = acc;
}

__kernel void doubles_and_longs(__global const double *in, __global double *out,
                                __global long *lo, int n)
{
    int i = get_global_id(0);
    double x = in[i];
    long l = (long)(x * 1.0e6) * 7L - (long)i;
    lo[i] = l / 3L + (l >> 5) + (long)(ulong)(uint)i;
    out[i] = x * x - (double)l + fmin(x, 0.25) + fabs(x);
}

__kernel void grid3d(__global const float *in, __global float *out)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t w = get_global_size(0), h = get_global_size(1);
    size_t i = (z * h + y) * w + x;
    float v = in[i];
    if (x > 0) v += in[i - 1];
    if (y > 0 && z > 0) v -= in[i - w * h - w];
    out[i] = v;
}
"#;

#[test]
fn features_match_the_interpreter() {
    let c = check_every_kernel("features.cl", SRC);
    eprintln!(
        "{} launches compared; notes:\n  {}",
        c.ran,
        c.skipped.join("\n  ")
    );
    assert!(
        c.failures.is_empty(),
        "{} failures:\n{}",
        c.failures.len(),
        c.failures.join("\n")
    );
}
