//! Work-group kernels called from two C threads at once: the benchmark's
//! matmul_tiled (two `__local` tiles, barriers) and histogram (`__local`
//! bins with atomics), built for every target this machine runs, linked
//! into a C program that runs the NDRange once on one thread
//! (`k_groups(0, groups)`) and then on two pthreads that start together and
//! take chunks of a few work-groups from a shared counter (as lanes-bench
//! does), so both threads run work-groups, barriers and `__local` memory at
//! the same time through many calls. Each thread's work-group memory must be
//! its own: the two-thread results must equal the one-thread results bit
//! for bit, and the histogram a plain C count.

use std::path::Path;
use std::process::Command;

use lanes_codegen::{compile_unit, header, host_can_run, target_spec, Options};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;

const MATMUL: &str = include_str!("../../bench/kernels/matmul_tiled.cl");
const HISTOGRAM: &str = include_str!("../../bench/kernels/histogram.cl");

const MAIN: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm.h"
#include "hist.h"

enum { N = 96, T = 16, HG = 40, HL = 64, ITEMS = 32 };
static float *A, *B, *C;
static uint32_t *data, *partial;
static lanes_range rm, rh;
static int which; /* 0 matmul, 1 histogram */
static size_t groups, chunk;
static _Atomic size_t next;
static pthread_barrier_t start;
static int failed;

static int run(size_t first, size_t last) {
    return which == 0 ? matmul_tiled_groups(A, B, C, N, &rm, first, last)
                      : histogram256_groups(data, partial, &rh, first, last);
}

static void *worker(void *unused) {
    (void)unused;
    pthread_barrier_wait(&start);
    for (;;) {
        size_t g = atomic_fetch_add(&next, chunk);
        if (g >= groups) break;
        if (run(g, g + chunk < groups ? g + chunk : groups) != 0) failed = 1;
    }
    return NULL;
}

static int two_threads(void) {
    pthread_t t[2];
    next = 0;
    pthread_barrier_init(&start, NULL, 2);
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    return failed;
}

int main(void) {
    memset(&rm, 0, sizeof rm);
    rm.work_dim = 2; rm.global_size[0] = rm.global_size[1] = N; rm.global_size[2] = 1;
    rm.local_size[0] = rm.local_size[1] = T; rm.local_size[2] = 1;
    memset(&rh, 0, sizeof rh);
    rh.work_dim = 1; rh.global_size[0] = HG * HL; rh.global_size[1] = rh.global_size[2] = 1;
    rh.local_size[0] = HL; rh.local_size[1] = rh.local_size[2] = 1;

    A = malloc(N * N * 4); B = malloc(N * N * 4); C = malloc(N * N * 4);
    float *C1 = malloc(N * N * 4);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < N * N; i++) {
        x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
        A[i] = (float)(x % 1000) / 250.0f - 2.0f;
        B[i] = (float)((x >> 20) % 1000) / 500.0f - 1.0f;
    }
    size_t hn = (size_t)HG * HL * ITEMS;
    data = malloc(hn * 4); partial = malloc(HG * 256 * 4);
    uint32_t *p1 = malloc(HG * 256 * 4), *count = calloc(HG * 256, 4);
    for (size_t i = 0; i < hn; i++) {
        x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
        /* Few distinct values, so lanes of one SIMD group often hit one bin. */
        data[i] = (uint32_t)(x >> 32) % 7 * 37 + (uint32_t)(x & 0xff00);
    }
    for (size_t g = 0; g < HG; g++)
        for (size_t i = 0; i < HL * ITEMS; i++) count[g * 256 + (data[g * HL * ITEMS + i] & 255)]++;

    /* One thread, the whole range. */
    which = 0; groups = (N / T) * (N / T);
    if (run(0, groups) != 0) { puts("matmul rc"); return 1; }
    memcpy(C1, C, N * N * 4);
    which = 1; groups = HG;
    if (run(0, groups) != 0) { puts("histogram rc"); return 1; }
    memcpy(p1, partial, HG * 256 * 4);
    if (memcmp(p1, count, HG * 256 * 4)) { puts("histogram: one thread differs from the C count"); return 1; }

    /* Two threads at once, chunks of 1, 2 and 3 work-groups, several times. */
    for (int rep = 0; rep < 20; rep++) {
        chunk = 1 + rep % 3;
        which = 0; groups = (N / T) * (N / T);
        memset(C, 0xff, N * N * 4);
        if (two_threads()) { puts("matmul rc on two threads"); return 1; }
        if (memcmp(C, C1, N * N * 4)) { printf("matmul: two threads differ (chunk %zu)\n", chunk); return 1; }
        which = 1; groups = HG;
        memset(partial, 0xff, HG * 256 * 4);
        if (two_threads()) { puts("histogram rc on two threads"); return 1; }
        if (memcmp(partial, p1, HG * 256 * 4)) { printf("histogram: two threads differ (chunk %zu)\n", chunk); return 1; }
    }
    puts("OK");
    return 0;
}
"#;

fn build(dir: &Path, name: &str, src: &str, spec: &lanes_codegen::TargetSpec) {
    let opts = PreprocessOptions {
        width: spec.width,
        ..Default::default()
    };
    let unit = check_text(&format!("{name}.cl"), None, src, &opts, &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let compiled = compile_unit(&unit.hir, spec, &Options::default())
        .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
    std::fs::write(dir.join(format!("{name}.o")), compiled.object().unwrap()).unwrap();
    let h = header(&unit.hir, &compiled, &format!("{}_H", name.to_uppercase()));
    std::fs::write(dir.join(format!("{name}.h")), h).unwrap();
}

#[test]
fn work_group_kernels_on_two_threads_at_once_equal_one_thread() {
    if Command::new("gcc").arg("--version").output().is_err() {
        eprintln!("SKIPPED: gcc not found");
        return;
    }
    let mut ran = 0;
    for target in ["avx512skx-x16", "avx2-i32x8", "sse4-i32x4", "neon-i32x4"] {
        let spec = target_spec(target).unwrap();
        if !host_can_run(&spec) {
            eprintln!("SKIPPED: {target} (this CPU cannot run it)");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), "mm", MATMUL, &spec);
        build(dir.path(), "hist", HISTOGRAM, &spec);
        std::fs::write(dir.path().join("main.c"), MAIN).unwrap();
        let exe = dir.path().join("main");
        let out = Command::new("gcc")
            .current_dir(dir.path())
            .args([
                "-O1", "-Wall", "-Werror", "-pthread", "main.c", "mm.o", "hist.o", "-lm", "-o",
            ])
            .arg(&exe)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{target}: gcc failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = Command::new(&exe).output().unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && stdout.trim() == "OK",
            "{target}: {:?}: {stdout}",
            run.status
        );
        ran += 1;
    }
    assert!(ran > 0, "no target this machine runs");
}
