// strided_records.cl - work-items reading and writing records of 2, 3, 4
// and 8 elements: NVIDIA SDK DotProduct (a[4 * i + k]), float4 and float2
// elements, struct fields, vload4/vstore4, a stride-8 load of two fields,
// a store leaving one field of each record unwritten, and strided loads
// under a divergent branch.
//
// Launch: 1-D, one work-item per record: global = round_up(n); ids >= n
//   return.
// Arguments: n records in each buffer (dot_product: a and b have 4 * n
//   floats, c has n; pairs: in has 2 * n - 1 floats, out 2 * n;
//   every8: in has 8 * n floats, out n; holes: out has 3 * n ints).

__kernel void dot_product(__global const float *a, __global const float *b,
                          __global float *c, int iNumElements)
{
    int iGID = get_global_id(0);
    if (iGID >= iNumElements)
        return;
    int iInOffset = iGID << 2;
    c[iGID] = a[iInOffset] * b[iInOffset]  //~ warning[L0204]
            + a[iInOffset + 1] * b[iInOffset + 1]  //~ warning[L0204]
            + a[iInOffset + 2] * b[iInOffset + 2]  //~ warning[L0204]
            + a[iInOffset + 3] * b[iInOffset + 3];  //~ warning[L0204]
}

__kernel void scale_float4(__global const float4 *in, __global float4 *out,
                           float s, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float4 v = in[i];
    out[i] = v * s + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
}

__kernel void swap_float2(__global const float2 *in, __global float2 *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = in[i].yx;
}

typedef struct {
    float x;
    float y;
    float z;
} Point;

__kernel void point_norms(__global const Point *p, __global Point *unit,
                          __global float *len, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float x = p[i].x;  //~ warning[L0204]
    float y = p[i].y;  //~ warning[L0204]
    float z = p[i].z;  //~ warning[L0204]
    float l = sqrt(x * x + y * y + z * z) + 1.0f;
    len[i] = l;
    unit[i].x = x / l;  //~ warning[L0204]
    unit[i].y = y / l;  //~ warning[L0204]
    unit[i].z = z / l;  //~ warning[L0204]
}

__kernel void vload_sum(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int4 v = vload4(i, in);
    vstore4(v + (int4)(v.w, v.z, v.y, v.x), i, out);
}

// Reads only the first element of each pair (the last pair's second
// element is not in the buffer) and writes both.
__kernel void pairs(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float re = in[2 * i];  //~ warning[L0204]
    out[2 * i] = re;  //~ warning[L0204]
    out[2 * i + 1] = -re;  //~ warning[L0204]
}

__kernel void every8(__global const double *in, __global double *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = in[8 * i] - in[8 * i + 5];  //~ warning[L0204]
}

// Field 2 of each record belongs to someone else: never written here.
__kernel void holes(__global const short *in, __global int *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    out[3 * i] = in[i];  //~ warning[L0204]
    out[3 * i + 1] = in[i] * 2;  //~ warning[L0204]
}

__kernel void divergent_fields(__global const float4 *in, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float r = 0.0f;
    if (in[i].w > 0.0f)  //~ warning[L0204]
        r = in[i].x + in[i].y * in[i].z;  //~ warning[L0204]
    out[i] = r;
}
