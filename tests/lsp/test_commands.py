"""The commands' arguments, unknown targets and the diagnostics' links to
the catalogue, through real `lanes lsp` processes. Run with

    LANES=target/debug/lanes .venv/bin/python -m pytest tests/lsp/test_commands.py
"""

import pathlib
import subprocess

import pytest

from raw_server import KERNEL, LANES, ROOT, Server

INVALID_PARAMS, REQUEST_FAILED = -32602, -32803
COMMANDS = ["lanes.build", "lanes.showVectorIR", "lanes.showAsm", "lanes.explain"]

TWO_KERNELS = KERNEL + """
__kernel void copy(__global float *dst, __global const float *src)
{
    int i = get_global_id(0);
    dst[i] = src[i];
}
"""


def started(tmp_path, text=KERNEL, settings=None, lanes=LANES):
    s = Server(tmp_path, lanes=lanes)
    path = tmp_path / "scale.cl"
    path.write_text(text)
    s.start(text, settings=settings, uri=path.as_uri())
    return s


def execute(server, command, arguments):
    return server.request("workspace/executeCommand", {"command": command, "arguments": arguments})


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_kernel_is_an_error_naming_the_kernels(tmp_path, command):
    server = started(tmp_path, TWO_KERNELS)
    try:
        reply = execute(server, command, [server.uri, "scal"])
        assert reply["error"]["code"] == INVALID_PARAMS, reply
        assert reply["error"]["message"] == "no kernel named `scal` in scale.cl; its kernels: `scale`, `copy`"
        # Nothing was built.
        assert not (tmp_path / "scale.o").exists()
        assert server.stop() == 0
    finally:
        server.close()


def test_arguments_of_the_wrong_type_are_invalid_params(tmp_path):
    server = started(tmp_path)
    try:
        for args, why in [
            ([], "no arguments"),
            ([42], "the file is 42"),
            ([None, "scale"], "the file is null"),
            ([server.uri, 7], "the kernel is 7"),
            ([server.uri, ["scale"]], 'the kernel is ["scale"]'),
            ([server.uri, "scale", "x"], "3 arguments"),
        ]:
            for command in COMMANDS:
                reply = execute(server, command, args)
                assert reply["error"]["code"] == INVALID_PARAMS, (command, args, reply)
                assert reply["error"]["message"].startswith(why + "; arguments: [uri"), reply
        # A known kernel, or none, is fine.
        for kernel in ["scale", None, ""]:
            reply = execute(server, "lanes.explain", [server.uri, kernel])
            assert "kernel scale" in reply["result"]["text"], reply
        assert server.stop() == 0
    finally:
        server.close()


def shown_errors(server):
    return [m["params"]["message"] for m in server.seen
            if m.get("method") == "window/showMessage" and m["params"]["type"] == 1]


def test_an_unknown_target_is_shown_and_fails_the_commands_that_need_it(tmp_path):
    server = started(tmp_path, settings={"target": "pdp11"})
    try:
        server.hover()  # every message of the start has arrived
        [shown] = shown_errors(server)
        assert shown.startswith("lanes: unknown target `pdp11` in the editor's settings (known: sse4-i32x4, "), shown
        for command in ["lanes.build", "lanes.showAsm"]:
            reply = execute(server, command, [server.uri, "scale"])
            assert reply["error"]["code"] == REQUEST_FAILED, reply
            assert "unknown target `pdp11`" in reply["error"]["message"], reply
        # The analyses go on.
        assert "kernel scale" in execute(server, "lanes.explain", [server.uri])["result"]["text"]
        # Fixed: the commands work again, and nothing more is shown.
        server.notify("workspace/didChangeConfiguration", {"settings": {"lanes": {"target": "sse4-i32x4"}}})
        reply = execute(server, "lanes.showAsm", [server.uri, "scale"])
        assert "for sse4-i32x4" in reply["result"]["text"], reply
        # Broken again in another way: shown again.
        server.notify("workspace/didChangeConfiguration", {"settings": {"lanes": {"target": "avx9"}}})
        server.wait(lambda m: m.get("method") == "window/showMessage")
        assert "unknown target `avx9`" in shown_errors(server)[-1]
        assert server.stop() == 0
    finally:
        server.close()


def test_a_target_list_in_lanes_toml_builds_one_multi_target_object(tmp_path):
    (tmp_path / "lanes.toml").write_text('target = "sse4-i32x4,avx2-i32x8"\n')
    server = started(tmp_path)
    try:
        server.hover()
        assert shown_errors(server) == []
        reply = execute(server, "lanes.build", [server.uri])
        header = pathlib.Path(reply["result"]["header"]).read_text()
        assert "sse4-i32x4" in header and "avx2-i32x8" in header, header
        assert pathlib.Path(reply["result"]["object"]).stat().st_size > 0
        asm = execute(server, "lanes.showAsm", [server.uri, "scale"])["result"]["text"]
        assert "# ---- sse4-i32x4 ----" in asm and "# ---- avx2-i32x8 ----" in asm
        assert server.stop() == 0
    finally:
        server.close()


