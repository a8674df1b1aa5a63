"""`lanes lsp` against malformed input, through a real process and raw bytes
on its stdin: whatever arrives, the server answers with the JSON-RPC error
the specification gives, keeps processing the next message, and exits 0
after shutdown + exit. Run with

    LANES=target/debug/lanes .venv/bin/python -m pytest tests/lsp/test_transport.py
"""

import json
import random

import pytest

from raw_server import HOVER_AT, KERNEL, LINES, Server, encode, frame

# The error codes of JSON-RPC and LSP.
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
KNOWN_CODES = {PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS,
               -32603, -32002, -32800, -32801, -32803}


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    try:
        s.start()
        yield s
    finally:
        s.close()


def errors_after(server: Server, mark: int):
    return [m["error"] | {"id": m["id"]} for m in server.seen[mark:] if "error" in m]


def logs_after(server: Server, mark: int):
    return [m["params"]["message"] for m in server.seen[mark:]
            if m.get("method") == "window/logMessage"]


HOVER = {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
         "params": {"textDocument": {"uri": "file:///x.cl"}, "position": {"line": 0, "character": 0}}}


# (name, bytes, the error expected: (code, id) or None for no answer,
#  a word of the log message expected or None)
CASES = [
    ("array", frame(b"[1,2,3]"), (INVALID_REQUEST, None), None),
    ("empty array", frame(b"[]"), (INVALID_REQUEST, None), None),
    ("string", frame(b'"hello"'), (INVALID_REQUEST, None), None),
    ("empty object", frame(b"{}"), (INVALID_REQUEST, None), None),
    ("no jsonrpc", frame(b'{"id":77,"method":"shutdown"}'), (INVALID_REQUEST, 77), None),
    ("jsonrpc 1.0", frame(b'{"jsonrpc":"1.0","id":78,"method":"shutdown"}'), (INVALID_REQUEST, 78), None),
    ("not json", frame(b'{"jsonrpc":'), (PARSE_ERROR, None), None),
    ("not utf-8", frame(b'{"a":"\xff"}'), (PARSE_ERROR, None), None),
    ("truncated body", b"Content-Length: 200\r\n\r\n" + encode(HOVER)[:30], (PARSE_ERROR, None), None),
    ("huge length", b"Content-Length: 1000000\r\n\r\n{", (PARSE_ERROR, None), None),
    ("length beyond the limit", b"Content-Length: 99999999999999\r\n\r\n{}", None, "largest message"),
    ("garbage length", b"Content-Length: ten\r\n\r\n{}", None, "not a decimal number"),
    ("no length", b"Content-Type: application/json\r\n\r\n{}", None, "without Content-Length"),
    ("bytes without a header", b"\x00\x01hello\xff", None, "not a header"),
    ("float id", frame(b'{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}'), (INVALID_REQUEST, None), None),
    ("params a string", frame(b'{"jsonrpc":"2.0","id":79,"method":"textDocument/hover","params":"x"}'),
     (INVALID_REQUEST, 79), None),
    ("unknown method", frame(b'{"jsonrpc":"2.0","id":80,"method":"no/such"}'), (METHOD_NOT_FOUND, 80), None),
    ("hover without params", frame(b'{"jsonrpc":"2.0","id":81,"method":"textDocument/hover"}'),
     (INVALID_PARAMS, 81), None),
    ("response to nothing", frame(b'{"jsonrpc":"2.0","id":9999,"result":null}'), None, None),
]


@pytest.mark.parametrize("data,expected,logged", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_input_is_answered_and_the_next_request_served(server, data, expected, logged):
    before = server.hover()
    mark = len(server.seen)
    server.send_raw(data)
    assert server.hover() == before
    if expected and expected[1] is not None and not any(e["id"] == expected[1] for e in errors_after(server, mark)):
        server.wait(lambda m: m.get("id") == expected[1])
    errors = [(e["code"], e["id"]) for e in errors_after(server, mark)]
    assert errors == ([expected] if expected else []), server.seen[mark:]
    if logged:
        assert any(logged in m for m in logs_after(server, mark)), server.seen[mark:]
    assert server.proc.poll() is None
    assert server.stop() == 0


def change(server: Server, start, end, text="X"):
    server.version += 1
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": server.uri, "version": server.version},
        "contentChanges": [{"range": {"start": {"line": start[0], "character": start[1]},
                                      "end": {"line": end[0], "character": end[1]}},
                            "text": text}]})


