"""Diagnostics are published once per change: a background run of the
precondition inference that changes nothing publishes nothing (on a large
file every publish carries every kernel's diagnostics)."""

import json
import os
import pathlib
import queue
import subprocess
import threading

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
LANES = os.environ.get("LANES") or str(ROOT / "target" / "debug" / "lanes")

# Data-dependent control: inference runs on both kernels and finds nothing.
NOTHING_TO_INFER = """__kernel void pick(__global const float *a, __global float *b)
{
    int i = get_global_id(0);
    if (a[i] > 0.5f)
        b[i] = a[i] * 2.0f;
}

__kernel void walk(__global const int *next, __global int *out)
{
    int i = get_global_id(0);
    int p = next[i];
    while (p > 0)
        p = next[p];
    out[i] = p;
}
"""


def test_a_background_run_that_changes_nothing_publishes_nothing(tmp_path):
    path = tmp_path / "nothing.cl"
    path.write_text(NOTHING_TO_INFER)
    uri = path.as_uri()
    proc = subprocess.Popen([LANES, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(os.environ, LANES_LSP_TIMING="1"))
    messages, log = queue.Queue(), queue.Queue()

    def read_stdout():
        while True:
            length = None
            while True:
                line = proc.stdout.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            messages.put(json.loads(proc.stdout.read(length)))

    def read_stderr():
        for line in proc.stderr:
            log.put(line.decode(errors="replace"))

    threading.Thread(target=read_stdout, daemon=True).start()
    threading.Thread(target=read_stderr, daemon=True).start()

    def send(msg):
        body = json.dumps(msg).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        proc.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})
        # Notifications before the answer to `initialize` are dropped.
        while messages.get(timeout=60).get("id") != 1:
            pass
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": uri, "languageId": "opencl", "version": 1,
                                          "text": NOTHING_TO_INFER}}})
        # The end of the inference run is logged (LANES_LSP_TIMING).
        lines = []
        while not any("preconditions of" in l for l in lines):
            lines.append(log.get(timeout=300))
        send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        published = []
        while True:
            m = messages.get(timeout=60)
            if m.get("id") == 2:
                break
            if m.get("method") == "textDocument/publishDiagnostics":
                published.append(m["params"])
        assert [p["version"] for p in published] == [1], published
        assert any(d["code"] == "L0201" for d in published[0]["diagnostics"]), published
        send({"jsonrpc": "2.0", "method": "exit"})
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
