"""`lanes build` and `lanes run` on the real binary: objects linked into C
and C++ programs, every emit format, errors that leave no file behind, and
`lanes run --verify` against the scalar interpreter."""

import json
import os
import pathlib
import shutil
import subprocess
import time

import pytest


def run(cmd, cwd=None, timeout=300):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=timeout)


def build(lanes, *args, cwd=None):
    return run([lanes, "build", *args], cwd=cwd)


def host_has_avx512():
    try:
        return "avx512f" in pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


SAXPY_MAIN = r"""
#include <stdio.h>
#include "saxpy.h"
int main(void) {
    enum { N = 1003 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }
    lanes_range r = { 1, {0, 0, 0}, {N, 1, 1}, {0, 0, 0} };
    int err = saxpy(N, 2.0f, x, y, &r);
    if (err) { printf("error %d\n", err); return 2; }
    for (int i = 0; i < N; i++)
        if (y[i] != 2.0f * (float)i + 1.0f) { printf("bad y[%d] = %g\n", i, y[i]); return 1; }
    printf("ok %g\n", y[N - 1]);
    return 0;
}
"""

SAXPY_MAIN_CPP = r"""
#include <cstdio>
#include <vector>
#include "saxpy.h"
int main() {
    const int n = 77;
    std::vector<float> x(n, 3.0f), y(n, 1.0f);
    lanes::lanes_range r = { 1, {0, 0, 0}, {(size_t)n, 1, 1}, {5, 1, 1} };
    // groups [0, last): run them in two slices, as two threads would
    size_t groups = (n + 4) / 5;
    if (lanes::saxpy_groups(n, 0.5f, x.data(), y.data(), &r, 0, groups / 2)) return 2;
    if (lanes::saxpy_groups(n, 0.5f, x.data(), y.data(), &r, groups / 2, groups)) return 2;
    for (int i = 0; i < n; i++)
        if (y[i] != 2.5f) { std::printf("bad y[%d] = %g\n", i, y[i]); return 1; }
    std::printf("ok\n");
    return 0;
}
"""


def saxpy_signature(root):
    text = (root / "examples/saxpy.cl").read_text()
    assert "saxpy(" in text
    return text


@pytest.mark.parametrize("target", ["sse4-i32x4", "avx2-i32x8", "host"])
def test_object_links_into_c(lanes, root, tmp_path, target):
    saxpy_signature(root)
    if target != "host" and shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    proc = build(lanes, str(root / "examples/saxpy.cl"), "-o", str(tmp_path / "saxpy.o"),
                 "--header", str(tmp_path / "saxpy.h"), "--target", target)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "main.c").write_text(SAXPY_MAIN)
    cc = run(["gcc", "-O2", "-I", str(tmp_path), str(tmp_path / "main.c"), str(tmp_path / "saxpy.o"),
              "-o", str(tmp_path / "main")])
    assert cc.returncode == 0, cc.stderr
    out = run([str(tmp_path / "main")])
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("ok 2005")


