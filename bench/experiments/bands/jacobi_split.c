/* jacobi_2d: lanes' object against hand-edited copies of its assembly
 * (jacobi_split.py) and gcc's loop, interleaved in one process, thread CPU
 * time, medians (bench/RESULTS.md, 2026-11-27 22:30-23:06, branch `jac4`).
 * Arguments: buffer offset in a page (16: as malloc gives), n, rounds. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
typedef struct lanes_range { uint32_t work_dim; size_t global_offset[3]; size_t global_size[3]; size_t local_size[3]; } lanes_range;
int jacobi_2d_step(const float *A, float *B, int n, const lanes_range *r);
int jac_S(const float *A, float *B, int n, const lanes_range *r);
int jac_R(const float *A, float *B, int n, const lanes_range *r);
void jacobi_c(const float *A, float *B, int n, int lo, int hi);
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int cmpd(const void *x, const void *y) { double a = *(double *)x, b = *(double *)y; return a < b ? -1 : a > b; }
/* The edited copies also write the boundary columns: compare the interior. */
static int inner_eq(const float *X, const float *Y, int n)
{
    for (int i = 1; i < n - 1; i++)
        if (memcmp(X + (size_t)i * n + 1, Y + (size_t)i * n + 1, (size_t)(n - 2) * 4))
            return 0;
    return 1;
}
int main(int argc, char **argv)
{
    int off = argc > 1 ? atoi(argv[1]) : 16, n = argc > 2 ? atoi(argv[2]) : 4096;
    int R = argc > 3 ? atoi(argv[3]) : 21;
    if (R > 101) R = 101;
    size_t bytes = (size_t)n * n * 4 + 8192;
    float *A = (float *)((char *)aligned_alloc(4096, bytes) + off);
    float *B = (float *)((char *)aligned_alloc(4096, bytes) + off);
    float *B2 = (float *)((char *)aligned_alloc(4096, bytes) + off);
    for (size_t i = 0; i < (size_t)n * n; i++) { A[i] = (i % 97) * 0.01f; B[i] = B2[i] = A[i]; }
    lanes_range r = {2, {0, 0, 0}, {n, n, 1}, {64, 4, 1}};
    jacobi_2d_step(A, B, n, &r);
    jac_S(A, B2, n, &r); if (!inner_eq(B, B2, n)) { printf("MISMATCH S\n"); return 1; }
    memset(B2, 0, (size_t)n * n * 4);
    jac_R(A, B2, n, &r); if (!inner_eq(B, B2, n)) { printf("MISMATCH R\n"); return 1; }
    memset(B2, 0, (size_t)n * n * 4);
    jacobi_c(A, B2, n, 0, n); if (!inner_eq(B, B2, n)) { printf("MISMATCH gcc\n"); return 1; }
    enum { K = 4 };
    double tm[K][101];
    const char *nm[] = {"lanes", "no guards (S)", "S, B in a reg (R)", "gcc"};
    for (int k = 0; k < R; k++)
        for (int v0 = 0; v0 < K; v0++) {
            int v = (v0 + k) % K;
            double t = cpu();
            if (v == 0) jacobi_2d_step(A, B, n, &r);
            else if (v == 1) jac_S(A, B, n, &r);
            else if (v == 2) jac_R(A, B, n, &r);
            else jacobi_c(A, B, n, 0, n);
            tm[v][k] = cpu() - t;
        }
    for (int v = 0; v < K; v++) {
        qsort(tm[v], R, sizeof(double), cmpd);
        printf("%-18s median %.3f min %.3f ms\n", nm[v], tm[v][R / 2], tm[v][0]);
    }
    return 0;
}
