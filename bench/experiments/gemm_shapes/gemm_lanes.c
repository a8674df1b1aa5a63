/* gemm_lanes.c - times a `lanes build` object of bench/kernels/gemm.cl at
 * N x N x N (nj may differ: a row length that is not a power of two) with a
 * given local size; prints a checksum of C (to compare two objects' results
 * bit for bit) and the best of 25 runs.
 *
 *   L=target/release/lanes; cd /tmp/x
 *   $L build $OLDPWD/bench/kernels/gemm.cl --target avx2-i32x8 -o g.o --header g.h
 *   gcc -O2 -I. $OLDPWD/bench/experiments/gemm_shapes/gemm_lanes.c g.o -o gemm_lanes
 *   taskset -c 1 ./gemm_lanes 512 64 4        # N, local size
 *   taskset -c 1 ./gemm_lanes 512 64 4 576    # nj = 576
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "g.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    int N = atoi(argv[1]), lx = atoi(argv[2]), ly = atoi(argv[3]), NJ = argc > 4 ? atoi(argv[4]) : N;
    float *A = aligned_alloc(64, 4 * N * N), *B = aligned_alloc(64, 4 * N * NJ), *C = aligned_alloc(64, 4 * N * NJ);
    for (int i = 0; i < N * N; i++) A[i] = (i % 17) * 0.1f;
    for (int i = 0; i < N * NJ; i++) { B[i] = (i % 13) * 0.2f; C[i] = (i % 7) * 0.3f; }
    lanes_range r1 = {2, {0, 0, 0}, {NJ, N, 1}, {lx, ly, 1}};
    double t[25];
    for (int run = 0; run < 25; run++) { double s = now(); gemm(N, NJ, N, 1.5f, 0.5f, C, A, B, &r1); t[run] = now() - s; }
    double cs = 0; for (int q = 0; q < N * NJ; q++) cs += C[q]; printf("checksum %.6e\n", cs);
    qsort(t, 25, sizeof(double), cmpd);
    printf("N=%d NJ=%d local %dx%d: %.2f ms %.1f GFLOP/s\n", N, NJ, lx, ly, t[0] * 1e3, 2.0 * N * NJ * N / t[0] * 1e-9);
}
