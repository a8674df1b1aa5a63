/* fma_peak.c - the single-core FMA peak of an AVX2 + FMA machine, the
 * reference bench/RESULTS.md gives gemm's GFLOP/s as a share of.
 *
 * Ten independent chains of 256-bit multiply-adds (more than latency x
 * ports = 4 x 2 on Zen 3 and Skylake), no memory operands; a multiply-add
 * counts as 2 floating-point operations on 8 floats. Prints the best and
 * the median of 15 runs of 2 x 10^7 multiply-adds per chain.
 *
 *   gcc -O2 -mavx2 -mfma -o /tmp/fma_peak bench/peak/fma_peak.c
 *   taskset -c 1 /tmp/fma_peak
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHAINS 10
#define ITERS 20000000L
#define RUNS 15

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    double gflops[RUNS];
    float sink = 0.0f;
    for (int r = 0; r < RUNS; r++) {
        __m256 a0 = _mm256_set1_ps(0.0f), a1 = _mm256_set1_ps(1.0f), a2 = _mm256_set1_ps(2.0f),
               a3 = _mm256_set1_ps(3.0f), a4 = _mm256_set1_ps(4.0f), a5 = _mm256_set1_ps(5.0f),
               a6 = _mm256_set1_ps(6.0f), a7 = _mm256_set1_ps(7.0f), a8 = _mm256_set1_ps(8.0f),
               a9 = _mm256_set1_ps(9.0f);
        const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
        double t0 = now();
        for (long i = 0; i < ITERS; i++) {
#define STEP(x) x = _mm256_fmadd_ps(x, m, c)
            STEP(a0); STEP(a1); STEP(a2); STEP(a3); STEP(a4);
            STEP(a5); STEP(a6); STEP(a7); STEP(a8); STEP(a9);
            /* Keeps the loop: the chains are live in registers. */
            __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4));
            __asm__ volatile("" : "+x"(a5), "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9));
        }
        double t = now() - t0;
        gflops[r] = 2.0 * 8 * CHAINS * ITERS / t * 1e-9;
        __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                 _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
        sink += _mm256_cvtss_f32(_mm256_add_ps(s, _mm256_add_ps(a8, a9)));
    }
    qsort(gflops, RUNS, sizeof gflops[0], by_value);
    printf("FMA peak, one thread: median %.1f GFLOP/s, best %.1f GFLOP/s (%d runs; checksum %g)\n",
           gflops[RUNS / 2], gflops[RUNS - 1], RUNS, sink);
    return 0;
}
