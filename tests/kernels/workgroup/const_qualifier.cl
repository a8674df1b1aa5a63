/*
 * const_qualifier.cl - `__const`, the GNU spelling of `const` that older
 * SDK kernels use for read-only pointer parameters and locals, next to
 * `__constant` tables. Polynomial evaluation (Horner) with coefficients
 * staged from __constant into __local memory by the first work-items.
 *
 * Launch: 1-D, global = round_up(n, L), local = L >= DEGREE + 1.
 * Arguments: x and y have n floats; coeffs has DEGREE + 1 floats (highest
 *   power first).
 */

#define DEGREE 7

__constant float scale_table[4] = { 1.0f, 0.5f, 0.25f, 0.125f };

// run: poly_eval --global 512 --local 64 --arg x=random:500 --arg y=zeros:500 --arg coeffs=random:8 --arg n=500
// run: poly_eval --global 512 --local 16 --arg x=random:500:-1:1 --arg y=zeros:500 --arg coeffs=random:8 --arg n=500
__kernel void poly_eval(__global __const float *x, __global float *y,
                        __constant float *coeffs, __const int n)
{
    __local float c[DEGREE + 1];

    __const int gid = get_global_id(0);  //~ shape: contiguous
    __const int lid = get_local_id(0);

    if (lid <= DEGREE)  //~ branch: uniform
        c[lid] = coeffs[lid];  //~ access: c[lid]=store:contiguous, coeffs[lid]=contiguous
    barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < n) {  //~ branch: divergent
        __const float v = x[gid];
        float acc = c[0];  //~ shape: varying
        for (int k = 1; k <= DEGREE; k++)  //~ loop: uniform
            acc = acc * v + c[k];  //~ access: c[k]=uniform
        y[gid] = acc * scale_table[gid & 3];  //~ access: scale_table[gid & 3]=gather //~ warning[L0202]
    }
}
