#!/usr/bin/env python3
"""Cost per call of a multi-target object's dispatch.

A tiny kernel (one SIMD group of work) is built twice: as a multi-target
object (sse4-i32x4,avx2-i32x8,avx512skx-x16) and as the single-target object
of the variant the dispatch picks on this machine. Each is linked into the
same C driver, which calls the kernel CALLS times and prints nanoseconds per
call. The two programs run alternately, RUNS times each, pinned to one core;
the medians and their difference (the dispatch cost) are printed.

    python3 bench/dispatch.py [--lanes PATH] [--cpu 1] [--runs 11] [--size 16]
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGETS = ["sse4-i32x4", "avx2-i32x8", "avx512skx-x16"]

KERNEL = r"""
__kernel void bump(float a, __global float *y)
{
    int i = get_global_id(0);
    y[i] = a * y[i] + 1.0f;
}
"""

DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bump.h"
int main(int argc, char **argv) {
    long calls = atol(argv[1]);
    size_t n = (size_t)atol(argv[2]);
    static float y[64];
    lanes_range r = { 1, {0, 0, 0}, {n, 1, 1}, {0, 0, 0} };
    bump(0.5f, y, &r); /* the first call selects the variant */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long c = 0; c < calls; c++)
        if (bump(0.5f, y, &r)) return 2;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
    printf("%.3f %g\n", ns / (double)calls, y[0]);
    return 0;
}
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def best_target():
    """The variant the dispatch picks here: the widest the CPU runs."""
    flags = set()
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"} <= flags:
        return "avx512skx-x16"
    if {"avx2", "fma", "bmi2"} <= flags:
        return "avx2-i32x8"
    return "sse4-i32x4"


def build(lanes, d, name, target):
    sub = d / name
    sub.mkdir()
    (sub / "bump.cl").write_text(KERNEL)
    (sub / "main.c").write_text(DRIVER)
    sh([lanes, "build", str(sub / "bump.cl"), "-o", str(sub / "bump.o"),
        "--header", str(sub / "bump.h"), "--target", target])
    sh(["gcc", "-O2", "-I", str(sub), str(sub / "main.c"), str(sub / "bump.o"),
        "-o", str(sub / "run")])
    return sub / "run"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # The newest build (the generated code does not depend on its profile).
    built = [p for p in (ROOT / "target" / "release" / "lanes", ROOT / "target" / "debug" / "lanes")
             if p.exists()]
    default = max(built, key=lambda p: p.stat().st_mtime) if built else "lanes"
    ap.add_argument("--lanes", default=str(default))
    ap.add_argument("--cpu", default="1", help="the core taskset pins to")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--calls", type=int, default=20_000_000)
    ap.add_argument("--size", type=int, default=16, help="global size (work-items per call)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        d = pathlib.Path(tmp)
        best = best_target()
        multi = build(args.lanes, d, "multi", ",".join(TARGETS))
        single = build(args.lanes, d, "single", best)
        env = {k: v for k, v in os.environ.items() if k != "LANES_TARGET"}
        times = {"multi": [], "single": []}
        for _ in range(args.runs):
            for name, exe in [("multi", multi), ("single", single)]:
                out = sh(["taskset", "-c", args.cpu, str(exe), str(args.calls), str(args.size)],
                         env=env)
                times[name].append(float(out.split()[0]))
        m = statistics.median(times["multi"])
        s = statistics.median(times["single"])
        print(f"kernel: y[i] = a * y[i] + 1 over {args.size} work-items, {args.calls} calls per run, "
              f"{args.runs} interleaved runs on core {args.cpu}")
        print(f"single-target {best}: median {s:.2f} ns/call "
              f"(min {min(times['single']):.2f}, max {max(times['single']):.2f})")
        print(f"multi-target {','.join(TARGETS)} (runs {best}): median {m:.2f} ns/call "
              f"(min {min(times['multi']):.2f}, max {max(times['multi']):.2f})")
        print(f"dispatch: {m - s:+.2f} ns/call ({m / s:.3f}x)")


if __name__ == "__main__":
    main()
