"""The CMake integration (cmake/Lanes.cmake) on the example project
examples/cmake: configured with find_package(Lanes), built, run, and rebuilt
when a header the kernel #includes changes."""

import os
import pathlib
import shutil
import subprocess
import time

import pytest

pytestmark = pytest.mark.skipif(
    shutil.which("cmake") is None, reason="cmake is not installed (scripts/setup.sh installs it)"
)


def run(cmd, cwd=None):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=600)


def configure(lanes, root, src, build, *extra):
    p = run(
        [
            "cmake", "-S", str(src), "-B", str(build),
            f"-DLanes_DIR={root / 'cmake'}", f"-DLANES_EXECUTABLE={lanes}", *extra,
        ]
    )
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def build_tree(build):
    p = run(["cmake", "--build", str(build)])
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.fixture
def project(root, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(root / "examples" / "cmake", src)
    return src


def test_example_builds_runs_and_rebuilds_on_an_included_header(lanes, root, project, tmp_path):
    build = tmp_path / "build"
    configure(lanes, root, project, build)
    out = build_tree(build)
    assert "lanes: building blur.o for host" in out
    assert (build / "lanes" / "blur_demo" / "blur.h").is_file()
    ran = run([str(build / "blur_demo")])
    assert ran.returncode == 0 and "1000 values ok (radius 2)" in ran.stdout, ran.stdout + ran.stderr

    # Nothing changed: lanes does not run again.
    assert "lanes: building" not in build_tree(build)

    # The header the kernel includes changes: the object is rebuilt, and
    # the program sees the new weight.
    time.sleep(1.1)  # past the file system's timestamp granularity
    header = project / "kernels" / "include" / "blur_weights.h"
    header.write_text(header.read_text().replace("(1.0f / (2 * RADIUS + 1))", "(2.0f / (2 * RADIUS + 1))"))
    assert "lanes: building blur.o" in build_tree(build)
    ran = run([str(build / "blur_demo")])
    assert ran.returncode == 1 and "expected" in ran.stdout, ran.stdout + ran.stderr


def test_defines_and_target_reach_lanes(lanes, root, project, tmp_path):
    build = tmp_path / "build"
    configure(lanes, root, project, build, "-DRADIUS=5", "-DLANES_TARGET=sse4-i32x4")
    assert "lanes: building blur.o for sse4-i32x4" in build_tree(build)
    ran = run([str(build / "blur_demo")])
    assert ran.returncode == 0 and "(radius 5)" in ran.stdout, ran.stdout + ran.stderr


def test_errors_are_cmake_errors(lanes, root, project, tmp_path):
    cml = project / "CMakeLists.txt"
    cml.write_text(cml.read_text().replace("TARGETS ${LANES_TARGET}", "TARGETS avx2-i32x8,sse4-i32x4"))
    p = run(
        ["cmake", "-S", str(project), "-B", str(tmp_path / "b"),
         f"-DLanes_DIR={root / 'cmake'}", f"-DLANES_EXECUTABLE={lanes}"]
    )
    assert p.returncode != 0
    assert "name one target" in " ".join(p.stderr.split())  # CMake wraps messages

    # A kernel with an error fails the build with lanes' diagnostic.
    cml.write_text(cml.read_text().replace("TARGETS avx2-i32x8,sse4-i32x4", "TARGETS host"))
    (project / "kernels" / "blur.cl").write_text("__kernel void blur(__global float *a) { a[0] = nope; }\n")
    configure(lanes, root, project, tmp_path / "c")
    p = run(["cmake", "--build", str(tmp_path / "c")])
    assert p.returncode != 0
    assert "nope" in p.stdout + p.stderr
    assert not (tmp_path / "c" / "lanes" / "blur_demo" / "blur.o").exists()
