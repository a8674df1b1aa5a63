// mvt.cl - PolyBench/GPU MVT, first kernel: x1 = x1 + A y1, one row of A per
// work-item, as PolyBench/GPU's mvt.cl writes it (x1[i] updated in the loop).
//
// Launch: 1-D, global = round_up(n, L), any local size L; items at or past n
//   return at once.
// Arguments: a is an n x n row-major float matrix, x1 and y1 have n floats.
//
// Across a SIMD group the lanes walk W rows side by side: a[i * n + j] is n
// floats apart from lane to lane (a run-time stride), while every lane reads
// its own row contiguously as j rises.

__kernel void mvt_kernel1(__global float *a, __global float *x1,
                          __global float *y1, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        for (int j = 0; j < n; j++) {
            x1[i] += a[i * n + j] * y1[j];
        }
    }
}
