"""`lanes check` and `lanes explain` read the nearest `lanes.toml` (the file's
directory or a parent): target, defines, include paths, and the `[launch]`
hint, whose coverage of the inferred precondition the L0301 message and
`loops[].precondition_coverage` report. The coverage is computed here
independently, by counting the W-wide groups of the launch that satisfy the
paper's group form `x0 >= vstep && x0 + W - 1 < width - vstep`."""

import json
import re
import shutil
import subprocess

import pytest

PRECONDITION = "vstep <= x && x < width - vstep"


def run(lanes, *args, cwd=None):
    return subprocess.run([lanes, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def project(tmp_path, root, toml):
    """A project: lanes.toml at the top, the kernel one directory down."""
    (tmp_path / "src").mkdir()
    src = tmp_path / "src" / "convolution.cl"
    shutil.copy(root / "examples" / "convolution.cl", src)
    if toml is not None:
        (tmp_path / "lanes.toml").write_text(toml)
    return src


def expected_coverage(global_size, width_lanes, width, stencil_width):
    """(groups satisfying the group form, groups) of a 1-D launch."""
    vstep = (stencil_width - 1) // 2
    total = hits = 0
    for x0 in range(0, global_size, width_lanes):
        total += 1
        if x0 >= vstep and x0 + width_lanes - 1 < width - vstep:
            hits += 1
    return hits, total


def percent(hits, total):
    return f"{100.0 * hits / total:.1f}%"


def l0301(diags):
    found = [d for d in diags if d["code"] == "L0301"]
    assert len(found) >= 1, diags
    return found


TOML = """\
target = "avx2-i32x8"      # W = 8

[launch]
globalSize = [1024]         # rounded up; the last work-items leave through the first `if`
args = { width = 1000, stencilWidth = 7, scale = 0.5 }
"""


def test_check_reports_the_coverage_of_the_launch(lanes, tmp_path, root):
    src = project(tmp_path, root, TOML)
    hits, total = expected_coverage(1024, 8, 1000, 7)
    assert (hits, total) == (123, 128)  # the sizes chosen: most groups, not all
    proc = run(lanes, "check", "--format", "json", str(src))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    loop_line = next(
        i for i, l in enumerate(src.read_text().splitlines(), 1) if "for (int i = left" in l
    )
    (d,) = [d for d in l0301(report["diagnostics"]) if d["line"] == loop_line]
    assert f"`{PRECONDITION}`" in d["message"], d
    assert f"({percent(hits, total)} of the groups of the launch)" in d["message"], d
    # The target came from lanes.toml: the group form is for 8 lanes.
    assert any("x0 + 7 < width - vstep" in n for n in d["notes"]), d
    # Human output: the same message.
    proc = run(lanes, "check", "--color", "never", str(src))
    assert proc.returncode == 0, proc.stderr
    assert f"({percent(hits, total)} of the groups of the launch)" in proc.stderr


def test_explain_json_carries_the_coverage(lanes, tmp_path, root):
    src = project(tmp_path, root, TOML)
    proc = run(lanes, "explain", "--format", "json", str(src))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["target"] == {"name": "avx2-i32x8", "width": 8}
    (k,) = report["kernels"]
    (loop,) = [l for l in k["loops"] if l["divergent"]]
    assert loop["precondition"] == PRECONDITION  # still the text, as before
    hits, total = expected_coverage(1024, 8, 1000, 7)
    cov = loop["precondition_coverage"]
    assert (cov["groups"], cov["total"]) == (hits, total), cov
    assert cov["percent"] == pytest.approx(100.0 * hits / total, abs=0.05)
    # Keys keep their order; the new one comes last.
    assert list(loop)[:4] == ["line", "col", "divergent", "precondition"]
    assert list(loop)[-1] == "precondition_coverage"
    # The text form shows the L0301 message with the coverage.
    proc = run(lanes, "explain", str(src))
    assert proc.returncode == 0, proc.stderr
    assert f"{percent(hits, total)} of the groups of the launch" in proc.stdout + proc.stderr


def test_command_line_overrides_the_file(lanes, tmp_path, root):
    src = project(tmp_path, root, TOML.replace("[1024]", "[1024, 3]"))
    proc = run(lanes, "explain", "--format", "json", "--target", "sse4-i32x4", str(src))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["target"] == {"name": "sse4-i32x4", "width": 4}
    (loop,) = [l for l in report["kernels"][0]["loops"] if l["divergent"]]
    hits, total = expected_coverage(1024, 4, 1000, 7)
    # Every row of a 2-D launch has the same groups along dimension 0.
    cov = loop["precondition_coverage"]
    assert (cov["groups"], cov["total"]) == (3 * hits, 3 * total), cov


def test_without_a_launch_hint_there_is_no_coverage(lanes, tmp_path, root):
    src = project(tmp_path, root, None)
    proc = run(lanes, "explain", "--format", "json", "--target", "avx2-i32x8", str(src))
    assert proc.returncode == 0, proc.stderr
    (loop,) = [l for l in json.loads(proc.stdout)["kernels"][0]["loops"] if l["divergent"]]
    assert loop["precondition"] == PRECONDITION
    assert loop["precondition_coverage"] is None
    proc = run(lanes, "check", "--format", "json", str(src))
    assert proc.returncode == 0, proc.stderr
    for d in l0301(json.loads(proc.stdout)["diagnostics"]):
        assert "of the groups of the launch" not in d["message"], d


@pytest.mark.parametrize(
    "toml, line, col",
    [
        ("target = \"avx2-i32x8\"\n[launch\nglobalSize = [64]\n", 2, None),
        ("[launch]\nglobalSize = [1024, 0]\n", 2, 21),
        ("[launch]\nglobalSize = \"big\"\n", 2, 14),
        ("[launch]\nglobalSize = [64]\nargs = { width = \"wide\" }\n", 3, 18),
        ("target = \"pdp11\"\n", 1, 10),
    ],
)
def test_bad_lanes_toml_is_a_usage_error(lanes, tmp_path, root, toml, line, col):
    src = project(tmp_path, root, toml)
    for cmd in (["check"], ["explain"]):
        proc = run(lanes, *cmd, str(src))
        assert proc.returncode == 2, (cmd, proc.stderr)
        m = re.search(r"lanes\.toml:(\d+):(\d+): ", proc.stderr)
        assert m, proc.stderr
        assert int(m.group(1)) == line, proc.stderr
        if col is not None:
            assert int(m.group(2)) == col, proc.stderr


def test_defines_and_include_paths_come_from_the_file(lanes, tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.h").write_text("#define SCALE 2\n")
    (tmp_path / "k").mkdir()
    src = tmp_path / "k" / "k.cl"
    src.write_text(
        '#include "scale.h"\n'
        "#ifdef BROKEN\n"
        "#error BROKEN is defined\n"
        "#endif\n"
        "__kernel void k(__global int *a) { a[get_global_id(0)] = SCALE * N; }\n"
    )
    # Without lanes.toml: the header is not found.
    assert run(lanes, "check", str(src)).returncode == 1
    (tmp_path / "lanes.toml").write_text('defines = ["N=4", "BROKEN"]\nincludePaths = ["inc"]\n')
    proc = run(lanes, "check", str(src))
    assert proc.returncode == 1 and "BROKEN is defined" in proc.stderr, proc.stderr
    # -U and -D on the command line win over the file, without redefinition warnings.
    proc = run(lanes, "check", "--format", "json", "-U", "BROKEN", "-D", "N=5", str(src))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["summary"]["warnings"] == 0, proc.stdout


def test_run_reads_the_file_too(lanes, tmp_path):
    """`lanes run` takes the target, defines and include paths of lanes.toml,
    as `lanes build` does; the command line still wins."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.h").write_text("#define SCALE 3\n")
    src = tmp_path / "k.cl"
    src.write_text(
        '#include "scale.h"\n'
        "__kernel void k(__global int *a) { a[get_global_id(0)] = SCALE * N; }\n"
    )
    launch = ["run", str(src), "--global", "16", "--arg", "a=zeros:16", "--print", "2"]
    assert run(lanes, *launch).returncode == 1  # no scale.h, no N
    (tmp_path / "lanes.toml").write_text(
        'target = "sse4-i32x4"\ndefines = ["N=4"]\nincludePaths = ["inc"]\n'
    )
    proc = run(lanes, *launch)
    assert proc.returncode == 0, proc.stderr
    assert "12, 12" in proc.stdout, proc.stdout
    assert "sse4-i32x4" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    proc = run(lanes, *launch, "-D", "N=5", "--target", "host")
    assert proc.returncode == 0 and "15, 15" in proc.stdout, proc.stdout + proc.stderr
    # A target of the file that this machine cannot run is an error that says so.
    (tmp_path / "lanes.toml").write_text('target = "avx512skx-x16"\ndefines = ["N=4"]\nincludePaths = ["inc"]\n')
    proc = run(lanes, *launch)
    if "avx512f" not in open("/proc/cpuinfo").read():
        assert proc.returncode == 1 and "cannot run target `avx512skx-x16`" in proc.stderr, proc.stderr
