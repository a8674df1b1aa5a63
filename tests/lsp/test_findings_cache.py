"""The editor reads and writes the findings cache of `lanes build` and
`lanes check` (docs/preconditions.md, *The findings cache*): a file opened
again in a new server gets its kernels' findings from the cache, without
running Z3, and shows exactly what the first server inferred."""

import os
import pathlib
import queue
import time

from raw_server import ROOT, Server

PREFIX_SUM = ROOT / "tests" / "kernels" / "precond" / "prefix_sum.cl"
KERNELS = ["prefix_sum_up", "prefix_sum_down", "group_prefixSum"]


def settled(server, timeout=240):
    """The diagnostics of the last publish once the background inference of
    the open file has ended (LANES_LSP_TIMING logs its end)."""
    deadline = time.monotonic() + timeout
    last = None
    while "lanes lsp: preconditions of" not in server.stderr_text():
        assert time.monotonic() < deadline, server.stderr_text()
        try:
            m = server.receive(timeout=1)
        except AssertionError:
            continue
        if m.get("method") == "textDocument/publishDiagnostics":
            last = m["params"]["diagnostics"]
    # What was sent before the log line.
    while True:
        try:
            m = server.inbox.get(timeout=2)
        except queue.Empty:
            break
        assert m is not None, server.stderr_text()
        if m.get("method") == "textDocument/publishDiagnostics":
            last = m["params"]["diagnostics"]
    return last


def said(server, what):
    return [l.split()[2] for l in server.stderr_text().splitlines() if l.startswith(f"cache: {what} ")]


def test_a_file_opened_again_gets_its_findings_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in ("LANES_CACHE", "XDG_CACHE_HOME")}
    env |= {"LANES_CACHE_DIR": str(cache), "LANES_CACHE_DEBUG": "1", "LANES_LSP_TIMING": "1"}
    path = tmp_path / "prefix_sum.cl"
    text = PREFIX_SUM.read_text()
    path.write_text(text)
    shown = []
    for run in ("first", "again"):
        server = Server(tmp_path, env=env)
        try:
            server.start(text, settings={"preconditions": {"enabled": True}}, uri=path.as_uri())
            diags = settled(server)
            assert any(d.get("code") == "L0301" for d in diags), diags
            shown.append(diags)
            hits, misses = said(server, "hit"), said(server, "miss")
            assert server.stop() == 0
        finally:
            server.close()
        if run == "first":
            assert hits == [] and misses == KERNELS, (hits, misses)
            entries = [p for p in cache.rglob("*.json")]
            assert len(entries) == len(KERNELS), entries
        else:
            assert hits == KERNELS and misses == [], (hits, misses)
    assert shown[0] == shown[1]

    # Turned off: nothing read or written.
    off = tmp_path / "off"
    server = Server(tmp_path, env=env | {"LANES_CACHE": "off", "LANES_CACHE_DIR": str(off)})
    try:
        server.start(text, settings={"preconditions": {"enabled": True}}, uri=path.as_uri())
        assert settled(server) == shown[0]
        assert "cache:" not in server.stderr_text()
        assert server.stop() == 0
    finally:
        server.close()
    assert not off.exists()
