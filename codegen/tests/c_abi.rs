//! The object + header pair from C and C++: two units compiled to objects
//! with their headers, a C program (gcc) and a C++ program (g++) including
//! both headers, linked against both objects, run, and checked.

use std::path::Path;
use std::process::Command;

use lanes_codegen::{compile_unit, header, host_can_run, target_spec, Options, TargetSpec};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;

const UNIT1: &str = r#"
typedef struct { float x; float y; } Vec2;
typedef struct Particle { Vec2 pos; float mass; int alive; } Particle;

__kernel void saxpy(int n, float a, __global const float *x, __global float *y)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__kernel void energy(__global const Particle *ps, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float e = 0.0f;
    if (ps[i].alive)
        e = 0.5f * ps[i].mass * (ps[i].pos.x * ps[i].pos.x + ps[i].pos.y * ps[i].pos.y);
    out[i] = e;
}

__kernel void scale4(__global float4 *v, float4 s, int n)
{
    int i = get_global_id(0);
    if (i < n)
        v[i] = v[i] * s;
}

__kernel void ids2d(__global int *out, int w)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[y * w + x] = 1000 * y + x + 100000 * (int)get_sub_group_size();
}
"#;

const UNIT2: &str = r#"
__kernel void fill(__global int *o, int v, int n)
{
    int i = get_global_id(0);
    if (i < n)
        o[i] = v + i;
}
"#;

/// Shared by the C and the C++ program (`NS` is `` or `lanes::`).
const MAIN_BODY: &str = r#"
    enum { N = 37 };
    static float x[N], y[N], y0[N], out[N], v[4 * N], v0[4 * N];
    static NS Particle ps[N];
    static int o[N], grid[23 * 3];
    int i;
    for (i = 0; i < N; i++) {
        x[i] = (float)i * 0.5f - 3.0f;
        y[i] = y0[i] = 1.0f / (float)(i + 1);
        ps[i].pos.x = (float)i;
        ps[i].pos.y = 2.0f;
        ps[i].mass = 0.25f * (float)(i % 5);
        ps[i].alive = i % 3 != 0;
    }
    for (i = 0; i < 4 * N; i++)
        v[i] = v0[i] = (float)i;
    NS lanes_range r = {1, {0, 0, 0}, {N + 3, 1, 1}, {0, 0, 0}};

    if (NS saxpy(N, 2.0f, x, y, &r) != 0) { puts("saxpy rc"); return 1; }
    for (i = 0; i < N; i++)
        if (y[i] != 2.0f * x[i] + y0[i]) { printf("saxpy %d %g\n", i, y[i]); return 1; }

    /* The same work split into two slices of work-groups. */
    r.local_size[0] = 8;
    for (i = 0; i < N; i++) y[i] = y0[i];
    if (NS saxpy_groups(N, 2.0f, x, y, &r, 0, 2) != 0) return 1;
    if (NS saxpy_groups(N, 2.0f, x, y, &r, 2, 1000) != 0) return 1;
    for (i = 0; i < N; i++)
        if (y[i] != 2.0f * x[i] + y0[i]) { printf("saxpy_groups %d\n", i); return 1; }

    /* Generic launch. */
    {
        int n = N; float a = -1.0f; const float *xp = x; float *yp = y;
        void *args[4];
        args[0] = &n; args[1] = &a; args[2] = &xp; args[3] = &yp;
        for (i = 0; i < N; i++) y[i] = y0[i];
        if (NS saxpy__launch(args, &r, 0, (size_t)-1) != 0) return 1;
        for (i = 0; i < N; i++)
            if (y[i] != -1.0f * x[i] + y0[i]) { printf("launch %d\n", i); return 1; }
    }

    /* Invalid ranges. */
    {
        NS lanes_range bad = r;
        bad.work_dim = 0;
        if (NS saxpy(N, 2.0f, x, y, &bad) != -1) { puts("work_dim 0"); return 1; }
        bad = r;
        bad.global_size[0] = 0;
        if (NS saxpy(N, 2.0f, x, y, &bad) != -1) { puts("size 0"); return 1; }
        bad = r;
        bad.global_offset[0] = (size_t)-2;
        if (NS saxpy(N, 2.0f, x, y, &bad) != -1) { puts("overflow"); return 1; }
        /* Ids must fit in an int: global ids end at 2^31 at most. */
        bad = r;
        bad.global_offset[0] = ((size_t)1 << 31) - 4;
        if (NS saxpy(N, 2.0f, x, y, &bad) != -1) { puts("ids beyond 2^31"); return 1; }
        bad = r;
        bad.global_size[0] = ((size_t)1 << 31) + 8;
        if (NS saxpy(N, 2.0f, x, y, &bad) != -1) { puts("size beyond 2^31"); return 1; }
        if (NS saxpy_groups(N, 2.0f, x, y, &bad, 0, 1) != -1) { puts("groups beyond 2^31"); return 1; }
    }

    if (NS energy(ps, out, N, &r) != 0) return 1;
    for (i = 0; i < N; i++) {
        float e = ps[i].alive ? 0.5f * ps[i].mass * (ps[i].pos.x * ps[i].pos.x + ps[i].pos.y * ps[i].pos.y) : 0.0f;
        if (out[i] != e) { printf("energy %d %g %g\n", i, out[i], e); return 1; }
    }

    {
        const float s[4] = {1.0f, -2.0f, 0.5f, 4.0f};
        if (NS scale4(v, s, N - 2, &r) != 0) return 1;
        for (i = 0; i < 4 * N; i++) {
            float want = i < 4 * (N - 2) ? v0[i] * s[i % 4] : v0[i];
            if (v[i] != want) { printf("scale4 %d\n", i); return 1; }
        }
    }

    {
        NS lanes_range r2 = {2, {0, 0, 0}, {23, 3, 1}, {5, 2, 0}};
        if (NS ids2d(grid, 23, &r2) != 0) return 1;
        for (i = 0; i < 23 * 3; i++) {
            int xx = i % 23, yy = i / 23;
            /* Sub-groups never span rows: a row of a group of 5 holds one
               partial SIMD group when W > 5. */
            int lx = xx % 5, size = 23 - (xx - lx) < 5 ? 23 - (xx - lx) : 5;
            int sg = size < W ? size : (lx / W < size / W ? W : size % W);
            if (grid[i] != 1000 * yy + xx + 100000 * sg) { printf("ids2d %d: %d\n", i, grid[i]); return 1; }
        }
    }

    NS lanes_range r3 = {1, {0, 0, 0}, {N, 1, 1}, {3, 1, 1}};
    if (NS fill(o, 7, N, &r3) != 0) return 1;
    for (i = 0; i < N; i++)
        if (o[i] != 7 + i) { printf("fill %d\n", i); return 1; }
    puts("OK");
    return 0;
