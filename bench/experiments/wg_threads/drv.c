/* drv.c - matmul_tiled and histogram (bench/kernels) from `lanes build`
 * objects, the benchmark's sizes, run on 1 and on 2 pthreads that split the
 * work-groups [0, groups) into two contiguous slices, as lanes-bench does.
 * Prints, per round, the wall time of the whole call and each thread's own
 * time, so an imbalance or a slow-down of both threads shows.
 *
 *   L=target/release/lanes; X=/tmp/mt2/x
 *   $L build bench/kernels/matmul_tiled.cl --target avx2-i32x8 -o $X/matmul_tiled.o
 *   $L build bench/kernels/histogram.cl --target avx2-i32x8 -o $X/histogram.o
 *   gcc -O2 -pthread bench/experiments/wg_threads/drv.c $X/matmul_tiled.o $X/histogram.o -lm -o $X/drv
 *   $X/drv matmul 9; $X/drv hist 9
 *
 * CHUNK=k: the threads take k work-groups at a time from a shared counter
 * instead of one half each. TIMELINE=1: each 2-thread call's start and end
 * per thread and its CPU time. ALTERNATE=1: per round 1 thread, 2 threads
 * in halves, 2 threads in chunks of groups / 32, medians of each. With
 * `taskset -c 0 spin 30 &` (spin.c) one core is shared with another busy
 * process, as on a loaded machine.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct lanes_range {
    uint32_t work_dim;
    size_t global_offset[3], global_size[3], local_size[3];
} lanes_range;
int matmul_tiled_groups(const float *A, const float *B, float *C, int32_t n,
                        const lanes_range *r, size_t first, size_t last);
int histogram256_groups(const uint32_t *data, uint32_t *partial,
                        const lanes_range *r, size_t first, size_t last);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

enum { MATMUL, HIST } which;
static int n = 512;
static float *A, *B, *C;
static uint32_t *data, *partial;
static lanes_range r;
static size_t groups;

typedef struct { size_t first, last; double ms, start, cpu; int rc, on; } slice;

/* CHUNK=k: threads claim k work-groups at a time from a shared counter
 * (dynamic) instead of one contiguous slice each (static, the default). */
static size_t chunk;
static _Atomic size_t next_group;

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* PRIVATE_B=1: the thread that runs the second half reads its own copy of
 * B (matmul_tiled), so the two threads share no input. */
static float *B2;

static int groups_of(size_t first, size_t last) {
    if (which == MATMUL)
        return matmul_tiled_groups(A, B2 && first >= groups / 2 ? B2 : B, C, n, &r, first, last);
    return histogram256_groups(data, partial, &r, first, last);
}

static void *run(void *p) {
    slice *s = p;
    double t0 = now(), c0 = cpu_ms();
    s->start = t0;
    s->on = sched_getcpu();
    s->rc = 0;
    if (!chunk)
        s->rc = groups_of(s->first, s->last);
    else
        for (;;) {
            size_t g = atomic_fetch_add(&next_group, chunk);
            if (g >= groups || s->rc)
                break;
            s->rc = groups_of(g, g + chunk < groups ? g + chunk : groups);
        }
    s->ms = now() - t0;
    s->cpu = cpu_ms() - c0;
    return NULL;
}

static double cpu_total;

