"""`lanes check --format sarif` produces SARIF 2.1.0 that validates against the
OASIS schema and carries what code-scanning services need (rule ids and
descriptions, levels, relative artifact locations, regions)."""

import json
import pathlib
import subprocess

import jsonschema

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text())


def run_sarif(lanes, files, cwd=ROOT):
    proc = subprocess.run(
        [lanes, "check", "--format", "sarif", *map(str, files)],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )
    return proc, json.loads(proc.stdout)


def invalid_files():
    return sorted((ROOT / "tests" / "kernels" / "invalid").glob("*.cl"))


def test_sarif_validates_against_schema_for_the_invalid_corpus(lanes):
    files = [f.relative_to(ROOT) for f in invalid_files()]
    proc, log = run_sarif(lanes, files)
    assert proc.returncode == 1, proc.stderr
    jsonschema.validate(log, SCHEMA)
    run = log["runs"][0]
    results = run["results"]
    assert len(results) >= len(files)
    rules = run["tool"]["driver"]["rules"]
    rule_ids = [r["id"] for r in rules]
    assert len(rule_ids) == len(set(rule_ids))
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["level"] in ("error", "warning", "note")
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "SRCROOT"
        assert loc["artifactLocation"]["uri"].startswith("tests/kernels/invalid/")
        region = loc["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"])
    for rule in rules:
        assert rule["shortDescription"]["text"]
        assert rule["id"].startswith("L")


def test_sarif_for_a_clean_file_has_only_notes(lanes):
    # saxpy has no errors or warnings; its bounds check is a divergent branch,
    # reported as information (L0300), which SARIF calls a note.
    proc, log = run_sarif(lanes, ["examples/saxpy.cl"])
    assert proc.returncode == 0, proc.stderr
    jsonschema.validate(log, SCHEMA)
    results = log["runs"][0]["results"]
    # The divergent bounds check (L0300) and its fast-path precondition (L0301).
    assert [r["ruleId"] for r in results] == ["L0300", "L0301"]
    assert all(r["level"] == "note" for r in results)


def test_sarif_result_points_at_the_offending_token(lanes, tmp_path):
    src = tmp_path / "k.cl"
    src.write_text("__kernel void k(__global float *out, int width) {\n    out[0] = wdth;\n}\n")
    proc, log = run_sarif(lanes, [src], cwd=tmp_path)
    assert proc.returncode == 1
    jsonschema.validate(log, SCHEMA)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "L0003"
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "k.cl"
    assert loc["region"] == {"startLine": 2, "startColumn": 14, "endLine": 2, "endColumn": 18}
