"""The Cargo integration: `lanes build --emit rust`, the lanes-build crate
and the example project examples/rust, built offline with the crates of the
workspace's lock file (CARGO_TARGET_DIR inside target/ keeps them built)."""

import os
import pathlib
import re
import shutil
import subprocess
import time

import pytest

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")


def run(cmd, cwd=None, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=900)


@pytest.fixture
def project(root, tmp_path):
    """A copy of examples/rust (and the saxpy.cl its build.rs names) whose
    lanes-build dependency points into this checkout."""
    examples = tmp_path / "examples"
    shutil.copytree(root / "examples" / "rust", examples / "rust", ignore=shutil.ignore_patterns("target"))
    shutil.copy(root / "examples" / "saxpy.cl", examples / "saxpy.cl")
    manifest = examples / "rust" / "Cargo.toml"
    text = manifest.read_text()
    assert 'path = "../../lanes-build"' in text
    manifest.write_text(text.replace('path = "../../lanes-build"', f'path = "{root / "lanes-build"}"'))
    return examples / "rust"


def cargo(lanes, root, project, *args):
    env = dict(os.environ, LANES=lanes, CARGO_TARGET_DIR=str(root / "target" / "rust-example"))
    return run(["cargo", *args, "--offline", "-v"], cwd=project, env=env)


def build_script_ran(p):
    return re.search(r"Running `[^`]*build-script-build`", p.stderr) is not None


def test_emit_rust_writes_a_module(lanes, root, tmp_path):
    out = tmp_path / "saxpy.rs"
    p = run([lanes, "build", str(root / "examples" / "saxpy.cl"), "--emit", "rust", "-o", str(out)])
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert "pub mod ffi {" in text
    assert "pub fn saxpy(n: i32, a: f32, x: *const f32, y: *mut f32, r: *const lanes_range) -> i32;" in text
    assert "pub fn saxpy(n: i32, a: f32, x: &[f32], y: &mut [f32], range: &Range) -> Result<(), Error>" in text
    # Without -o it goes to standard output.
    p = run([lanes, "build", str(root / "examples" / "saxpy.cl"), "--emit", "rust"])
    assert p.returncode == 0 and p.stdout == text, p.stderr


def test_example_builds_runs_and_reruns_on_an_included_header(lanes, root, project):
    p = cargo(lanes, root, project, "run")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "saxpy: 1000 values ok; transpose: 37x23 ok" in p.stdout
    assert "refused: kernel `saxpy`: `y` has 999 elements" in p.stdout

    # Nothing changed: the build script does not run again.
    p = cargo(lanes, root, project, "build")
    assert p.returncode == 0 and not build_script_ran(p), p.stderr

    # The header transpose.cl includes changes: lanes runs again and the
    # program sees the new factor.
    time.sleep(1.1)  # past the file system's timestamp granularity
    header = project / "kernels" / "include" / "scale.h"
    header.write_text(header.read_text().replace("#define SCALE 1.0f", "#define SCALE 2.0f"))
    p = cargo(lanes, root, project, "run")
    assert build_script_ran(p), p.stderr
    assert p.returncode != 0 and "transpose: expected" in p.stdout, p.stdout + p.stderr


def test_a_bad_kernel_fails_the_build_with_its_location(lanes, root, project):
    kernel = project / "kernels" / "transpose.cl"
    kernel.write_text(kernel.read_text().replace("SCALE * in[y * width + x]", "SCALE * in[y * stride + x]"))
    p = cargo(lanes, root, project, "build")
    assert p.returncode != 0
    assert "use of undeclared identifier `stride`" in p.stderr, p.stderr
    assert re.search(r"kernels/transpose\.cl:16:\d+", p.stderr), p.stderr
    assert "lanes could not compile `kernels/transpose.cl`" in p.stderr, p.stderr


def test_a_missing_lanes_binary_is_named(lanes, root, project, tmp_path):
    p = cargo(str(tmp_path / "no-such-lanes"), root, project, "build")
    assert p.returncode != 0
    assert f"cannot run `{tmp_path / 'no-such-lanes'}`" in p.stderr, p.stderr
