"""A `lanes lsp` process spoken to in raw bytes (the tests that need to
send what no LSP client library sends, or to see every message)."""

import json
import os
import pathlib
import queue
import subprocess
import tempfile
import threading

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
LANES = os.environ.get("LANES") or str(ROOT / "target" / "debug" / "lanes")

KERNEL = """__kernel void scale(__global float *a, int n)
{
    int i = get_global_id(0);
    if (a[i] > 0.0f) {
        a[i] = a[i] * 2.0f;
    }
}
"""
LINES = KERNEL.count("\n")
# The load `a[i]` in `a[i] * 2.0f`.
HOVER_AT = {"line": 4, "character": 19}


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(msg) -> bytes:
    return json.dumps(msg).encode()


class Server:
    """A `lanes lsp` process spoken to in bytes; what it sends is read by a
    thread into a queue of decoded messages."""

    def __init__(self, tmp: pathlib.Path, *args, env=None, lanes=LANES):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([lanes, "lsp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr,
                                     env=env or os.environ)
        self.inbox = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 1
        self.tmp = tmp

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            self.inbox.put(json.loads(out.read(length)))

    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        self.send_raw(frame(encode(msg)))

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def receive(self, timeout=60):
        try:
            msg = self.inbox.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message from the server in {timeout} s; it sent {self.seen[-5:]}")
        assert msg is not None, "the server closed its output: " + self.stderr_text()
        self.seen.append(msg)
        return msg

    def wait(self, pred, timeout=60):
        while True:
            msg = self.receive(timeout)
            if pred(msg):
                return msg

    def request(self, method, params=None, timeout=60):
        id_ = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.wait(lambda m: m.get("id") == id_ and "method" not in m, timeout)

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def start(self, text=KERNEL, settings=None, uri="file:///lanes-test/scale.cl"):
        """initialize (with `settings` over no background inference, so that
        hovers stay the same), initialized, and `text` opened as `uri`; waits
        for its first diagnostics."""
        options = {"preconditions": {"enabled": False}} | (settings or {})
        reply = self.request("initialize", {
            "processId": os.getpid(), "rootUri": self.tmp.as_uri(), "capabilities": {},
            "initializationOptions": options,
        })
        assert "capabilities" in reply["result"], reply
        self.notify("initialized", {})
        # By default not under tmp: the fuzzed messages (made of this URI)
        # are the same on every run.
        self.uri = uri
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": self.uri, "languageId": "opencl", "version": 1, "text": text}})
        self.version = 1
        self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")

    def hover(self):
        reply = self.request("textDocument/hover", {
            "textDocument": {"uri": self.uri}, "position": HOVER_AT})
        assert "result" in reply, reply
        return reply["result"]

    def stop(self):
        """shutdown + exit; the exit status."""
        reply = self.request("shutdown")
        assert reply.get("result", "missing") is None, reply
        self.notify("exit", None)
        try:
            return self.proc.wait(timeout=30)
        finally:
            self.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.stderr.close()
