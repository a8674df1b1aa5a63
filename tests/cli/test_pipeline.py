"""One pipeline for every face (lanes-pipeline): `lanes check` (JSON and
SARIF), `lanes explain` and `lanes build` run the same analysis,
preconditions, severities and suppression pragmas with the same settings
from `lanes.toml`, so they show the same findings for a file."""

import json
import pathlib
import re
import shutil
import subprocess

import pytest

# A project with a lanes.toml (target, defines, include path, severities)
# and pragmas: a row blur as the SDK samples write it (clamped window: a
# divergent loop with a fast path at the borders), and a lookup with a
# gather (silenced for the file), a scatter silenced on its line and one
# that is not. The editor's test (tests/lsp) opens the same project.
PROJECT = pathlib.Path(__file__).resolve().parents[1] / "projects" / "blur"
TOML = (PROJECT / "lanes.toml").read_text()


@pytest.fixture
def project(tmp_path):
    shutil.copytree(PROJECT, tmp_path, dirs_exist_ok=True)
    return tmp_path, tmp_path / "src" / "blur.cl"


def run(lanes, cwd, *args):
    return subprocess.run([lanes, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def line_of(src, needle):
    return next(i for i, l in enumerate(src.read_text().splitlines(), 1) if needle in l)


PRECONDITION = re.compile(r"satisfies `([^`]*)`")


def check_json(lanes, cwd, src):
    p = run(lanes, cwd, "check", "--format", "json", str(src))
    assert p.returncode == 0, p.stderr
    return [(d["code"], d["severity"], d["line"], d["message"]) for d in json.loads(p.stdout)["diagnostics"]]


def check_sarif(lanes, cwd, src):
    p = run(lanes, cwd, "check", "--format", "sarif", str(src))
    assert p.returncode == 0, p.stderr
    results = json.loads(p.stdout)["runs"][0]["results"]
    return [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"], r["message"]["text"])
        for r in results
    ]


def explain_json(lanes, cwd, src, *extra):
    p = run(lanes, cwd, "explain", "--format", "json", str(src), *extra)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def build_notes(lanes, cwd, src, *extra):
    out = cwd / "blur.o"
    p = run(lanes, cwd, "build", str(src), "-o", str(out), *extra)
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 0
    return sorted(PRECONDITION.findall(p.stderr))


def test_every_face_shows_the_same_findings(lanes, project):
    cwd, src = project
    found = check_json(lanes, cwd, src)
    gather = line_of(src, "data[idx[x]]")
    silenced = line_of(src, "out[idx[x]] = 1.0f")
    scatter = line_of(src, "out[idx[x] + 1]")
    loop = line_of(src, "for (int i")
    branch = line_of(src, "if (x < n)")
    codes = {(c, s, l) for c, s, l, _ in found}
    # lanes.toml: the defines and include path (else `#error`), the
    # severities, and the pragmas of the file and of a line.
    assert ("L0201", "info", loop) in codes, found
    assert ("L0300", "hint", branch) in codes, found
    assert ("L0203", "warning", scatter) in codes, found
    assert not [f for f in found if f[0] == "L0202" or f[2] in (gather, silenced)], found
    preconditions = sorted(PRECONDITION.findall(" ".join(m for c, _, _, m in found if c == "L0301")))
    assert len(preconditions) == 2, found

    # SARIF: the same results (its text goes on with the notes).
    sarif = sorted(check_sarif(lanes, cwd, src))
    assert [(c, l) for c, l, _ in sarif] == sorted((c, l) for c, _, l, _ in found)
    for (c, _, l, m), (_, _, text) in zip(sorted(found, key=lambda f: (f[0], f[2])), sarif):
        assert text.startswith(m), (c, l, text)

    # explain: the same diagnostics per kernel, and the loop's precondition.
    report = explain_json(lanes, cwd, src)
    assert report["target"] == {"name": "sse4-i32x4", "width": 4}
    explained = [(d["code"], d["severity"], d["line"], d["message"]) for k in report["kernels"] for d in k["diagnostics"]]
    assert sorted(explained) == sorted(found)
    (blur,) = [k for k in report["kernels"] if k["name"] == "blur_row"]
    (lp,) = blur["loops"]
    assert lp["line"] == loop and lp["precondition"] in preconditions

    # build: the target, defines and include path of lanes.toml, and a fast
    # path for exactly the preconditions check found.
    assert build_notes(lanes, cwd, src) == preconditions
    vir = run(lanes, cwd, "build", str(src), "--emit", "vir", "--specialize", "off")
    assert vir.returncode == 0, vir.stderr
    assert set(re.findall(r"W = (\d+)", vir.stdout)) == {"4"}, vir.stdout
    assert PRECONDITION.findall(vir.stderr) == []


def test_lanes_toml_budgets_and_specialize_reach_build(lanes, project):
    cwd, src = project
    # A target budget too small for any proof: no fast path anywhere.
    (cwd / "lanes.toml").write_text(TOML + "[preconditions]\ntargetBudget = 1000\n")
    found = check_json(lanes, cwd, src)
    assert [c for c, *_ in found if c == "L0301"] == [], found
    assert [c for c, *_ in found if c == "L0302"], found
    assert build_notes(lanes, cwd, src) == []
    # `specialize = "off"` in the file; `--specialize auto` overrides it.
    (cwd / "lanes.toml").write_text(TOML + 'specialize = "off"\n')
    assert build_notes(lanes, cwd, src) == []
    assert len(build_notes(lanes, cwd, src, "--specialize", "auto")) == 2
    # Command-line flags override the file.
    (cwd / "lanes.toml").write_text(TOML)
    vir = run(lanes, cwd, "build", str(src), "--emit", "vir", "--target", "avx2-i32x8", "-D", "RADIUS=1")
    assert vir.returncode == 0, vir.stderr
    assert set(re.findall(r"W = (\d+)", vir.stdout)) == {"8"}, vir.stdout
    assert "satisfies `1 <= x && x < width - 1`" in vir.stderr


def test_a_bad_lanes_toml_stops_every_command_with_its_position(lanes, project):
    cwd, src = project
    (cwd / "lanes.toml").write_text(TOML + "[preconditions]\nfileBudgett = 5\n")
    for args in (["check", str(src)], ["explain", str(src)], ["build", str(src), "-o", str(cwd / "x.o")]):
        p = run(lanes, cwd, *args)
        assert p.returncode == 2, (args, p.stderr)
        assert "lanes.toml:6:1: unknown setting `preconditions.fileBudgett`" in p.stderr, p.stderr
    assert not (cwd / "x.o").exists()


def rows(n):
    """`n` kernels, each a clamped row filter whose loop has a fast path."""
    return "\n".join(
        f"""__kernel void row{i}(__global const float *in, __global float *out, int width)
{{
    int x = get_global_id(0);
    float sum = 0.0f;
    for (int i = max(0, x - {i + 1}); i <= min(width - 1, x + {i + 1}); ++i)
        sum += in[i];
    out[x] = sum;
}}
"""
        for i in range(n)
    )


def test_explain_kernel_gets_the_preconditions_check_gives_it(lanes, tmp_path):
    # The file's budget runs out in the fifth kernel: the sixth is not
    # tried. `explain --kernel` must not give a kernel the whole budget.
    src = tmp_path / "rows.cl"
    src.write_text(rows(6))
    (tmp_path / "lanes.toml").write_text("[preconditions]\nfileBudget = 100000\n")
    found = check_json(lanes, tmp_path, src)
    by_line = {}
    for c, s, l, m in found:
        by_line.setdefault(l, []).append((c, s, m))
    outcomes = [c for c, *_ in found if c in ("L0301", "L0302")]
    assert outcomes.count("L0301") >= 1 and outcomes[-1] == "L0302", found
    assert any("the file's budget is spent" in m for *_, m in found), found
    report = explain_json(lanes, tmp_path, src)
    for k in report["kernels"]:
        alone = explain_json(lanes, tmp_path, src, "--kernel", k["name"])
        (only,) = alone["kernels"]
        assert only["diagnostics"] == k["diagnostics"], k["name"]
        assert only["loops"] == k["loops"], k["name"]
        mine = sorted((d["code"], d["severity"], d["line"], d["message"]) for d in only["diagnostics"])
        theirs = sorted((c, s, l, m) for c, s, l, m in found if k["line"] <= l < k["line"] + 8)
        assert mine == theirs, k["name"]
