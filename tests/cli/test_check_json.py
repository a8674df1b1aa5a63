"""`lanes check --format json`: the machine interface of the checker."""

import json
import subprocess


def check_json(lanes, *args, cwd=None):
    proc = subprocess.run([lanes, "check", "--format", "json", *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    return proc, json.loads(proc.stdout)


def test_json_fields_and_summary(lanes, tmp_path):
    src = tmp_path / "k.cl"
    src.write_text(
        "__kernel void k(__global float *out, int width) {\n"
        "    int i = 0;\n"
        "    int i = 1;\n"
        "    out[0] = wdth\n"
        "}\n"
    )
    proc, report = check_json(lanes, str(src))
    assert proc.returncode == 1
    diags = report["diagnostics"]
    codes = [d["code"] for d in diags]
    assert "L0005" in codes and "L0003" in codes and "L0001" in codes, codes
    assert report["summary"] == {"files": 1, "errors": len(diags), "warnings": 0}
    redef = next(d for d in diags if d["code"] == "L0005")
    assert redef["line"] == 3 and redef["col"] == 9
    assert redef["related"] and redef["related"][0]["line"] == 2
    assert {"file", "code", "severity", "message", "line", "col", "end_line", "end_col", "label", "related", "notes"} <= set(redef)
    # diagnostics come in source order
    assert [d["line"] for d in diags] == sorted(d["line"] for d in diags)


def test_deny_warnings_turns_warnings_into_failure(lanes, tmp_path):
    src = tmp_path / "w.cl"
    src.write_text("#define N 4\n#define N 8\n__kernel void k(__global int *a) { a[0] = N; }\n")
    proc, report = check_json(lanes, str(src))
    assert proc.returncode == 0
    assert report["summary"]["warnings"] == 1
    proc, report = check_json(lanes, "--deny", "warnings", str(src))
    assert proc.returncode == 1
    assert report["summary"]["errors"] == 1


def test_targets_lists_widths(lanes):
    out = subprocess.run([lanes, "targets"], capture_output=True, text=True, check=True).stdout
    for name, width in [("sse4-i32x4", 4), ("avx2-i32x8", 8), ("avx2-i32x16", 16), ("avx512skx-x16", 16), ("neon-i32x4", 4)]:
        line = next(l for l in out.splitlines() if l.startswith(name + " "))
        assert int(line.split()[1]) == width
    assert any(l.startswith("host ") for l in out.splitlines())
