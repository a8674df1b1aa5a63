"""Multi-target objects (`lanes build --target sse4-i32x4,avx2-i32x8,...`):
one object whose entry points run the best variant the CPU supports, linked
into C programs and run; each variant this CPU runs forced with LANES_TARGET
and compared with the single-target object of that target; CPU models the
machine lacks under qemu-x86_64 when it is installed."""

import os
import pathlib
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not found")

TARGETS = ["sse4-i32x4", "avx2-i32x8", "avx512skx-x16"]
LIST = ",".join(TARGETS)
WIDTH = {"sse4-i32x4": 4, "avx2-i32x8": 8, "avx512skx-x16": 16}

# A data-dependent loop (lanes finish at different trip counts), a square
# root and a select; work-item 0 records the SIMD width of the variant that ran.
PROBE_CL = r"""
__kernel void collatz(__global const uint *seed, __global float *out,
                      __global int *width, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    uint x = seed[i];
    int steps = 0;
    while (x != 1 && steps < 500) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        steps++;
    }
    out[i] = sqrt((float)steps) * 0.5f + (float)x;
    if (i == 0)
        width[0] = get_sub_group_size();
}
"""

PROBE_MAIN = r"""
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "probe.h"
int main(void) {
    enum { N = 1003 };
    static unsigned seed[N];
    static float out[N];
    int width = 0;
    for (int i = 0; i < N; i++) seed[i] = 7u * (unsigned)i + 1u;
    lanes_range r = { 1, {0, 0, 0}, {N, 1, 1}, {0, 0, 0} };
    if (collatz(seed, out, &width, N, &r)) { printf("error\n"); return 2; }
    unsigned long long hash = 1469598103934665603ull;
    for (int i = 0; i < N; i++) {
        unsigned x = seed[i];
        int steps = 0;
        while (x != 1 && steps < 500) { x = (x & 1) ? 3 * x + 1 : x / 2; steps++; }
        float want = sqrtf((float)steps) * 0.5f + (float)x;
        if (out[i] != want) { printf("bad out[%d] = %g, expected %g\n", i, out[i], want); return 1; }
        unsigned bits;
        memcpy(&bits, &out[i], 4);
        hash = (hash ^ bits) * 1099511628211ull;
    }
    printf("width=%d hash=%016llx\n", width, hash);
    return 0;
}
"""


def run(cmd, env=None, cwd=None):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def cpu_flags():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# What each variant's CPU model needs (lanes checks these with cpuid/xgetbv).
NEEDS = {
    "sse4-i32x4": {"sse4_2", "popcnt", "cx16", "ssse3"},
    "avx2-i32x8": {"avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm", "avx"},
    "avx512skx-x16": {"avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl"},
}


def cpu_runs(target):
    flags = cpu_flags()
    order = TARGETS[: TARGETS.index(target) + 1]
    return all(NEEDS[t] <= flags for t in order)


def build_program(lanes, tmp, name, target, *extra):
    """probe.cl built for `target` (one or a list), linked with PROBE_MAIN."""
    d = tmp / name
    d.mkdir()
    (d / "probe.cl").write_text(PROBE_CL)
    (d / "main.c").write_text(PROBE_MAIN)
    p = run([lanes, "build", str(d / "probe.cl"), "-o", str(d / "probe.o"),
             "--header", str(d / "probe.h"), "--target", target, *extra])
    assert p.returncode == 0, p.stderr
    cc = run(["gcc", "-O2", "-I", str(d), str(d / "main.c"), str(d / "probe.o"),
              "-o", str(d / "probe"), "-lm"])
    assert cc.returncode == 0, cc.stderr
    return d


@pytest.fixture(scope="module")
def multi(lanes, tmp_path_factory):
    return build_program(lanes, tmp_path_factory.mktemp("multi"), "all", LIST)


def pinned(target):
    env = dict(os.environ)
    env.pop("LANES_TARGET", None)
    if target is not None:
        env["LANES_TARGET"] = target
    return env


@pytest.mark.parametrize("target", TARGETS)
def test_each_variant_matches_its_single_target_object(lanes, tmp_path, multi, target):
    if not cpu_runs(target):
        pytest.skip(f"this CPU cannot run {target}")
    single = build_program(lanes, tmp_path, target, target)
    want = run([str(single / "probe")])
    assert want.returncode == 0, want.stdout + want.stderr
    got = run([str(multi / "probe")], env=pinned(target))
    assert got.returncode == 0, got.stdout + got.stderr
    assert got.stdout == want.stdout
    assert got.stdout.startswith(f"width={WIDTH[target]} ")


def test_unpinned_runs_the_best_variant_the_cpu_supports(multi):
    best = [t for t in TARGETS if cpu_runs(t)][-1]
    got = run([str(multi / "probe")], env=pinned(None))
    assert got.returncode == 0, got.stdout + got.stderr
    assert got.stdout.startswith(f"width={WIDTH[best]} ")
    # An empty pin is no pin.
    assert run([str(multi / "probe")], env=pinned("")).stdout == got.stdout


