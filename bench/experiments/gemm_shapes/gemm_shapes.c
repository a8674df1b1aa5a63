/* gemm_shapes.c - the k loop of gemm's row body (4 rows x 2 SIMD groups of
 * 8 floats: 2 loads of B, 4 broadcasts of A, 8 multiply-adds) written with
 * intrinsics, at 512^3, in the orders and shapes bench/RESULTS.md
 * (2026-11-27 09:00) compares: work-groups of 64 x 4 row by row (as lanes
 * runs the benchmark), column by column, 6 rows x 2 groups, and software
 * prefetches of B 4-16 k ahead. Prints the best and the median of 21
 * rounds per variant (the variants alternate within each round).
 *
 *   clang-19 -O2 -mavx2 -mfma bench/experiments/gemm_shapes/gemm_shapes.c -o /tmp/gemm_shapes
 *   taskset -c 1 /tmp/gemm_shapes
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
#define N 512
#define BODY(R, G, PD) \
static void body_##R##_##G##_##PD(const float *A, const float *B, float *C, int i, int j) { \
    __m256 acc[R][G]; for (int r = 0; r < R; r++) for (int g = 0; g < G; g++) acc[r][g] = _mm256_setzero_ps(); \
    for (int k = 0; k < N; k++) { \
        if (PD) _mm_prefetch((const char *)&B[(k + PD) * N + j], _MM_HINT_T0); \
        __m256 b[G]; for (int g = 0; g < G; g++) b[g] = _mm256_loadu_ps(&B[k * N + j + 8 * g]); \
        for (int r = 0; r < R; r++) { __m256 a = _mm256_broadcast_ss(&A[(i + r) * N + k]); \
            for (int g = 0; g < G; g++) acc[r][g] = _mm256_fmadd_ps(a, b[g], acc[r][g]); } \
    } \
    for (int r = 0; r < R; r++) for (int g = 0; g < G; g++) { float *c = &C[(i + r) * N + j + 8 * g]; \
        _mm256_storeu_ps(c, _mm256_fmadd_ps(_mm256_set1_ps(1.5f), acc[r][g], _mm256_mul_ps(_mm256_set1_ps(0.5f), _mm256_loadu_ps(c)))); } \
}
BODY(4, 2, 0)
BODY(4, 2, 4)
BODY(4, 2, 8)
BODY(4, 2, 16)
BODY(6, 2, 0)
BODY(6, 2, 8)
typedef void (*bf)(const float *, const float *, float *, int, int);
int main(int argc, char **argv) {
    float *A = aligned_alloc(64, 4 * N * N), *B = aligned_alloc(64, 4 * N * N), *C = aligned_alloc(64, 4 * N * N);
    for (int i = 0; i < N * N; i++) { A[i] = (i % 17) * 0.1f; B[i] = (i % 13) * 0.2f; C[i] = (i % 7) * 0.3f; }
    const char *names[] = {"4x2", "4x2 pf4", "4x2 pf8", "4x2 pf16", "4x2 colmajor", "4x2 colmajor pf8", "6x2", "6x2 pf8", "4x2 wg 64x8 order"};
    bf fs[] = {body_4_2_0, body_4_2_4, body_4_2_8, body_4_2_16, body_4_2_0, body_4_2_8, body_6_2_0, body_6_2_8, body_4_2_0};
    enum { V = 9, RUNS = 21 }; double t[V][RUNS];
    for (int run = 0; run < RUNS; run++) for (int v = 0; v < V; v++) {
        bf f = fs[v];
        double s = now();
        if (v < 4) { for (int gy = 0; gy < N / 4; gy++) for (int gx = 0; gx < N / 64; gx++) for (int c = 0; c < 4; c++) f(A, B, C, gy * 4, gx * 64 + c * 16); }
        else if (v < 6) { for (int gx = 0; gx < N / 64; gx++) for (int gy = 0; gy < N / 4; gy++) for (int c = 0; c < 4; c++) f(A, B, C, gy * 4, gx * 64 + c * 16); }
        else if (v < 8) { for (int gy = 0; gy < N / 6 ; gy++) for (int j = 0; j < N; j += 16) f(A, B, C, gy * 6, j); }
        else { for (int gy = 0; gy < N / 8; gy++) for (int gx = 0; gx < N / 64; gx++) for (int c = 0; c < 4; c++) for (int r = 0; r < 2; r++) f(A, B, C, gy * 8 + 4 * r, gx * 64 + c * 16); }
        t[v][run] = now() - s;
    }
    for (int v = 0; v < V; v++) { double sc = (v == 6 || v == 7) ? 510.0 / 512 : 1; qsort(t[v], RUNS, sizeof(double), cmpd); printf("%-20s min %.2f ms %.1f GFLOP/s  median %.2f ms\n", names[v], t[v][0] * 1e3 / sc, sc * 2.0 * N * N * N / t[v][0] * 1e-9, t[v][RUNS/2] * 1e3 / sc); }
}
