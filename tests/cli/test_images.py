"""Images and samplers on the real binary: `lanes check` and `lanes explain`
analyse them (image reads and writes are accesses of space `image`),
`lanes build` refuses the first image or sampler with L0904 and writes
nothing, and the reference interpreter names the feature it does not run."""

import json
import subprocess

KERNEL = """__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void blur(__read_only image2d_t src, __write_only image2d_t dst)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    float4 c = read_imagef(src, smp, (int2)(x - 1, y)) + read_imagef(src, smp, (int2)(x + 1, y));
    write_imagef(dst, (int2)(x, y), 0.5f * c);
}
"""


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_check_accepts_an_image_kernel(lanes, tmp_path):
    src = tmp_path / "blur.cl"
    src.write_text(KERNEL)
    proc = run([lanes, "check", str(src)])
    assert proc.returncode == 0, proc.stderr
    assert "L0904" not in proc.stderr


def test_explain_json_reports_image_accesses(lanes, tmp_path):
    src = tmp_path / "blur.cl"
    src.write_text(KERNEL)
    proc = run([lanes, "explain", "--format", "json", str(src)])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    accesses = [a for k in doc["kernels"] for a in k["accesses"] if a["space"] == "image"]
    got = sorted((a["line"], a["kind"], a["pattern"]) for a in accesses)
    assert got == [(6, "load", "contiguous"), (6, "load", "contiguous"),
                   (7, "store", "contiguous")], accesses


def test_build_refuses_images_with_l0904_and_writes_nothing(lanes, root, tmp_path):
    out = tmp_path / "img.o"
    header = tmp_path / "img.h"
    proc = run([lanes, "build", str(root / "tests/kernels/workgroup/image_filter_sampler.cl"),
                "-o", str(out), "--header", str(header)])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # The first image of each kernel, with line and column.
    assert "error[L0904]" in proc.stderr
    assert "image_filter_sampler.cl:28:29" in proc.stderr, proc.stderr
    assert not out.exists() and not header.exists()
    assert list(tmp_path.iterdir()) == []


def test_build_refuses_a_sampler_argument(lanes, tmp_path):
    src = tmp_path / "smp.cl"
    src.write_text("__kernel void k(__global float *o, sampler_t s)\n{\n    o[get_global_id(0)] = 1.0f;\n}\n")
    out = tmp_path / "smp.o"
    proc = run([lanes, "build", str(src), "-o", str(out)])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "error[L0904]" in proc.stderr and "smp.cl:1:36" in proc.stderr, proc.stderr
    assert not out.exists()


def test_interpreter_refuses_images_naming_the_feature(lanes, tmp_path):
    src = tmp_path / "blur.cl"
    src.write_text(KERNEL)
    proc = run([lanes, "run", str(src), "--interpret", "--global", "8,2"])
    assert proc.returncode != 0
    assert "images and samplers" in proc.stderr, proc.stderr
    assert "blur.cl:2:" in proc.stderr, proc.stderr


def test_run_without_interpreter_is_refused_by_code_generation(lanes, tmp_path):
    src = tmp_path / "blur.cl"
    src.write_text(KERNEL)
    proc = run([lanes, "run", str(src), "--global", "8,2"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "error[L0904]" in proc.stderr and "blur.cl:2:20" in proc.stderr, proc.stderr
