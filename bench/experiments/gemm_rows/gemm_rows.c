/* gemm_rows.c - bench/kernels/gemm.cl (local size 64 x 4, as the benchmark
 * runs it) against gemm4.cl (the same product with a register block of four
 * rows per work-item, written by hand), and gcc's bench/kernels/c/gemm.c;
 * 512 x 512 x 512, nine runs each, medians. gemm4's result must equal
 * gemm's bit for bit (each element's sum in the same order).
 *
 *   L=target/release/lanes; D=bench/experiments/gemm_rows; cd /tmp/x
 *   $L build $D/../../kernels/gemm.cl --target avx2-i32x8 -o g.o --header g.h
 *   $L build $D/gemm4.cl --target avx2-i32x8 -o g4.o --header g4.h
 *   sed 's/^void gemm(/void gemm_c(/' $D/../../kernels/c/gemm.c > gc.c
 *   gcc -O3 -march=native -c gc.c && gcc -O2 -I. $D/gemm_rows.c g.o g4.o gc.o -o gemm_rows
 *   taskset -c 1 ./gemm_rows
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "g.h"
#include "g4.h"
void gemm_c(int ni, int nj, int nk, float alpha, float beta, float *C, const float *A,
            const float *B, int lo, int hi);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
#define N 512
int main(int argc, char **argv) {
    int lx = argc > 1 ? atoi(argv[1]) : 64;
    float *A = malloc(4 * N * N), *B = malloc(4 * N * N), *C = malloc(4 * N * N), *C0 = malloc(4 * N * N), *R = malloc(4 * N * N);
    for (int i = 0; i < N * N; i++) { A[i] = (i % 17) * 0.1f; B[i] = (i % 13) * 0.2f; C0[i] = (i % 7) * 0.3f; }
    lanes_range r1 = {2, {0, 0, 0}, {N, N, 1}, {64, 4, 1}};
    lanes_range r4 = {2, {0, 0, 0}, {N, N / 4, 1}, {lx, 1, 1}};
    double t[3][9];
    for (int run = 0; run < 9; run++) {
        for (int v = 0; v < 3; v++) {
            memcpy(C, C0, 4 * N * N);
            double s = now();
            if (v == 0) gemm(N, N, N, 1.5f, 0.5f, C, A, B, &r1);
            else if (v == 1) gemm4(N, N, N, 1.5f, 0.5f, C, A, B, &r4);
            else gemm_c(N, N, N, 1.5f, 0.5f, C, A, B, 0, N);
            t[v][run] = now() - s;
            if (v == 0) memcpy(R, C, 4 * N * N);
            else if (v == 1 && memcmp(R, C, 4 * N * N)) { printf("gemm4 differs\n"); }
        }
    }
    const char *names[] = {"gemm (64x4)", "gemm4 (4 rows/item)", "gcc"};
    for (int v = 0; v < 3; v++) {
        qsort(t[v], 9, sizeof(double), cmpd);
        printf("%-22s median %.2f ms  %.1f GFLOP/s\n", names[v], t[v][4] * 1e3, 2.0 * N * N * N / t[v][4] * 1e-9);
    }
}
