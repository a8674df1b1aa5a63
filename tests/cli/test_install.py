"""`scripts/install.sh` (what `make install PREFIX=...` runs): the layout it
makes, and a CMake project that finds lanes through the prefix alone."""

import os
import shutil
import subprocess

import pytest


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture
def prefix(lanes, root, tmp_path):
    prefix = tmp_path / "prefix"
    p = run([str(root / "scripts" / "install.sh"), str(prefix), lanes])
    assert p.returncode == 0, p.stdout + p.stderr
    return prefix


def test_layout(prefix, root):
    assert os.access(prefix / "bin" / "lanes", os.X_OK)
    assert (prefix / "lib" / "cmake" / "Lanes" / "LanesConfig.cmake").is_file()
    assert (prefix / "lib" / "cmake" / "Lanes" / "Lanes.cmake").is_file()
    assert (prefix / "share" / "doc" / "lanes" / "diagnostics.md").read_text() == (
        root / "docs" / "diagnostics.md"
    ).read_text()
    p = run([str(prefix / "bin" / "lanes"), "--version"])
    assert p.returncode == 0 and p.stdout.startswith("lanes "), p.stdout + p.stderr


def test_no_binary_is_an_error(root, tmp_path):
    p = run([str(root / "scripts" / "install.sh"), str(tmp_path / "p"), str(tmp_path / "nothing")])
    assert p.returncode == 1
    assert "no lanes binary" in p.stderr
    assert not (tmp_path / "p").exists()


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_finds_the_installed_lanes(prefix, root, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(root / "examples" / "cmake", src)
    build = tmp_path / "build"
    # No lanes on PATH, no Lanes_DIR, no LANES_EXECUTABLE: the prefix only.
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    p = run(["cmake", "-S", str(src), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}"], env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    cache = (build / "CMakeCache.txt").read_text()
    assert f"LANES_EXECUTABLE:FILEPATH={prefix / 'bin' / 'lanes'}" in cache
    p = run(["cmake", "--build", str(build)], env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    ran = run([str(build / "blur_demo")])
    assert ran.returncode == 0 and "values ok" in ran.stdout, ran.stdout + ran.stderr
