"""The work-group corpus on real OpenCL implementations: every `// run:`
launch builds and runs on PoCL and matches its host reference, and under
oclgrind the valid kernels are free of data races and barrier divergence
while the seeded races of races/ and the barrier divergence of invalid/
are found on the expected lines. The same for the project's reference
interpreter (`lanes run --interpret`): on PoCL's inputs it gives PoCL's
results, and it finds every seeded bug on its line. And for the code
`lanes build` makes (through `lanes run --target T`, for every target this
CPU runs): on PoCL's inputs it gives PoCL's results; features it does not
compile yet are refused with their code.

Each runtime is skipped when it is not installed (PoCL: the
pocl-opencl-icd package; oclgrind: the oclgrind package)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import run_specs

HERE = Path(__file__).resolve().parent
VALID = sorted(HERE.glob("*.cl"))
SEEDED = sorted((HERE / "races").glob("*.cl")) + sorted((HERE / "invalid").glob("*.cl"))
WITH_SPECS = [f for f in VALID + SEEDED if run_specs.read_specs(f)[0]]


def runtime(name):
    try:
        return run_specs.Runtime(name)
    except run_specs.ClError as e:
        pytest.skip(f"{name} not available ({e})")


@pytest.fixture(scope="module")
def pocl():
    return runtime("pocl")


@pytest.fixture(scope="module")
def oclgrind():
    if not Path("/usr/lib/oclgrind/liboclgrind-rt.so").exists():
        pytest.skip("oclgrind not installed")


@pytest.fixture(scope="module")
def interpreter(lanes):
    try:
        pocl = run_specs.Runtime("pocl")
    except run_specs.ClError:
        pocl = None  # compared with the host references only
    return run_specs.Lanes(lanes, pocl)


def test_corpus_size():
    assert len(VALID) >= 40, f"{len(VALID)} valid kernels, want at least 40"
    without = [f.name for f in VALID if not run_specs.read_specs(f)[0]
               and b"image2d_t" not in f.read_bytes()]
    assert not without, f"valid kernels without a run spec: {without}"
    for f in sorted((HERE / "races").glob("*.cl")):
        specs, expect, _ = run_specs.read_specs(f)
        assert specs and any(kind == "DataRace" for kind, _ in expect), f.name
    for f in sorted((HERE / "invalid").glob("*.cl")):
        specs, expect, _ = run_specs.read_specs(f)
        assert bool(specs) == bool(expect), f"{f.name}: a launch needs its expected finding"


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_every_kernel_runs_with_two_work_group_sizes(path):
    source = path.read_bytes().decode("latin-1")
    if "image2d_t" in source:
        pytest.skip("image kernels have no launch spec")
    kernels = re.findall(r"__kernel\b.*?\bvoid\s+(\w+)\s*\(", source, re.S)
    local_sizes = {}
    for spec in run_specs.read_specs(path)[0]:
        local_sizes.setdefault(spec.kernel, set()).add(tuple(spec.local_size or ()))
    assert set(kernels) == set(local_sizes), "kernels and run specs differ"
    few = [k for k, sizes in local_sizes.items() if len(sizes) < 2]
    assert not few, f"kernels launched with only one work-group size: {few}"


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_kernel_passes_clang(path):
    try:
        out = subprocess.run(
            ["clang-19", "-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header",
             "-fsyntax-only", "-Werror", str(path)], capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("clang-19 not installed")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("path", WITH_SPECS, ids=lambda p: p.name)
def test_specs_run_on_pocl(pocl, path):
    ran, failures = run_specs.check_file(pocl, path, quiet=True)
    assert not failures, "\n".join(failures)
    if ran == 0:
        pytest.skip("not run on PoCL (skip-runtime, or barrier divergence)")


@pytest.mark.parametrize("path", WITH_SPECS, ids=lambda p: p.name)
def test_specs_under_oclgrind(oclgrind, path):
    # A process per file: a crash inside the simulator fails one file only.
    out = subprocess.run([sys.executable, str(HERE / "run_specs.py"), "--runtime", "oclgrind",
                          str(path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"exit status {out.returncode}\n{out.stdout}\n{out.stderr}"
    if re.search(r"^0 launches", out.stdout, re.M):
        pytest.skip("the file says oclgrind cannot run it")


@pytest.mark.parametrize("path", WITH_SPECS, ids=lambda p: p.name)
def test_interpreter_equals_pocl_and_finds_seeded_bugs(interpreter, path):
    ran, failures = run_specs.check_file_lanes(interpreter, path, quiet=True)
    assert not failures, "\n".join(failures)
    assert ran > 0


COMPILED_TARGETS = ["sse4-i32x4", "avx2-i32x8", "avx512skx-x16"]


@pytest.fixture(scope="module")
def runnable_targets(lanes):
    out = subprocess.run([lanes, "targets"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines()[1:] if line.rstrip().endswith("yes")}


@pytest.fixture(scope="module")
def pocl_or_none():
    try:
        return run_specs.Runtime("pocl")
    except run_specs.ClError:
        return None  # compared with the host references only


@pytest.mark.parametrize("target", COMPILED_TARGETS)
@pytest.mark.parametrize("path", [f for f in VALID if run_specs.read_specs(f)[0]],
                         ids=lambda p: p.name)
def test_compiled_code_equals_pocl(lanes, runnable_targets, pocl_or_none, path, target):
    if target not in runnable_targets:
        pytest.skip(f"this CPU cannot run {target}")
    compiled = run_specs.Lanes(lanes, pocl_or_none, target=target)
    ran, failures = run_specs.check_file_lanes(compiled, path, quiet=True)
    assert not failures, "\n".join(failures)
    if ran == 0:
        pytest.skip("every kernel of the file is refused (a feature not compiled yet)")