"#;

fn pick_target() -> Option<TargetSpec> {
    ["avx512skx-x16", "avx2-i32x8", "sse4-i32x4", "neon-i32x4"]
        .into_iter()
        .map(|n| target_spec(n).unwrap())
        .find(host_can_run)
}

fn build(dir: &Path, name: &str, src: &str, spec: &TargetSpec) {
    let unit = check_text(
        &format!("{name}.cl"),
        None,
        src,
        &PreprocessOptions::default(),
        &RealFs,
    );
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let compiled = compile_unit(&unit.hir, spec, &Options::default())
        .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
    std::fs::write(dir.join(format!("{name}.o")), compiled.object().unwrap()).unwrap();
    let h = header(&unit.hir, &compiled, &format!("{name}_H"));
    assert!(
        h.contains(&format!("#ifndef {}_H", name.to_uppercase())),
        "{h}"
    );
    std::fs::write(dir.join(format!("{name}.h")), h).unwrap();
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok()
}

fn compile_and_run(dir: &Path, compiler: &str, file: &str, src: &str) {
    std::fs::write(dir.join(file), src).unwrap();
    let exe = dir.join(format!("{file}.exe"));
    let out = Command::new(compiler)
        .current_dir(dir)
        .args([
            "-O1",
            "-ffp-contract=off",
            "-Wall",
            "-Werror",
            file,
            "k1.o",
            "k2.o",
            "-o",
        ])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{compiler} failed:\n{}\n--- header ---\n{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(dir.join("k1.h")).unwrap()
    );
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && stdout.trim() == "OK",
        "{compiler} program failed ({:?}): {stdout}",
        run.status
    );
}

#[test]
fn c_and_cpp_programs_link_and_run() {
    let Some(spec) = pick_target() else {
        eprintln!("SKIPPED: no target this machine runs");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "k1", UNIT1, &spec);
    build(dir.path(), "k2", UNIT2, &spec);
    let w = spec.width;
    if have("gcc") {
        let c = format!(
            "#include <stdio.h>\n#include \"k1.h\"\n#include \"k2.h\"\n#define NS\n#define W {w}\n\
             int main(void) {{{MAIN_BODY}}}\n"
        );
        compile_and_run(dir.path(), "gcc", "main.c", &c);
    } else {
        eprintln!("SKIPPED: gcc not found");
    }
    if have("g++") {
        let cpp = format!(
            "#include <cstdio>\n#include \"k1.h\"\n#include \"k2.h\"\n#define NS lanes::\n#define W {w}\n\
             int main() {{{MAIN_BODY}}}\n"
        );
        compile_and_run(dir.path(), "g++", "main.cpp", &cpp);
    } else {
        eprintln!("SKIPPED: g++ not found");
    }
}
