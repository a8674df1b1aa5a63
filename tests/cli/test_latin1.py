"""Sources that are not UTF-8 (Latin-1 copyright comments of the vendor SDKs):
read as clang reads them, with one hint per file and positions in characters."""

import json
import subprocess

# A Latin-1 copyright sign (0xA9) in the header and an 'e' with acute (0xE9)
# on the line of the error, before it.
HEADER = b"/* Copyright \xa9 2010 Advanced Micro Devices, Inc. */\n#define SCALE 2.0f\n"
KERNEL = (
    b"/* Copyright \xa9 2008 NVIDIA Corporation */\n"
    b'#include "scale.h"\n'
    b"__kernel void scale(__global float *o) { /* d\xe9j\xe0 */ o[get_global_id(0)] = SCALE * undeclared_x; }\n"
)


def run(lanes, tmp_path, *args):
    (tmp_path / "scale.h").write_bytes(HEADER)
    (tmp_path / "k.cl").write_bytes(KERNEL)
    return subprocess.run(
        [lanes, "check", *args, str(tmp_path / "k.cl")], capture_output=True, text=True, timeout=120
    )


def test_json_positions_count_characters(lanes, tmp_path):
    proc = run(lanes, tmp_path, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    diags = json.loads(proc.stdout)["diagnostics"]
    hints = [(pathlib_name(d["file"]), d["line"], d["col"]) for d in diags if d["code"] == "L0102"]
    # One per file, at its first Latin-1 byte (column 14: after `/* Copyright `).
    assert sorted(hints) == [("k.cl", 1, 14), ("scale.h", 1, 14)], diags
    assert all(d["severity"] == "hint" for d in diags if d["code"] == "L0102")
    err = next(d for d in diags if d["code"] == "L0003")
    line = KERNEL.split(b"\n")[2].decode("latin-1")
    col = line.index("undeclared_x") + 1
    assert (err["line"], err["col"], err["end_col"]) == (3, col, col + len("undeclared_x"))
    # In bytes it would be two columns further: each of the two Latin-1
    # characters before it takes two bytes in UTF-8.
    assert line.encode("utf-8").index(b"undeclared_x") + 1 == col + 2


def test_human_output_shows_the_decoded_line_and_caret(lanes, tmp_path):
    proc = run(lanes, tmp_path)
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    line = KERNEL.split(b"\n")[2].decode("latin-1")
    col = line.index("undeclared_x") + 1
    assert f"k.cl:3:{col}" in out, out
    assert "d\u00e9j\u00e0" in out
    caret = next(l for l in out.splitlines() if "^^^^^^^^^^^^" in l)
    source = next(l for l in out.splitlines() if "undeclared_x" in l and "|" in l)
    assert caret.index("^") == source.index("undeclared_x"), out
    assert out.count("[L0102]") == 2


def test_a_utf8_file_gets_no_hint(lanes, tmp_path):
    src = tmp_path / "u.cl"
    src.write_text("/* Copyright \u00a9 2010 */\n__kernel void k(__global float *o) { o[0] = 1.0f; }\n", encoding="utf-8")
    proc = subprocess.run([lanes, "check", "--format", "json", str(src)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout
    assert not [d for d in json.loads(proc.stdout)["diagnostics"] if d["code"] == "L0102"]


def pathlib_name(path):
    return path.replace("\\", "/").rsplit("/", 1)[-1]