def test_an_unknown_target_in_lanes_toml_is_shown(tmp_path):
    (tmp_path / "lanes.toml").write_text('target = "sse5"\n')
    server = started(tmp_path)
    try:
        server.hover()
        [shown] = shown_errors(server)
        assert "unknown target `sse5` in lanes.toml" in shown, shown
        assert server.stop() == 0
    finally:
        server.close()


def first_diagnostic(server, code="L0201"):
    msg = server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    return next(d for d in msg["params"]["diagnostics"] if d["code"] == code)


LOOP = """__kernel void rows(__global float *a, __global const int *len)
{
    int i = get_global_id(0);
    for (int k = 0; k < len[i]; k++) {
        a[i] += 1.0f;
    }
}
"""


def opened(server, tmp_path):
    path = tmp_path / "rows.cl"
    path.write_text(LOOP)
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": path.as_uri(), "languageId": "opencl", "version": 1, "text": LOOP}})
    return first_diagnostic(server)


def test_no_catalogue_link_from_a_build_tree(tmp_path):
    server = started(tmp_path)
    try:
        assert "codeDescription" not in opened(server, tmp_path)
        assert server.stop() == 0
    finally:
        server.close()


def test_catalogue_url_setting_gives_the_links(tmp_path):
    url = "https://lanes.example.org/docs/diagnostics.html"
    server = started(tmp_path, settings={"catalogueUrl": url})
    try:
        d = opened(server, tmp_path)
        assert d["codeDescription"]["href"] == url + "#l0201"
        assert not [m for m in server.seen if m.get("method") == "window/logMessage"], server.seen
        assert server.stop() == 0
    finally:
        server.close()


def test_installed_catalogue_gives_the_links(tmp_path):
    """`<prefix>/bin/lanes` links to `<prefix>/share/doc/lanes/diagnostics.md`,
    where `scripts/install.sh` (`make install`) puts it."""
    prefix = tmp_path / "prefix"
    installed = subprocess.run(
        [str(ROOT / "scripts" / "install.sh"), str(prefix), LANES], capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr
    doc = prefix / "share" / "doc" / "lanes"
    lanes = prefix / "bin" / "lanes"
    work = tmp_path / "work"
    work.mkdir()
    server = started(work, lanes=str(lanes))
    try:
        href = opened(server, work)["codeDescription"]["href"]
        assert href == (doc / "diagnostics.md").as_uri() + "#l0201"
        # The anchor is the code's heading in the catalogue.
        assert "\n### L0201\n" in (doc / "diagnostics.md").read_text()
        assert server.stop() == 0
    finally:
        server.close()


def test_build_uses_the_editors_findings(tmp_path):
    """`lanes.build` builds the fast paths of the preconditions the editor
    found (reused, not inferred again): the object is the command line's on
    the editor's budgets, byte for byte."""
    text = (ROOT / "tests" / "kernels" / "precond" / "fast_walsh_transform.cl").read_text()
    (tmp_path / "lanes.toml").write_text(
        'target = "avx2-i32x8"\n[preconditions]\ntargetBudget = 2000000\nfileBudget = 4000000\n')
    path = tmp_path / "fwt.cl"
    path.write_text(text)
    server = Server(tmp_path)
    try:
        server.start(text, settings={"preconditions": {"enabled": True}}, uri=path.as_uri())
        server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                    and any(d.get("code") == "L0301" for d in m["params"]["diagnostics"]), timeout=120)
        reply = execute(server, "lanes.build", [server.uri])
        built = pathlib.Path(reply["result"]["object"]).read_bytes()
        assert server.stop() == 0
    finally:
        server.close()
    out = tmp_path / "cli.o"
    cli = subprocess.run([LANES, "build", str(path), "-o", str(out)], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert "note: fast path" in cli.stderr, cli.stderr
    assert out.read_bytes() == built


UNROLL_LIST = """__kernel void walk(__global float *a, __global const int *next, int n)
{
    int i = get_global_id(0);
    float s = 0.0f;
    int j = i;
    #pragma unroll 4
    while (j >= 0) {
        s += a[j];
        j = next[j];
    }
    a[i] = s;
}
"""


def test_build_returns_the_warnings_of_lanes_build(tmp_path):
    """A loop whose unroll pragma LLVM cannot honour: `lanes.build` writes the
    object and returns L0103 as `lanes build` prints it, at the `while`;
    a file without one returns no warning."""
    server = started(tmp_path, UNROLL_LIST)
    try:
        reply = execute(server, "lanes.build", [server.uri])
        result = reply["result"]
        assert pathlib.Path(result["object"]).stat().st_size > 0
        [warning] = result["warnings"]
        assert warning.startswith(f"{tmp_path / 'scale.cl'}:7:5: warning[L0103]: loop not unrolled"), warning
        assert server.stop() == 0
    finally:
        server.close()
    server = started(tmp_path)
    try:
        assert execute(server, "lanes.build", [server.uri])["result"]["warnings"] == []
        assert server.stop() == 0
    finally:
        server.close()