def test_pin_outside_the_object_aborts_with_a_message(lanes, tmp_path):
    d = build_program(lanes, tmp_path, "two", "sse4-i32x4,avx2-i32x8")
    p = run([str(d / "probe")], env=pinned("avx512skx-x16"))
    assert p.returncode != 0 and p.stdout == ""
    assert ("lanes: LANES_TARGET=avx512skx-x16 is not a target of this object "
            "(it has sse4-i32x4, avx2-i32x8)") in p.stderr


QEMU = shutil.which("qemu-x86_64")


@pytest.mark.skipif(QEMU is None, reason="qemu-x86_64 is not installed (qemu-user)")
@pytest.mark.parametrize("cpu,pin,expect", [
    # SSE4.2, no AVX: the SSE4 variant.
    ("Nehalem", None, "sse4-i32x4"),
    # AVX2 and FMA, no AVX-512.
    ("Haswell", None, "avx2-i32x8"),
    # No SSE4.2: no variant runs.
    ("core2duo", None, "lanes: this CPU runs none of the targets of this object "
                       "(sse4-i32x4, avx2-i32x8, avx512skx-x16)"),
    ("Nehalem", "avx2-i32x8", "lanes: LANES_TARGET=avx2-i32x8: this CPU cannot run that target"),
])
def test_cpu_models_the_machine_lacks(multi, cpu, pin, expect):
    p = run([QEMU, "-cpu", cpu, str(multi / "probe")], env=pinned(pin))
    if expect in TARGETS:
        assert p.returncode == 0, p.stdout + p.stderr
        assert p.stdout.startswith(f"width={WIDTH[expect]} ")
        # The same results as that variant run natively.
        if cpu_runs(expect):
            assert run([str(multi / "probe")], env=pinned(expect)).stdout == p.stdout
    else:
        assert p.returncode != 0 and p.stdout == "", p.stdout
        assert expect in p.stderr, p.stderr


TWO_MAIN = r"""
#include <stdio.h>
#include "probe.h"
#include "saxpy.h"
int main(void) {
    enum { N = 100 };
    static unsigned seed[N];
    static float out[N], x[N], y[N];
    int width = 0;
    for (int i = 0; i < N; i++) { seed[i] = 1u; x[i] = (float)i; y[i] = 1.0f; }
    lanes_range r = { 1, {0, 0, 0}, {N, 1, 1}, {0, 0, 0} };
    if (collatz(seed, out, &width, N, &r) || saxpy(N, 3.0f, x, y, &r)) return 2;
    for (int i = 0; i < N; i++)
        if (out[i] != 1.0f || y[i] != 3.0f * (float)i + 1.0f) { printf("bad %d\n", i); return 1; }
    printf("ok width=%d\n", width);
    return 0;
}
"""


def test_two_multi_target_objects_link_into_one_program(lanes, root, tmp_path):
    (tmp_path / "probe.cl").write_text(PROBE_CL)
    (tmp_path / "main.c").write_text(TWO_MAIN)
    objects = []
    for src, targets in [(tmp_path / "probe.cl", LIST),
                         (root / "examples/saxpy.cl", "sse4-i32x4,avx2-i32x8")]:
        name = src.stem
        p = run([lanes, "build", str(src), "-o", str(tmp_path / f"{name}.o"),
                 "--header", str(tmp_path / f"{name}.h"), "--target", targets])
        assert p.returncode == 0, p.stderr
        objects.append(str(tmp_path / f"{name}.o"))
        # Only the entry points are global; the variants and the dispatch
        # state are local symbols.
        nm = run(["nm", "--defined-only", "--extern-only", objects[-1]])
        if nm.returncode == 0:
            defined = sorted(line.split()[-1] for line in nm.stdout.splitlines())
            stem = "collatz" if name == "probe" else "saxpy"
            assert defined == sorted([stem, f"{stem}_groups", f"{stem}__launch"])
    cc = run(["gcc", "-O2", "-I", str(tmp_path), str(tmp_path / "main.c"), *objects,
              "-o", str(tmp_path / "two"), "-lm"])
    assert cc.returncode == 0, cc.stderr
    p = run([str(tmp_path / "two")], env=pinned(None))
    assert p.returncode == 0 and p.stdout.startswith("ok width="), p.stdout + p.stderr


def test_header_is_the_single_target_header_but_its_first_comment(lanes, root, tmp_path):
    src = str(root / "examples/saxpy.cl")
    for name, target in [("one", "sse4-i32x4"), ("all", LIST)]:
        p = run([lanes, "build", src, "-o", str(tmp_path / f"{name}.o"),
                 "--header", str(tmp_path / "saxpy.h"), "--target", target])
        assert p.returncode == 0, p.stderr
        (tmp_path / "saxpy.h").rename(tmp_path / f"{name}.h")

    def body(text):
        return text[text.index("*/") + 2:]

    one = (tmp_path / "one.h").read_text()
    every = (tmp_path / "all.h").read_text()
    assert body(one) == body(every)
    banner = every[: every.index("*/")]
    assert all(f"{t} (SIMD width {WIDTH[t]})" in banner for t in TARGETS)
    assert "LANES_TARGET" in banner


