"""`lanes explain`: the stable JSON interface of DESIGN §2 and the issue's
acceptance cases (convolution and gemm), run on the real binary."""

import json
import subprocess


def explain(lanes, *args, cwd=None):
    proc = subprocess.run([lanes, "explain", *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    return proc


def explain_json(lanes, *args):
    proc = explain(lanes, "--format", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def line_of(path, needle):
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


def test_json_shape_of_the_interface(lanes, root):
    report = explain_json(lanes, "--target", "sse4-i32x4", str(root / "examples/saxpy.cl"))
    assert report["target"] == {"name": "sse4-i32x4", "width": 4}
    (k,) = report["kernels"]
    assert {"name", "line", "values", "branches", "loops", "accesses", "diagnostics"} <= set(k)
    for v in k["values"]:
        assert {"name", "line", "col", "shape", "stride", "align"} <= set(v)
        assert v["shape"] in ("uniform", "contiguous", "strided", "varying")
    for a in k["accesses"]:
        assert {"line", "col", "kind", "pattern", "stride_bytes", "mask"} <= set(a)
        assert a["kind"] in ("load", "store")
        assert a["pattern"] in ("uniform", "contiguous", "strided", "gather", "scatter")
        assert a["mask"] in ("none", "uniform", "varying")
    for l in k["loops"]:
        assert {"line", "divergent", "precondition"} <= set(l)
    for b in k["branches"]:
        assert {"line", "divergent"} <= set(b)
    for d in k["diagnostics"]:
        assert {"code", "severity", "line", "col", "message"} <= set(d)


def test_convolution_acceptance(lanes, root):
    path = root / "examples/convolution.cl"
    report = explain_json(lanes, "--target", "avx2-i32x8", str(path))
    (k,) = report["kernels"]
    assert report["target"]["width"] == 8
    x = next(v for v in k["values"] if v["name"] == "x")
    assert x["shape"] == "contiguous" and x["stride"] == 1
    loop_line = line_of(path, "for (int i = left; i <= right; ++i)")
    (loop,) = [l for l in k["loops"] if l["line"] == loop_line]
    assert loop["divergent"] is True
    # The reason chain of the loop reaches the lane-dependent source.
    assert any("get_global_id(0)" in s["text"] for s in loop["reason"]), loop["reason"]
    body = loop_line + 1
    accesses = {a["text"]: a for a in k["accesses"] if a["line"] == body}
    assert accesses["input[i]"]["pattern"] == "gather"
    assert accesses["input[i]"]["mask"] == "varying"
    stencil = next(a for t, a in accesses.items() if t.startswith("stencil["))
    assert stencil["pattern"] in ("uniform", "contiguous", "strided", "gather")
    codes = {d["code"] for d in k["diagnostics"]}
    assert {"L0201", "L0202"} <= codes


def test_gemm_acceptance(lanes, root):
    path = root / "examples/gemm.cl"
    (k,) = explain_json(lanes, "--target", "avx2-i32x8", str(path))["kernels"]
    loop_line = line_of(path, "for (int k = 0; k < nk; k++)")
    (loop,) = [l for l in k["loops"] if l["line"] == loop_line]
    assert loop["divergent"] is False
    body = {a["text"]: a for a in k["accesses"] if a["line"] == loop_line + 1}
    assert body["A[i * nk + k]"]["pattern"] == "uniform"
    assert body["B[k * nj + j]"]["pattern"] == "contiguous"
    assert body["B[k * nj + j]"]["stride_bytes"] == 4


def test_clamped_gathers_are_marked(lanes, root):
    # convolution_2d's image load goes through clamp(x + fx - r, 0, width - 1):
    # a gather at the borders, packed elsewhere; the filter's is uniform.
    path = root / "bench/kernels/convolution_2d.cl"
    (k,) = explain_json(lanes, "--target", "avx2-i32x8", str(path))["kernels"]
    body = {a["text"]: a for a in k["accesses"] if a["line"] == line_of(path, "sum += filter")}
    image = body["input[sy * width + sx]"]
    assert image["pattern"] == "gather" and image["clamped"] is True
    assert body["filter[fy * filterWidth + fx]"]["clamped"] is False
    (d,) = [d for d in k["diagnostics"] if d["code"] == "L0202"]
    assert d["message"].startswith("gather at the clamp's bounds"), d
    text = explain(lanes, "--target", "avx2-i32x8", str(path)).stdout
    assert "input[sy * width + sx]: packed load where the clamp moves no lane, else gather" in text
    assert "0 gather, 1 packed but gathered at a clamp's bounds, 0 scatter" in text


def test_loads_of_rows_are_marked(lanes, root):
    # mvt gives each work-item a row: a[i * n + j] is read through transposed
    # tiles; x1[i] is packed and y1[j] uniform, neither is a row load.
    path = root / "bench/kernels/mvt.cl"
    (k,) = explain_json(lanes, "--target", "avx2-i32x8", str(path))["kernels"]
    body = {a["text"]: a for a in k["accesses"] if a["line"] == line_of(path, "x1[i] +=")}
    rows = body["a[i * n + j]"]
    assert rows["pattern"] == "gather" and rows["rows"] is True and rows["clamped"] is False
    assert body["x1[i]"]["rows"] is False and body["y1[j]"]["rows"] is False
    (d,) = [d for d in k["diagnostics"] if d["code"] == "L0202"]
    assert d["message"] == "rows side by side: `a[i * n + j]` loads 8 rows, one element of each per iteration", d
    text = explain(lanes, "--target", "avx2-i32x8", str(path)).stdout
    assert "a[i * n + j]: load of rows side by side, through transposed tiles where every lane is active, else gather" in text
    assert "0 gather, 1 load of rows through transposed tiles, 0 scatter" in text


def test_text_form_annotates_lines(lanes, root):
    proc = explain(lanes, "--target", "avx2-i32x8", str(root / "examples/convolution.cl"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "kernel convolution" in out and "8 lanes" in out
    assert "// x: contiguous" in out
    assert "divergent loop" in out
    assert "input[i]: gather load, masked" in out


def test_width_follows_the_target(lanes, root):
    for target, width in (("sse4-i32x4", 4), ("avx2-i32x16", 16), ("avx512skx-x8", 8)):
        report = explain_json(lanes, "--target", target, str(root / "examples/saxpy.cl"))
        assert report["target"]["width"] == width


def test_errors_and_bad_arguments(lanes, tmp_path, root):
    bad = tmp_path / "bad.cl"
    bad.write_text("__kernel void k(__global int *a) { a[0] = ; }\n")
    proc = explain(lanes, str(bad))
    assert proc.returncode == 1
    assert "error[L0001]" in proc.stderr and proc.stdout == ""
    proc = explain(lanes, "--kernel", "nope", str(root / "examples/saxpy.cl"))
    assert proc.returncode == 1 and "no kernel named `nope`" in proc.stderr
    proc = explain(lanes, "--target", "avx9", str(root / "examples/saxpy.cl"))
    assert proc.returncode == 2 and "unknown target" in proc.stderr
    proc = explain(lanes, str(tmp_path / "missing.cl"))
    assert proc.returncode == 1 and "cannot read" in proc.stderr


def test_ir_form_prints_shapes(lanes, root):
    proc = explain(lanes, "--format", "ir", "--target", "avx2-i32x8", str(root / "examples/saxpy.cl"))
    assert proc.returncode == 0, proc.stderr
    assert "get_global_id i64(i32 0) : strided(1)" in proc.stdout
    assert "; mask none" in proc.stdout
