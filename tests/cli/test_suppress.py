"""Suppression pragmas and `lanes.toml` severities apply to `lanes check` in
every output format (human, JSON, SARIF) and to `lanes explain`, as in the
editor (frontend/src/suppress.rs; the editor's side: diagnostics/tests/ide.rs
`pragma_spellings_and_scopes`, tests/lsp)."""

import json
import subprocess

# A histogram-style gather: `data[idx[x]]` is L0202 on line 6 (1-based).
GATHER = """__kernel void lookup(__global const int *idx, __global const float *data,
                     __global float *out, int n)
{
    int x = get_global_id(0);
    if (x < n)
        out[x] = data[idx[x]];
}
"""


def with_pragma(pragma, before_line=6):
    lines = GATHER.split("\n")
    indent = lines[before_line - 1][: len(lines[before_line - 1]) - len(lines[before_line - 1].lstrip())]
    lines.insert(before_line - 1, indent + pragma)
    return "\n".join(lines)


def run(lanes, path, fmt, cwd):
    return subprocess.run(
        [lanes, "check", "--format", fmt, str(path)],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )


def codes(lanes, path, cwd):
    """L-codes found in each output format."""
    human = run(lanes, path, "human", cwd)
    assert human.returncode == 0, human.stderr
    js = json.loads(run(lanes, path, "json", cwd).stdout)
    sarif = json.loads(run(lanes, path, "sarif", cwd).stdout)
    return {
        "human": sorted(set(c for c in human.stderr.replace("[", " ").replace("]", " ").split() if c.startswith("L0") and len(c) == 5)),
        "json": sorted(set(d["code"] for d in js["diagnostics"])),
        "sarif": sorted(set(r["ruleId"] for r in sarif["runs"][0]["results"])),
    }


def test_without_a_pragma_every_format_reports_the_gather(lanes, tmp_path):
    src = tmp_path / "lookup.cl"
    src.write_text(GATHER)
    found = codes(lanes, src, tmp_path)
    for fmt, cs in found.items():
        assert "L0202" in cs, (fmt, found)


def test_line_pragma_silences_the_gather_in_every_format(lanes, tmp_path):
    src = tmp_path / "lookup.cl"
    src.write_text(with_pragma("#pragma lanes ignore(L0202)"))
    found = codes(lanes, src, tmp_path)
    for fmt, cs in found.items():
        assert "L0202" not in cs, (fmt, found)
    # ... and only on its line: the same gather one line further is reported.
    src.write_text(with_pragma("#pragma lanes ignore(L0202)", before_line=5))
    found = codes(lanes, src, tmp_path)
    for fmt, cs in found.items():
        assert "L0202" in cs, (fmt, found)


def test_file_level_and_ispc_pragmas(lanes, tmp_path):
    src = tmp_path / "lookup.cl"
    src.write_text("#pragma lanes ignore(L0202)\n" + GATHER)
    for fmt, cs in codes(lanes, src, tmp_path).items():
        assert "L0202" not in cs, fmt
    src.write_text(with_pragma("#pragma ignore warning(perf)"))
    for fmt, cs in codes(lanes, src, tmp_path).items():
        assert "L0202" not in cs, fmt
    src.write_text("#pragma ignore warning(perf)\n" + GATHER)
    for fmt, cs in codes(lanes, src, tmp_path).items():
        assert not [c for c in cs if c.startswith("L02")], (fmt, cs)


def test_sarif_leaves_suppressed_results_out(lanes, tmp_path):
    src = tmp_path / "lookup.cl"
    src.write_text(with_pragma("#pragma lanes ignore(L0202)"))
    log = json.loads(run(lanes, src, "sarif", tmp_path).stdout)
    for r in log["runs"][0]["results"]:
        assert r["ruleId"] != "L0202", r
        assert "suppressions" not in r, r


def test_lanes_toml_severities_apply_to_check_and_explain(lanes, tmp_path):
    src = tmp_path / "lookup.cl"
    src.write_text(GATHER)
    (tmp_path / "lanes.toml").write_text('diagnostics = { L0202 = "off" }\n')
    for fmt, cs in codes(lanes, src, tmp_path).items():
        assert "L0202" not in cs, fmt
    out = subprocess.run(
        [lanes, "explain", "--format", "json", str(src)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    diags = [d["code"] for k in json.loads(out.stdout)["kernels"] for d in k["diagnostics"]]
    assert "L0202" not in diags, diags
    (tmp_path / "lanes.toml").write_text('diagnostics = { L0202 = "error" }\n')
    proc = run(lanes, src, "json", tmp_path)
    assert proc.returncode == 1, proc.stdout
    (tmp_path / "lanes.toml").write_text('diagnostics = { L0202 = "loud" }\n')
    proc = run(lanes, src, "json", tmp_path)
    assert proc.returncode == 2
    assert "lanes.toml:1:25: unknown severity `loud`" in proc.stderr, proc.stderr


def test_explain_applies_the_pragma(lanes, tmp_path):
    src = tmp_path / "lookup.cl"
    src.write_text(with_pragma("#pragma lanes ignore(L0202)"))
    out = subprocess.run(
        [lanes, "explain", "--format", "json", str(src)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    diags = [d["code"] for k in json.loads(out.stdout)["kernels"] for d in k["diagnostics"]]
    assert "L0202" not in diags, diags