def test_object_links_into_cpp_with_namespace(lanes, root, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not found")
    proc = build(lanes, str(root / "examples/saxpy.cl"), "-o", str(tmp_path / "saxpy.o"),
                 "--header", str(tmp_path / "saxpy.h"))
    assert proc.returncode == 0, proc.stderr
    header = (tmp_path / "saxpy.h").read_text()
    assert 'extern "C"' in header and "namespace lanes" in header
    (tmp_path / "main.cpp").write_text(SAXPY_MAIN_CPP)
    cc = run(["g++", "-O2", "-I", str(tmp_path), str(tmp_path / "main.cpp"), str(tmp_path / "saxpy.o"),
              "-o", str(tmp_path / "main")])
    assert cc.returncode == 0, cc.stderr
    out = run([str(tmp_path / "main")])
    assert out.returncode == 0, out.stdout + out.stderr


def test_acceptance_convolution_avx512_uses_zmm_and_k_masks(lanes, root, tmp_path):
    proc = build(lanes, str(root / "examples/convolution.cl"), "-o", str(tmp_path / "conv.o"),
                 "--header", str(tmp_path / "conv.h"), "--target", "avx512skx-x16")
    assert proc.returncode == 0, proc.stderr
    objdump = shutil.which("llvm-objdump-19") or shutil.which("objdump")
    if objdump is None:
        pytest.skip("no objdump")
    dis = run([objdump, "-d", str(tmp_path / "conv.o")]).stdout
    assert "zmm" in dis
    assert any(f"%k{i}" in dis for i in range(1, 8))
    if host_has_avx512():
        (tmp_path / "main.c").write_text((root / "examples/c/convolution_main.c").read_text())
        cc = run(["gcc", "-O2", "-I", str(tmp_path), str(tmp_path / "main.c"), str(tmp_path / "conv.o"),
                  "-o", str(tmp_path / "conv"), "-lm"])
        assert cc.returncode == 0, cc.stderr
        out = run([str(tmp_path / "conv")])
        assert out.returncode == 0, out.stdout + out.stderr
        assert "matches the C loop" in out.stdout


@pytest.mark.parametrize("emit,needle", [
    ("asm", "saxpy"),
    ("llvm", "define"),
    ("vir", "vector IR of `saxpy`"),
])
def test_text_formats(lanes, root, emit, needle):
    proc = build(lanes, str(root / "examples/saxpy.cl"), "--emit", emit)
    assert proc.returncode == 0, proc.stderr
    assert needle in proc.stdout


def test_vir_shows_shapes_and_masks(lanes, root):
    proc = build(lanes, str(root / "examples/convolution.cl"), "--emit", "vir", "--target", "avx2-i32x8")
    assert proc.returncode == 0, proc.stderr
    assert "W = 8" in proc.stdout
    assert "lanes.active" in proc.stdout
    assert "sub_group.any" in proc.stdout  # the divergent loop runs while any lane is live
    assert ": contiguous" in proc.stdout or ": strided(1)" in proc.stdout


def test_bad_target_writes_nothing(lanes, root, tmp_path):
    out = tmp_path / "x.o"
    proc = build(lanes, str(root / "examples/saxpy.cl"), "-o", str(out), "--target", "avx9000")
    assert proc.returncode != 0
    assert "avx9000" in proc.stderr and "avx2-i32x8" in proc.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_unsupported_feature_writes_nothing(lanes, root, tmp_path):
    src = tmp_path / "bad.cl"
    src.write_text("__kernel void k(__global int *a) {\n"
                   "    int i = get_global_id(0);\n"
                   "    if (i == 0) printf(\"%d\\n\", a[i]);\n}\n")
    out = tmp_path / "bad.o"
    header = tmp_path / "bad.h"
    proc = build(lanes, str(src), "-o", str(out), "--header", str(header))
    assert proc.returncode == 1
    assert "error[L0905]" in proc.stderr and "bad.cl:3:17" in proc.stderr, proc.stderr
    assert not out.exists() and not header.exists()


# Features not compiled yet: `check` analyses them, `build` refuses the first
# use with its code-generation error and writes nothing.
@pytest.mark.parametrize("code,line,col,body", [
    ("L0905", 4, 9, "    int i = get_global_id(0);\n    if (i == 0)\n        printf(\"%d\\n\", a[i]);\n"),
])
def test_work_group_feature_is_a_build_error(lanes, tmp_path, code, line, col, body):
    src = tmp_path / "wg.cl"
    src.write_text("__kernel void k(__global int *a) {\n" + body + "}\n")
    check = run([lanes, "check", str(src)])
    assert check.returncode == 0, check.stderr
    out = tmp_path / "wg.o"
    header = tmp_path / "wg.h"
    proc = build(lanes, str(src), "-o", str(out), "--header", str(header))
    assert proc.returncode == 1
    assert f"error[{code}]" in proc.stderr and f"wg.cl:{line}:{col}" in proc.stderr, proc.stderr
    assert not out.exists() and not header.exists()


STRUCT_MAIN = r"""
#include <stdio.h>
#include "s.h"
int main(void) {
    float out[37];
    Point p = { 1.5f, 2.0f };
    lanes_range r = { 1, {0, 0, 0}, {37, 1, 1}, {16, 1, 1} };
    if (shift(out, &p, &r)) return 2;
    for (int i = 0; i < 37; i++)
        if (out[i] != 1.5f + 2.0f * i) { printf("bad out[%d] = %g\n", i, out[i]); return 1; }
    printf("ok\n");
    return 0;
}
"""


def test_struct_argument_is_passed_by_pointer(lanes, root, tmp_path):
    src = root / "tests/kernels/valid/struct_kernel_arg.cl"
    proc = build(lanes, str(src), "-o", str(tmp_path / "s.o"), "--header", str(tmp_path / "s.h"))
    assert proc.returncode == 0, proc.stderr
    header = (tmp_path / "s.h").read_text()
    assert "const Point *p" in header
    (tmp_path / "main.c").write_text(STRUCT_MAIN)
    cc = run(["gcc", "-O2", "-I", str(tmp_path), str(tmp_path / "main.c"), str(tmp_path / "s.o"),
              "-o", str(tmp_path / "main")])
    assert cc.returncode == 0, cc.stderr
    out = run([str(tmp_path / "main")])
    assert out.returncode == 0, out.stdout + out.stderr
    verified = run([lanes, "run", str(src), "--global", "37", "--arg", "p=1.5,2", "--verify"])
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "verify: ok" in verified.stdout
    assert "out = [1.5, 3.5, 5.5" in verified.stdout


def test_run_verify_convolution(lanes, root):
    proc = run([lanes, "run", str(root / "examples/convolution.cl"), "--global", "1000",
                "--arg", "input=random:1000", "--arg", "output=zeros:1000",
                "--arg", "stencil=random:7", "--arg", "width=1000", "--arg", "stencilWidth=7",
                "--verify", "--repeat", "3"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verify: ok" in proc.stdout
    assert "median" in proc.stdout


def test_run_verify_black_scholes(lanes, root):
    # put = x e^{-rt} (1 - N(d2)) - s (1 - N(d1)) cancels: a few ULP of
    # exp and log are 1e-3 of a small put. Floats compare normwise.
    n = "20000"
    proc = run([lanes, "run", str(root / "bench/kernels/black_scholes.cl"), "--global", n,
                "--arg", f"S=random:{n}:5:30", "--arg", f"X=random:{n}:1:100",
                "--arg", f"T=random:{n}:0.25:10", "--arg", "R=0.02", "--arg", "V=0.3",
                "--arg", f"n={n}", "--arg", f"call=zeros:{n}", "--arg", f"put=zeros:{n}",
                "--verify"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verify: ok" in proc.stdout


def test_run_verify_divergent_loop(lanes, root):
    proc = run([lanes, "run", str(root / "tests/kernels/valid/binary_search.cl"), "--kernel", "lower_bound_search",
                "--global", "333", "--local", "37",
                "--arg", "sorted=iota:500", "--arg", "n=500", "--arg", "keys=random:333:0:600",
                "--arg", "result=zeros:333", "--arg", "nkeys=333", "--verify", "--target", "sse4-i32x4"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verify: ok" in proc.stdout


def test_run_makes_three_component_buffers_with_four_components_per_element(lanes, tmp_path):
    src = tmp_path / "f3.cl"
    src.write_text("""
__kernel void sum3(__global const float3 *a, __global float *out)
{
    int i = get_global_id(0);
    out[i] = a[i].x + a[i].y + a[i].z;
}
""")
    proc = run([lanes, "run", str(src), "--global", "8", "--arg", "a=iota:8", "--arg", "out=zeros:8",
                "--verify", "--save", str(tmp_path / "saved")])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "out = [0, 3, 6, 9, 12, 15, 18, 21]" in proc.stdout
    assert (tmp_path / "saved" / "a.in.bin").stat().st_size == 8 * 16
    args = json.loads((tmp_path / "saved" / "args.json").read_text())["arguments"]
    assert [(a["name"], a["kind"], a.get("element")) for a in args] == [
        ("a", "buffer", "float4"), ("out", "buffer", "float")]


def test_run_fills_and_prints_half_buffers_as_numbers(lanes, tmp_path):
    src = tmp_path / "h.cl"
    src.write_text("""
__kernel void widen(__global const half *h, __global half *out)
{
    int i = get_global_id(0);
    vstore_half(vload_half(i, h) * 2.0f, i, out);
}
""")
    proc = run([lanes, "run", "--interpret", str(src), "--global", "4", "--local", "4",
                "--arg", "h=iota:4", "--arg", "out=fill:4:0.25"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "out = [0, 2, 4, 6]" in proc.stdout


def test_run_reports_missing_argument(lanes, root):
    proc = run([lanes, "run", str(root / "examples/saxpy.cl"), "--global", "64"])
    assert proc.returncode != 0
    assert "missing argument" in proc.stderr


REQD_TWICE = """__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void twice(__global float *a)
{
    int i = get_global_id(0);
    a[i] = a[i] * 2.0f;
}
"""


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_run_hands_every_work_group_to_one_thread(lanes, tmp_path, threads):
    """Threads take chunks of work-groups from a shared counter: every
    group runs once, whatever the number of threads and groups; a group the
    kernel refuses stops the launch with its error."""
    import struct
    src = tmp_path / "twice.cl"
    src.write_text(REQD_TWICE)
    for groups in (1, 5, 37, 300):
        n = 8 * groups
        proc = run([lanes, "run", str(src), "--kernel", "twice", "--global", str(n), "--local", "8",
                    "--arg", f"a=iota:{n}", "--threads", threads, "--save", str(tmp_path / "saved"),
                    "--print", "0"])
        assert proc.returncode == 0, proc.stderr
        got = struct.unpack(f"<{n}f", (tmp_path / "saved" / "a.bin").read_bytes())
        assert got == tuple(2.0 * i for i in range(n)), groups
    proc = run([lanes, "run", str(src), "--kernel", "twice", "--global", "4096", "--local", "4",
                "--arg", "a=iota:4096", "--threads", threads])
    assert proc.returncode != 0
    assert "error -3: the local size differs from the kernel's reqd_work_group_size" in proc.stderr


def test_run_out_of_bounds_is_reported_by_verify(lanes, root):
    proc = run([lanes, "run", str(root / "examples/saxpy.cl"), "--global", "64",
                "--arg", "a=2", "--arg", "x=random:10", "--arg", "y=zeros:10", "--arg", "n=64", "--verify"])
    assert proc.returncode != 0
    assert "saxpy.cl:" in proc.stderr


def test_libm_dependency_is_announced(lanes, tmp_path):
    # SSE4 has no fused multiply-add: LLVM calls fmaf, and lanes says so.
    src = tmp_path / "fma.cl"
    src.write_text("__kernel void k(__global float *a) { int i = get_global_id(0); a[i] = fma(a[i], 2.0f, 1.0f); }\n")
    proc = build(lanes, str(src), "-o", str(tmp_path / "fma.o"), "--header", str(tmp_path / "fma.h"),
                 "--target", "sse4-i32x4")
    assert proc.returncode == 0, proc.stderr
    assert "`fmaf`" in proc.stderr and "-lm" in proc.stderr
    assert "fmaf" in (tmp_path / "fma.h").read_text()
    proc = build(lanes, str(src), "-o", str(tmp_path / "fma2.o"), "--target", "avx2-i32x8")
    assert proc.returncode == 0, proc.stderr
    assert "-lm" not in proc.stderr


RACY = "__kernel void k(__global int *out)\n{\n    out[get_group_id(0)] = (int)get_local_id(0);\n    barrier(CLK_GLOBAL_MEM_FENCE);\n}\n"


def test_run_interpret_prints_the_interpreters_buffers(lanes, root):
    proc = run([lanes, "run", str(root / "examples/saxpy.cl"), "--global", "64", "--interpret",
                "--arg", "a=2", "--arg", "x=iota:64", "--arg", "y=fill:64:1", "--arg", "n=64"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "y = [1, 3, 5, 7, 9" in proc.stdout
    # No native code ran: no timing, no verification line.
    assert "time:" not in proc.stdout and "verify:" not in proc.stdout


# Races are checked in kernels with work-group features, which `lanes build`
# does not compile yet, so only the interpreter-only mode can run one.
@pytest.mark.parametrize("mode", ["--interpret"])
def test_run_reports_a_data_race_with_both_places(lanes, tmp_path, mode):
    src = tmp_path / "racy.cl"
    src.write_text(RACY)
    proc = run([lanes, "run", str(src), "--global", "8", "--local", "4", mode, "--arg", "out=zeros:2"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "racy.cl:3:5: data race: write of byte 0 of buffer `out` by work-item local [1, 0, 0]" in proc.stderr
    assert "the write by work-item local [0, 0, 0] is at" in proc.stderr and "racy.cl:3:5" in proc.stderr
    # One work-item per group: no race (races between groups are not checked).
    proc = run([lanes, "run", str(src), "--global", "2", "--local", "1", mode, "--arg", "out=zeros:2"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def front_end_refuses_work_group_features(proc):
    return any(code in proc.stderr for code in ("L0902", "L0903", "L0917"))


def test_run_interpret_runs_barriers_and_local_arguments(lanes, root):
    proc = run([lanes, "run", str(root / "tests/kernels/workgroup/reduction_interleaved.cl"),
                "--kernel", "reduce_modulo", "--interpret", "--global", "16", "--local", "8",
                "--arg", "g_idata=fill:16:1.5", "--arg", "g_odata=zeros:2", "--arg", "sdata=local:32"])
    if front_end_refuses_work_group_features(proc):
        pytest.skip("the front end does not accept barriers and __local memory yet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "g_odata = [12, 12]" in proc.stdout
    # Too little __local memory is an out-of-bounds access with its line.
    proc = run([lanes, "run", str(root / "tests/kernels/workgroup/reduction_interleaved.cl"),
                "--kernel", "reduce_modulo", "--interpret", "--global", "16", "--local", "8",
                "--arg", "g_idata=fill:16:1.5", "--arg", "g_odata=zeros:2", "--arg", "sdata=local:16"])
    assert proc.returncode == 1
    assert "reduction_interleaved.cl:" in proc.stderr and "out of bounds" in proc.stderr


def test_run_local_argument_needs_local_bytes(lanes, tmp_path):
    src = tmp_path / "loc.cl"
    src.write_text("__kernel void k(__global int *out, __local int *tmp)\n{\n    out[0] = 1;\n}\n")
    proc = run([lanes, "run", str(src), "--global", "1", "--interpret", "--arg", "out=zeros:1"])
    if front_end_refuses_work_group_features(proc):
        pytest.skip("the front end does not accept __local arguments yet")
    assert proc.returncode == 1
    assert "add --arg tmp=local:BYTES" in proc.stderr
    proc = run([lanes, "run", str(src), "--global", "1", "--interpret", "--arg", "out=local:4",
                "--arg", "tmp=local:4"])
    assert proc.returncode == 1
    assert "only for __local pointers" in proc.stderr


def test_run_interpret_prints_each_work_item_in_launch_order(lanes, root):
    # Work-item 0 of every group prints before the barriers, work-item 0 of
    # group 0 prints again at the end: its two lines stay together, groups
    # follow in launch order, whatever order the interpreter ran them in.
    proc = run([lanes, "run", str(root / "tests/kernels/workgroup/printf_debug.cl"),
                "--kernel", "traced_sum", "--interpret", "--global", "64", "--local", "16",
                "--arg", "in=fill:64:2", "--arg", "sums=zeros:4"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        "group 0 of 4: 16 work-items",
        "traced_sum: sum 32, first pair 2,2",
        "group 1 of 4: 16 work-items",
        "group 2 of 4: 16 work-items",
        "group 3 of 4: 16 work-items",
        "sums = [32, 32, 32, 32]",
    ]


def test_depfile_names_the_file_its_includes_and_lanes_toml(lanes, tmp_path):
    src = tmp_path / "my kernels"
    (src / "inc").mkdir(parents=True)
    (src / "inc" / "common.h").write_text('#include "scale.h"\n#define OFFSET 1.0f\n')
    (src / "inc" / "scale.h").write_text("#define SCALE 2.0f\n")
    (src / "lanes.toml").write_text('target = "sse4-i32x4"\n')
    (src / "k.cl").write_text(
        '#include "inc/common.h"\n#include "inc/common.h"\n'
        "__kernel void k(__global float *a) {\n"
        "    int i = get_global_id(0);\n"
        "    a[i] = a[i] * SCALE + OFFSET;\n"
        "}\n"
    )
    out = tmp_path / "o$ut" / "k#1.o"
    out.parent.mkdir()
    dep = tmp_path / "k.d"
    p = build(lanes, str(src / "k.cl"), "-o", str(out), "--depfile", str(dep))
    assert p.returncode == 0, p.stderr
    text = dep.read_text()
    esc = lambda path: str(path).replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")
    target, deps = text.split(": \\\n", 1)
    assert target == esc(out)
    names = [d.strip().rstrip("\\").strip() for d in deps.strip().split("\n")]
    assert names == [
        esc(src / "k.cl"),
        esc(src / "inc" / "common.h"),
        esc(src / "inc" / "scale.h"),
        esc(src / "lanes.toml"),
    ], text
    # make reads it: touching an included header makes the object stale.
    mk = tmp_path / "Makefile"
    mk.write_text(f"include {esc(dep)}\n{esc(out)}:\n\t@echo rebuild\n")
    fresh = run(["make", "-s", "-f", str(mk), str(out)])
    assert fresh.returncode == 0 and "rebuild" not in fresh.stdout, fresh.stdout + fresh.stderr
    later = time.time() + 5
    os.utime(src / "inc" / "scale.h", (later, later))
    stale = run(["make", "-s", "-f", str(mk), str(out)])
    assert stale.returncode == 0 and "rebuild" in stale.stdout, stale.stdout + stale.stderr


def test_depfile_needs_an_output_file(lanes, root, tmp_path):
    dep = tmp_path / "k.d"
    p = build(lanes, str(root / "examples" / "saxpy.cl"), "--emit", "llvm", "--depfile", str(dep))
    assert p.returncode == 2
    assert "`--depfile` needs an output file" in p.stderr
    assert not dep.exists()


BARRIER_MAIN = r"""
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "red.h"

#define N 4096
#define L 256
static float in[N], out[N / L];
static lanes_range r = { 1, {0, 0, 0}, {N, 1, 1}, {L, 1, 1} };

struct part { size_t first, last; int rc; };

static void *work(void *p) {
    struct part *q = p;
    /* The __local argument is passed as its size in bytes. */
    q->rc = reduce_modulo_groups(in, out, L * sizeof(float), &r, q->first, q->last);
    return NULL;
}

int main(void) {
    for (int i = 0; i < N; i++) in[i] = (float)(i % 17) * 0.5f;
    struct part parts[2] = { {0, N / L / 2, 0}, {N / L / 2, N / L, 0} };
    pthread_t t[2];
    for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, work, &parts[k]);
    for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
    if (parts[0].rc || parts[1].rc) { printf("rc %d %d\n", parts[0].rc, parts[1].rc); return 2; }
    for (int g = 0; g < N / L; g++) {
        float want = 0;
        for (int i = g * L; i < (g + 1) * L; i++) want += in[i];
        if (out[g] != want) { printf("group %d: %g, want %g\n", g, out[g], want); return 1; }
    }
    /* Not enough memory for the work-group is -2, not a crash. */
    if (reduce_modulo(in, out, (size_t)-1 / 2, &r) != -2) { printf("no -2\n"); return 3; }
    printf("ok\n");
    return 0;
}
"""


@pytest.mark.parametrize("target", ["sse4-i32x4", "sse4-i32x4,avx2-i32x8,avx512skx-x16"])
def test_barrier_kernel_object_runs_in_a_c_program_on_two_threads(lanes, root, tmp_path, target):
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    src = root / "tests/kernels/workgroup/reduction_interleaved.cl"
    proc = build(lanes, str(src), "--target", target, "-o", str(tmp_path / "red.o"),
                 "--header", str(tmp_path / "red.h"))
    assert proc.returncode == 0, proc.stderr
    header = (tmp_path / "red.h").read_text()
    assert "size_t sdata_bytes /* __local */" in header
    assert "__local pointer argument is passed as the size in bytes" in header
    (tmp_path / "main.c").write_text(BARRIER_MAIN)
    cc = run(["gcc", "-O2", "-I", str(tmp_path), str(tmp_path / "main.c"), str(tmp_path / "red.o"),
              "-lpthread", "-o", str(tmp_path / "main")])
    assert cc.returncode == 0, cc.stderr
    out = run([str(tmp_path / "main")])
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stdout + out.stderr


def test_build_refuses_a_barrier_in_divergent_control(lanes, tmp_path):
    src = tmp_path / "div.cl"
    src.write_text("__kernel void k(__global int *a) {\n"
                   "    if (get_local_id(0) < 4)\n"
                   "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                   "    a[get_global_id(0)] = 1;\n}\n")
    proc = build(lanes, str(src), "-o", str(tmp_path / "div.o"))
    assert proc.returncode == 1
    assert "error[L0401]" in proc.stderr and "div.cl:3:9" in proc.stderr, proc.stderr
    assert not (tmp_path / "div.o").exists()


WORK_GROUP_CORPUS = sorted((pathlib.Path(__file__).resolve().parents[1] / "kernels" / "workgroup").glob("*.cl"))
# What lanes build still refuses, with its code: images, printf, lgamma.
REFUSED_WITH_CODE = {"image_filter_sampler.cl": "L0904", "printf_debug.cl": "L0905",
                     "pointer_out_math.cl": "L0920"}


@pytest.mark.parametrize("path", WORK_GROUP_CORPUS, ids=lambda p: p.name)
def test_every_work_group_kernel_builds_with_default_options(lanes, tmp_path, path):
    # Default options specialize on inferred preconditions: no fast path may
    # wrap a barrier (its check differs across the SIMD groups of a group).
    out = tmp_path / "k.o"
    proc = build(lanes, str(path), "-I", str(path.parent), "-o", str(out))
    code = REFUSED_WITH_CODE.get(path.name)
    if code:
        assert proc.returncode == 1 and f"error[{code}]" in proc.stderr, proc.stderr
        assert not out.exists()
    else:
        assert proc.returncode == 0, proc.stderr
        assert out.stat().st_size > 0


def test_run_refuses_ids_beyond_an_int(lanes, tmp_path):
    # Every global id must fit in an int: the compiled entry points refuse
    # such a range (-1), and `lanes run` says why before allocating anything.
    src = tmp_path / "ids.cl"
    src.write_text("""
__kernel void ids(__global int *out, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = i;
}
""")
    for extra in (["--global", "2147483649"], ["--global", "8", "--offset", "2147483644"]):
        proc = run([lanes, "run", str(src), *extra, "--arg", "out=zeros:8", "--arg", "n=8"])
        assert proc.returncode != 0
        assert "above 2^31" in proc.stderr, proc.stderr
        assert "panicked" not in proc.stderr
    proc = run([lanes, "run", str(src), "--global", "8", "--offset", "2147483640",
                "--arg", "out=zeros:8", "--arg", "n=8"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


UNROLL_LIST = r"""// a list walked by each work-item
__kernel void walk(__global float *a, __global const int *next, int n)
{
    int i = get_global_id(0);
    float s = 0.0f;
    int j = i;
    #pragma unroll 4
    while (j >= 0) {
        s += a[j];
        j = next[j];
    }
    #pragma unroll 2
    for (int m = 0; m < n; m++)
        s = s * 0.5f + a[m];
    a[i] = s;
}
"""


@pytest.mark.parametrize("targets", ["avx2-i32x8", "avx2-i32x8,sse4-i32x4"])
def test_unroll_pragma_llvm_cannot_honour_is_a_warning_at_its_loop(lanes, tmp_path, targets):
    src = tmp_path / "walk.cl"
    src.write_text(UNROLL_LIST)
    r = build(lanes, str(src), "--target", targets, "-o", str(tmp_path / "walk.o"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "walk.o").is_file()
    # Once, at the `while` of the list walk (the `for` is unrolled by 2),
    # also when several targets are built.
    assert r.stderr.count("warning[L0103]") == 1, r.stderr
    assert f"{src}:8:5" in r.stderr, r.stderr
    # Without the hint LLVM cannot honour, no warning.
    src.write_text(UNROLL_LIST.replace("#pragma unroll 4\n", ""))
    r = build(lanes, str(src), "--target", targets, "-o", str(tmp_path / "walk.o"))
    assert r.returncode == 0 and "L0103" not in r.stderr, r.stderr


def test_run_gives_the_same_unroll_warning(lanes, tmp_path):
    """`lanes run` compiles as `lanes build` does and says so too."""
    src = tmp_path / "walk.cl"
    src.write_text(UNROLL_LIST)
    r = run([lanes, "run", str(src), "--target", "avx2-i32x8", "--global", "16",
             "--arg", "a=iota:16", "--arg", "next=fill:16:-1", "--arg", "n=0", "--verify"])
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("warning[L0103]") == 1, r.stderr
    assert f"{src}:8:5" in r.stderr, r.stderr
    assert "verify: ok" in r.stdout, r.stdout


TWO_LOOPS_ALIKE = """__kernel void first(__global float *a, int n)
{
    int i = get_global_id(0);
    float s = 0.0f;
    #pragma unroll 2
    for (int m = 0; m < n; m++)
        s = s * 0.5f + a[m];
    a[i] = s;
}

__kernel void second(__global float *a, int n)
{
    int i = get_global_id(0);
    float s = 0.0f;
    #pragma unroll 2
    for (int m = 0; m < n; m++)
        if (a[m] < 0.0f) break; else s += a[m];
    a[i] = s;
}
"""


def test_unroll_warning_names_its_own_loop_among_loops_of_the_same_text(lanes, tmp_path):
    """Two hinted loops spelled alike: LLVM unrolls the first by 2, not the
    second (it has two exits). The warning is at the second, not at the
    first line of the same text."""
    src = tmp_path / "two.cl"
    src.write_text(TWO_LOOPS_ALIKE)
    r = build(lanes, str(src), "--target", "avx2-i32x8", "-o", str(tmp_path / "two.o"))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("warning[L0103]") == 1, r.stderr
    assert f"{src}:16:5" in r.stderr, r.stderr