@pytest.mark.parametrize("targets,message", [
    ("sse4-i32x4,avx9-i32x8", "unknown target `avx9-i32x8` in the list `sse4-i32x4,avx9-i32x8`"),
    ("sse4-i32x4,host", "`host` cannot be part of the target list"),
    ("avx2-i32x8,avx2-i32x16", "`avx2-i32x16` and `avx2-i32x8` in the target list"),
    ("sse4-i32x4,,avx2-i32x8", "empty entry in the target list"),
    ("sse4-i32x4,neon-i32x4", "`neon-i32x4` in the target list `sse4-i32x4,neon-i32x4` is for another architecture"),
])
def test_bad_target_list_is_a_usage_error_and_writes_nothing(lanes, root, tmp_path, targets, message):
    outs = [tmp_path / "k.o", tmp_path / "k.h", tmp_path / "k.d"]
    p = run([lanes, "build", str(root / "examples/saxpy.cl"), "-o", str(outs[0]),
             "--header", str(outs[1]), "--depfile", str(outs[2]), "--target", targets])
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert not any(o.exists() for o in outs)
    assert list(tmp_path.iterdir()) == []


def test_lanes_toml_target_list(lanes, tmp_path):
    (tmp_path / "lanes.toml").write_text('target = "sse4-i32x4, avx2-i32x8"\n')
    (tmp_path / "probe.cl").write_text(PROBE_CL)
    p = run([lanes, "build", str(tmp_path / "probe.cl"), "-o", str(tmp_path / "probe.o"),
             "--header", str(tmp_path / "probe.h")])
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "probe.h").read_text().startswith(
        "/* Generated by lanes for targets sse4-i32x4 (SIMD width 4), avx2-i32x8 (SIMD width 8)")
    # `lanes check` accepts the list (and analyses at its first target's width).
    p = run([lanes, "check", str(tmp_path / "probe.cl")])
    assert p.returncode == 0, p.stderr

    (tmp_path / "lanes.toml").write_text('target = "sse4-i32x4,sse4-i32x8"\n')
    p = run([lanes, "build", str(tmp_path / "probe.cl"), "-o", str(tmp_path / "x.o")])
    assert p.returncode == 2
    assert "lanes.toml:1:10: `sse4-i32x8` and `sse4-i32x4` in the target list" in p.stderr
    assert not (tmp_path / "x.o").exists()


@pytest.mark.parametrize("emit,needle", [
    ("llvm", "define internal i32 @lanes.select()"),
    ("asm", "saxpy_groups.avx2-i32x8"),
    ("vir", "; target avx2-i32x8"),
    # The bindings declare the entry points, the same for every target.
    ("rust", "pub fn saxpy_groups(n: i32, a: f32, x: *const f32, y: *mut f32"),
])
def test_text_formats_of_a_target_list(lanes, root, emit, needle):
    p = run([lanes, "build", str(root / "examples/saxpy.cl"), "--emit", emit,
             "--target", "sse4-i32x4,avx2-i32x8"])
    assert p.returncode == 0, p.stderr
    assert needle in p.stdout


@pytest.mark.parametrize("mode", ["shared", "static"])
def test_links_into_a_shared_library_and_a_static_executable(lanes, tmp_path, multi, mode):
    d = tmp_path
    obj, main = multi / "probe.o", multi / "main.c"
    if mode == "shared":
        cc = run(["gcc", "-shared", "-o", str(d / "libprobe.so"), str(obj)])
        assert cc.returncode == 0, cc.stderr
        cc = run(["gcc", "-O2", "-I", str(multi), str(main), "-L", str(d), "-lprobe",
                  f"-Wl,-rpath,{d}", "-o", str(d / "probe"), "-lm"])
    else:
        cc = run(["gcc", "-O2", "-static", "-I", str(multi), str(main), str(obj),
                  "-o", str(d / "probe"), "-lm"])
        if cc.returncode != 0 and "cannot find -lc" in cc.stderr:
            pytest.skip("no static C library")
    assert cc.returncode == 0, cc.stderr
    for target in TARGETS:
        if cpu_runs(target):
            p = run([str(d / "probe")], env=pinned(target))
            assert p.returncode == 0, p.stdout + p.stderr
            assert p.stdout == run([str(multi / "probe")], env=pinned(target)).stdout


def test_lanes_run_takes_one_target(lanes, root):
    p = run([lanes, "run", str(root / "examples/saxpy.cl"), "--global", "8",
             "--target", "sse4-i32x4,avx2-i32x8"])
    assert p.returncode == 2
    assert "`sse4-i32x4,avx2-i32x8` is a list of targets; this command runs one" in p.stderr