@pytest.mark.parametrize("start,end,why", [
    ((-1, 0), (0, 0), "start.line` is -1"),
    ((0, 0), (0, 2**32), "end.character` is 4294967296"),
    ((LINES + 1, 0), (LINES + 1, 0), f"line {LINES + 1}, past the last line ({LINES})"),
    ((2, 0), (1, 0), "starts (2:0) after it ends (1:0)"),
], ids=["negative", "beyond 2^32", "line past the end", "start after end"])
def test_a_change_with_an_invalid_range_is_not_applied(server, start, end, why):
    """The change is ignored with a log message; the document stays as it
    was, so a later valid edit lands where the editor meant it."""
    before = server.hover()
    mark = len(server.seen)
    change(server, start, end, "BROKEN")
    server.wait(lambda m: m.get("method") == "window/logMessage" and why in m["params"]["message"])
    assert server.hover() == before
    # A valid edit after it: `2.0f` → `3.0f` on line 4, as on the text the
    # editor has, and the diagnostics are of that text (no syntax error).
    col = KERNEL.split("\n")[4].index("2.0f")
    change(server, (4, col), (4, col + 1), "3")
    diags = server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"].get("version") == server.version)
    assert all(d["severity"] != 1 for d in diags["params"]["diagnostics"]), diags
    assert server.hover() == before
    assert not [e for e in errors_after(server, mark)]
    assert server.stop() == 0


def mutations(rng: random.Random, k: int, server: Server):
    """One malformed input: (bytes, the error code expected from the reader
    or None). Mutations of a hover request (ids from 1,000,000 on) and of
    edits, and random bytes."""
    id_ = 1_000_000 + k
    hover = {"jsonrpc": "2.0", "id": id_, "method": "textDocument/hover",
             "params": {"textDocument": {"uri": server.uri}, "position": dict(HOVER_AT)}}
    body = encode(hover)
    kind = rng.randrange(12)
    if kind == 0:  # cut short, with the original length
        return b"Content-Length: %d\r\n\r\n" % len(body) + body[:rng.randrange(len(body))], PARSE_ERROR
    if kind == 1:  # cut short, framed as what it is
        return frame(body[:rng.randrange(1, len(body))]), PARSE_ERROR
    if kind == 2:  # a member of the wrong type, or missing
        key = rng.choice(["jsonrpc", "method", "id", "params"])
        bad = dict(hover)
        value = rng.choice([None, 1.5, [], {}, True, "1.0", 2**70, "DELETE"])
        if value == "DELETE" or (key == "params" and value is None):
            bad.pop(key)
            if key in ("method", "params"):
                return frame(encode(bad)), None  # a response shape / missing params
        else:
            bad[key] = value
        return frame(encode(bad)), None
    if kind == 3:  # positions of the wrong type
        bad = json.loads(body)
        bad["params"]["position"][rng.choice(["line", "character"])] = rng.choice(
            [-1, 2**32, 2**70, "x", None, 0.5])
        return frame(encode(bad)), None
    if kind == 4:  # a huge length then a body
        n = rng.choice([10**6, 10**9, 10**15, 2**64])
        return b"Content-Length: %d\r\n\r\n" % n + body, None
    if kind == 5:  # a garbage header
        header = rng.choice([b"Content-Length: -5", b"Content-Length:", b"Content-Lnegth: 5",
                             b"Content-Length: 0x10", b"X: y"])
        return header + b"\r\n\r\n" + body, None
    if kind == 6:  # random bytes
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))), None
    if kind == 7:  # random printable bytes, with line ends
        alphabet = b"{}[]\":,0123456789abc \r\n"
        return bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 200))), None
    if kind == 8:  # valid JSON, not a message
        return frame(rng.choice([b"[1,2,3]", b'"hello"', b"{}", b"null", b"42", b"[]",
                                 b'{"jsonrpc":"2.0"}'])), INVALID_REQUEST
    if kind == 9:  # an edit with a range that is not one
        server.version += 1
        line = rng.choice([-1, 2**32, LINES + 5])
        return frame(encode({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": server.uri, "version": server.version},
            "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                          "end": {"line": line, "character": 0}},
                                "text": "BROKEN"}]}})), None
    if kind == 10:  # a response to no request, or a malformed one
        return frame(encode(rng.choice([
            {"jsonrpc": "2.0", "id": id_, "result": None},
            {"jsonrpc": "2.0", "id": id_, "error": {"code": "x"}},
            {"jsonrpc": "2.0", "id": id_, "result": 1, "error": {"code": 1, "message": "m"}},
        ]))), None
    # bytes flipped in a valid message
    data = bytearray(frame(body))
    for _ in range(rng.randrange(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data), None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzzed_input_between_requests(tmp_path, seed):
    """Random and mutated messages, each followed by a hover: every hover
    gets the answer it got before, every error is one of the protocol's, the
    process stays up, and shutdown + exit ends it with status 0."""
    rng = random.Random(seed)
    server = Server(tmp_path)
    try:
        server.start()
        expected = server.hover()
        assert expected and expected["contents"]["value"], expected
        for k in range(300):
            data, code = mutations(rng, k, server)
            mark = len(server.seen)
            server.send_raw(data)
            assert server.hover() == expected, (k, data)
            codes = [e["code"] for e in errors_after(server, mark)]
            assert set(codes) <= KNOWN_CODES, (k, data, server.seen[mark:])
            if code is not None:
                assert code in codes, (k, data, server.seen[mark:])
            assert server.proc.poll() is None, (k, data)
        assert server.stop() == 0
    finally:
        server.close()
