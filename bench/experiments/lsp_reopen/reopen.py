"""Settling after open with the findings cache cold, then warm: the time
until `lanes lsp` logs the end of its first background inference
(LANES_LSP_TIMING), for a file opened in three servers one after the other.

Usage: .venv/bin/python bench/experiments/lsp_reopen/reopen.py FILE.cl
(target/release/lanes; scratch files and the cache in $TMPDIR/lanes-reopen)."""
import os, pathlib, sys, tempfile, time, shutil
ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "lsp"))
from raw_server import Server
LANES = str(ROOT / "target" / "release" / "lanes")
src = pathlib.Path(sys.argv[1])
tmp = pathlib.Path(tempfile.gettempdir()) / "lanes-reopen"
shutil.rmtree(tmp, ignore_errors=True); tmp.mkdir(parents=True)
cache = tmp / "cache"
env = {k: v for k, v in os.environ.items() if k not in ("LANES_CACHE",)}
env |= {"LANES_CACHE_DIR": str(cache), "LANES_LSP_TIMING": "1"}
path = tmp / src.name; path.write_text(src.read_text())
for run in ("cold", "warm", "warm"):
    s = Server(tmp, env=env, lanes=LANES)
    t = time.monotonic(); c0 = os.times()
    s.start(path.read_text(), settings={"preconditions": {"enabled": True}}, uri=path.as_uri())
    while "lanes lsp: preconditions of" not in s.stderr_text():
        try: s.receive(timeout=1)
        except AssertionError: pass
    el = time.monotonic() - t
    line = [l for l in s.stderr_text().splitlines() if "preconditions of" in l][0]
    s.stop()
    c1 = os.times()
    print(f"{src.name} {run}: settled in {el:.2f} s wall; server says: {line.split(' in ')[-1]}; cpu of children {c1.children_user + c1.children_system - c0.children_user - c0.children_system:.2f} s", flush=True)
print("entries:", len(list(cache.rglob('*.json'))))
