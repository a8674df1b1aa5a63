"""`lanes check --format json` gives byte-identical output on an idle and on a
loaded machine, and in every process: precondition inference counts its
budgets in solver resource units, not in time, and nothing it hands Z3
depends on per-process random state (docs/preconditions.md, *Budgets*)."""

import multiprocessing
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def corpus():
    files = sorted((ROOT / "tests" / "kernels").rglob("*.cl"))
    files += sorted((ROOT / "examples").glob("*.cl"))
    return [str(f.relative_to(ROOT)) for f in files]


def check(lanes, files):
    proc = subprocess.run(
        [lanes, "check", "--format", "json", *files],
        cwd=ROOT, capture_output=True, timeout=1800,
    )
    assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
    return proc.stdout


def first_difference(a, b):
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {n}: {x.decode(errors='replace')!r} != {y.decode(errors='replace')!r}"
    return "one output is a prefix of the other"


def spin(stop):
    while not stop.is_set():
        pass


# The files whose inference spends the most solver resources (the slowest
# of `lanes check` on the corpus, most of them to the end of a budget): a
# limit that depended on time would cut these first. The whole corpus took
# a minute of the suite for the same question.
BUSY = [
    "tests/kernels/valid/bitonic_sort_step.cl",
    "tests/kernels/precond/prefix_sum.cl",
    "tests/kernels/workgroup/reduction_interleaved.cl",
    "tests/kernels/workgroup/scan_blelloch.cl",
    "tests/kernels/valid/strided_records.cl",
    "tests/kernels/valid/integer_ops.cl",
    "tests/kernels/valid/fast_walsh_transform.cl",
    "tests/kernels/valid/fp_contract.cl",
    "tests/kernels/precond/bitonic_sort.cl",
]


def test_check_output_is_the_same_on_a_busy_machine(lanes):
    files = BUSY
    assert set(files) <= set(corpus()), set(files) - set(corpus())
    idle = check(lanes, files)
    stop = multiprocessing.Event()
    spinners = [
        multiprocessing.Process(target=spin, args=(stop,), daemon=True)
        for _ in range(max(2, os.cpu_count() or 2))
    ]
    for p in spinners:
        p.start()
    try:
        busy = check(lanes, files)
    finally:
        stop.set()
        for p in spinners:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    assert busy == idle, (
        "lanes check --format json differs between an idle and a busy machine: "
        + first_difference(idle, busy)
    )
    # The corpus has findings of the inference in it, so the comparison covers it.
    assert b'"L0301"' in idle


# Files whose findings sit close to their budgets: when a query's cost varied
# from one process to the next (std's random hash keys decided the order in
# which Z3 terms were freed, and so their ids), bitonic_sort_step's access
# fast path was found in about half of the processes.
NEAR_BUDGET = [
    "tests/kernels/valid/bitonic_sort_step.cl",
    "tests/kernels/precond/bitonic_sort.cl",
    "tests/kernels/precond/fast_walsh_transform.cl",
]


def test_check_output_is_the_same_in_every_process(lanes):
    first = check(lanes, NEAR_BUDGET)
    assert b'"L0301"' in first
    for _ in range(5):
        again = check(lanes, NEAR_BUDGET)
        assert again == first, (
            "lanes check --format json differs between two processes: "
            + first_difference(first, again)
        )


# Kernels whose objects go through every back-end construct that keeps maps
# (work-group regions and atomics, row blocks, band walks, strided access,
# fast paths on inferred preconditions).
BUILT = [
    "bench/kernels/histogram.cl",
    "bench/kernels/gemm.cl",
    "bench/kernels/jacobi_2d.cl",
    "bench/kernels/matmul_tiled.cl",
    "bench/kernels/scan.cl",
    "examples/convolution.cl",
]


def test_build_output_is_the_same_in_every_process(lanes, tmp_path):
    """`lanes build` writes byte-identical objects and headers in every
    process (a header's guard is made from its file name, so every run
    writes the same names in its own directory)."""
    for target in ("avx2-i32x8", "sse4-i32x4"):
        outputs = []
        for run in range(3):
            out = tmp_path / f"{target}-{run}"
            out.mkdir()
            for src in BUILT:
                stem = pathlib.Path(src).stem
                proc = subprocess.run(
                    [lanes, "build", src, "--target", target,
                     "-o", str(out / f"{stem}.o"), "--header", str(out / f"{stem}.h")],
                    cwd=ROOT, capture_output=True, timeout=600,
                )
                assert proc.returncode == 0, proc.stderr.decode(errors="replace")
            outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
        for again in outputs[1:]:
            assert again.keys() == outputs[0].keys()
            for name, data in outputs[0].items():
                assert again[name] == data, f"{target}: {name} differs between two processes"


# Besides BUILT: private arrays promoted to SSA values (one variable per
# field, numbered from maps of accesses) and a switch.
VECTOR_IR = BUILT + [
    "tests/kernels/valid/private_arrays.cl",
    "tests/kernels/valid/control_flow.cl",
]


def test_vector_ir_is_the_same_in_every_process(lanes):
    """`lanes build --emit vir` prints the same vector IR in every process.
    Objects hide how values and blocks are numbered; the vector IR shows it,
    and the vectorizer's passes keep std hash maps, whose order differs from
    one process to the next (docs/testing.md, *Determinism across
    processes*)."""
    outputs = []
    for _ in range(3):
        texts = {}
        for src in VECTOR_IR:
            proc = subprocess.run(
                [lanes, "build", src, "--target", "avx2-i32x8", "--emit", "vir", "-o", "-"],
                cwd=ROOT, capture_output=True, timeout=600,
            )
            assert proc.returncode == 0, proc.stderr.decode(errors="replace")
            assert proc.stdout, src
            texts[src] = proc.stdout
        outputs.append(texts)
    for again in outputs[1:]:
        for src, text in outputs[0].items():
            assert again[src] == text, (
                f"{src}: the vector IR differs between two processes: "
                + first_difference(text, again[src])
            )