static double call(int threads, double *each) {
    slice s[2];
    pthread_t th[2];
    double t0 = now();
    next_group = 0;
    for (int t = 0; t < threads; t++) {
        s[t].first = groups * t / threads;
        s[t].last = groups * (t + 1) / threads;
        pthread_create(&th[t], NULL, run, &s[t]);
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
        if (s[t].rc) { printf("rc %d\n", s[t].rc); exit(1); }
        each[t] = s[t].ms;
        cpu_total += s[t].cpu;
    }
    double wall = now() - t0;
    if (getenv("TIMELINE") && threads == 2) {
        double lo = s[0].start > s[1].start ? s[0].start : s[1].start;
        double e0 = s[0].start + s[0].ms, e1 = s[1].start + s[1].ms;
        double hi = e0 < e1 ? e0 : e1, both = hi > lo ? hi - lo : 0;
        printf("  wall %.2f: thread 0 %.2f..%.2f (CPU %.2f, on %d), thread 1 %.2f..%.2f (CPU %.2f, "
               "on %d) ms, both running %.0f%% of the wall time\n",
               wall, s[0].start - t0, e0 - t0, s[0].cpu, s[0].on, s[1].start - t0, e1 - t0,
               s[1].cpu, s[1].on, 100 * both / wall);
    }
    return wall;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    which = argc > 1 && !strcmp(argv[1], "hist") ? HIST : MATMUL;
    int reps = argc > 2 ? atoi(argv[2]) : 9;
    if (reps > 64) reps = 64;
    memset(&r, 0, sizeof r);
    r.global_size[1] = r.global_size[2] = r.local_size[1] = r.local_size[2] = 1;
    if (which == MATMUL) {
        A = aligned_alloc(64, n * n * 4); B = aligned_alloc(64, n * n * 4);
        C = aligned_alloc(64, n * n * 4);
        for (int i = 0; i < n * n; i++) { A[i] = (i % 7) * 0.25f; B[i] = (i % 5) * 0.5f; }
        if (getenv("PRIVATE_B")) {
            B2 = aligned_alloc(64, n * n * 4);
            memcpy(B2, B, n * n * 4);
        }
        r.work_dim = 2; r.global_size[0] = r.global_size[1] = n;
        r.local_size[0] = r.local_size[1] = 16;
        groups = (n / 16) * (n / 16);
    } else {
        size_t L = 256, G = 1024, N = G * L * 32;
        data = aligned_alloc(64, N * 4); partial = aligned_alloc(64, G * 256 * 4);
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < N; i++) { x ^= x >> 12; x ^= x << 25; x ^= x >> 27; data[i] = (uint32_t)(x * 0x2545f4914f6cdd1dull); }
        r.work_dim = 1; r.global_size[0] = G * L; r.local_size[0] = L;
        groups = G;
    }
    if (getenv("ALTERNATE")) {
        /* Per round: 1 thread, 2 threads in halves, 2 threads taking chunks
         * of groups / 32 work-groups; medians (and minima) of each. */
        double t1[64], th[64], tc[64], e2[2];
        for (int k = -2; k < reps; k++) {
            chunk = 0;
            double x1 = call(1, e2), xh = call(2, e2);
            chunk = groups / 32 ? groups / 32 : 1;
            double xc = call(2, e2);
            if (k >= 0) { t1[k] = x1; th[k] = xh; tc[k] = xc; }
        }
        qsort(t1, reps, 8, cmp); qsort(th, reps, 8, cmp); qsort(tc, reps, 8, cmp);
        printf("%s: median (min) 1 thread %.2f (%.2f) ms | 2 threads, halves %.2f (%.2f) | "
               "2 threads, chunks %.2f (%.2f) | speed-up halves %.2f, chunks %.2f\n",
               which == MATMUL ? "matmul_tiled" : "histogram", t1[reps / 2], t1[0], th[reps / 2],
               th[0], tc[reps / 2], tc[0], t1[reps / 2] / th[reps / 2], t1[reps / 2] / tc[reps / 2]);
        return 0;
    }
    chunk = getenv("CHUNK") ? strtoul(getenv("CHUNK"), NULL, 10) : 0;
    double w1[64], w2[64], a[64], b[64], e[2], cpu1 = 0, cpu2 = 0;
    for (int k = 0; k < 2; k++) { call(1, e); call(2, e); }
    for (int k = 0; k < reps; k++) {
        cpu_total = 0;
        w1[k] = call(1, e);
        cpu1 += cpu_total;
        cpu_total = 0;
        w2[k] = call(2, e); a[k] = e[0]; b[k] = e[1];
        cpu2 += cpu_total;
    }
    printf("CPU time per call (all threads): 1 thread %.2f ms, 2 threads %.2f ms\n", cpu1 / reps, cpu2 / reps);
    qsort(w1, reps, 8, cmp); qsort(w2, reps, 8, cmp); qsort(a, reps, 8, cmp); qsort(b, reps, 8, cmp);
    printf("%s: median (min) 1 thread %.2f (%.2f) ms | 2 threads %.2f (%.2f) ms, thread 0 %.2f (%.2f), "
           "thread 1 %.2f (%.2f) | speed-up %.2f (%.2f)\n",
           which == MATMUL ? "matmul_tiled" : "histogram", w1[reps / 2], w1[0], w2[reps / 2], w2[0],
           a[reps / 2], a[0], b[reps / 2], b[0], w1[reps / 2] / w2[reps / 2], w1[0] / w2[0]);
    return 0;
}
