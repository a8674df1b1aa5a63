"""`lanes check --format json` gives byte-identical output on an idle and on a
loaded machine: precondition inference counts its budgets in solver resource
units, not in time (docs/preconditions.md, *Budgets*)."""

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


def spin(stop):
    while not stop.is_set():
        pass


def test_check_output_is_the_same_on_a_busy_machine(lanes):
    files = corpus()
    assert len(files) > 50, files
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
    assert busy == idle, "lanes check --format json differs between an idle and a busy machine"
    # The corpus has findings of the inference in it, so the comparison covers it.
    assert b'"L0301"' in idle
