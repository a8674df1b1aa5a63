"""Shared fixtures for the Python end-to-end tests: the `lanes` binary and paths."""

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The findings cache (docs/preconditions.md) is off for the processes the
# tests start: tests that compare processes' outputs want each process to
# infer. tests/cli/test_cache.py turns it on in directories of its own; none
# is ever the user's.
os.environ["LANES_CACHE"] = "off"
os.environ["LANES_CACHE_DIR"] = str(ROOT / "target" / "test-cache")


@pytest.fixture(scope="session")
def lanes() -> str:
    """Path of the lanes binary under test (`LANES`, else target/debug/lanes)."""
    path = os.environ.get("LANES") or str(ROOT / "target" / "debug" / "lanes")
    if not os.path.exists(path):
        found = shutil.which("lanes")
        if not found:
            pytest.fail(f"lanes binary not found at {path}; run `cargo build` or set LANES")
        path = found
    return path


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT
