"""The findings cache of `lanes build` and `lanes check` on real processes
(docs/preconditions.md, *The findings cache*): a warm build writes what a
cold one writes, byte for byte; an edit infers only the kernels it touched;
a corrupt entry is a miss; an unwritable cache warns once and changes
nothing; concurrent builds share a cache. Every test has a cache directory
of its own (LANES_CACHE_DIR), never the user's."""

import concurrent.futures
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
PREFIX_SUM = ROOT / "tests" / "kernels" / "precond" / "prefix_sum.cl"
KERNELS = ["prefix_sum_up", "prefix_sum_down", "group_prefixSum"]


def env(cache, **more):
    e = dict(os.environ)
    for k in ("LANES_CACHE", "LANES_CACHE_DIR", "XDG_CACHE_HOME"):
        e.pop(k, None)
    if cache is None:
        e["LANES_CACHE"] = "off"
    else:
        e["LANES_CACHE_DIR"] = str(cache)
    e["LANES_CACHE_DEBUG"] = "1"
    e.update(more)
    return e


def build(lanes, src, out_dir, cache, target="avx2-i32x8", **more):
    out_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [lanes, "build", "--target", target, "-o", str(out_dir / "k.o"),
         "--header", str(out_dir / "k.h"), str(src)],
        capture_output=True, text=True, env=env(cache, **more), timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def outputs(out_dir):
    return (out_dir / "k.o").read_bytes(), (out_dir / "k.h").read_bytes()


def said(stderr, what):
    """The kernels of the cache's `hit`/`miss` lines."""
    return [l.split()[2] for l in stderr.splitlines() if l.startswith(f"cache: {what} ")]


def notes(stderr):
    return [l for l in stderr.splitlines() if not l.startswith("cache: ")]


def entries(cache):
    return sorted(p for p in pathlib.Path(cache).rglob("*") if p.is_file())


def test_a_warm_build_writes_what_a_cold_build_writes(lanes, tmp_path):
    src = tmp_path / "prefix_sum.cl"
    src.write_text(PREFIX_SUM.read_text())
    cache = tmp_path / "cache"
    cold = build(lanes, src, tmp_path / "cold", None)
    assert said(cold, "hit") == said(cold, "miss") == []
    fill = build(lanes, src, tmp_path / "fill", cache)
    assert said(fill, "miss") == KERNELS and said(fill, "hit") == []
    warm = build(lanes, src, tmp_path / "warm", cache)
    assert said(warm, "hit") == KERNELS and said(warm, "miss") == []
    assert outputs(tmp_path / "cold") == outputs(tmp_path / "fill") == outputs(tmp_path / "warm")
    assert notes(cold) == notes(fill) == notes(warm)
    assert any("fast path" in n for n in notes(warm))
    assert len(entries(cache)) == 3

    # The vector IR and `lanes check`'s findings too (the editor budget:
    # entries of their own).
    vir = [subprocess.run([lanes, "build", "--target", "avx2-i32x8", "--emit", "vir", str(src)],
                          capture_output=True, env=env(c), timeout=600).stdout
           for c in (None, cache, cache)]
    assert vir[0] == vir[1] == vir[2] and vir[0]
    checks = []
    for c in (None, cache, cache):
        p = subprocess.run([lanes, "check", "--format", "json", "--target", "avx2-i32x8", str(src)],
                           capture_output=True, env=env(c), timeout=600)
        checks.append((p.stdout, said(p.stderr.decode(), "hit")))
    assert checks[0][0] == checks[1][0] == checks[2][0]
    assert "L0301" in checks[0][0].decode()
    assert checks[1][1] == [] and checks[2][1] == KERNELS
    explains = [subprocess.run([lanes, "explain", "--format", "json", "--target", "avx2-i32x8", str(src)],
                               capture_output=True, env=env(c), timeout=600)
                for c in (None, cache)]
    assert explains[0].stdout == explains[1].stdout
    assert said(explains[1].stderr.decode(), "hit") == KERNELS


def test_an_edit_infers_only_the_kernels_it_touched(lanes, tmp_path):
    src = tmp_path / "prefix_sum.cl"
    text = PREFIX_SUM.read_text()
    src.write_text(text)
    cache = tmp_path / "cache"
    build(lanes, src, tmp_path / "a", cache)
    # Lines above every kernel: their findings move with them.
    text = "// moved down\n\n" + text
    src.write_text(text)
    moved = build(lanes, src, tmp_path / "moved", cache)
    assert said(moved, "hit") == KERNELS
    build(lanes, src, tmp_path / "moved_cold", None)
    assert outputs(tmp_path / "moved") == outputs(tmp_path / "moved_cold")
    # An edit in the last kernel.
    edited = text.replace("    int offset = 1;\n", "    int offset = 1;\n    int unused = base;\n")
    assert edited != text
    src.write_text(edited)
    warm = build(lanes, src, tmp_path / "warm", cache)
    assert said(warm, "miss") == ["group_prefixSum"]
    assert said(warm, "hit") == KERNELS[:2]
    cold = build(lanes, src, tmp_path / "cold", None)
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "cold")
    assert notes(warm) == notes(cold)


def test_a_corrupt_entry_is_a_miss(lanes, tmp_path):
    cache = tmp_path / "cache"
    build(lanes, PREFIX_SUM, tmp_path / "fill", cache)
    files = entries(cache)
    assert len(files) == 3
    files[0].write_bytes(files[0].read_bytes()[:40])
    files[1].write_bytes(b"\x00\xff not json")
    files[2].write_text("{}")
    stderr = build(lanes, PREFIX_SUM, tmp_path / "again", cache)
    assert said(stderr, "miss") == KERNELS
    assert "warning" not in stderr
    assert outputs(tmp_path / "again") == outputs(tmp_path / "fill")
    # Written again, whole.
    for f in entries(cache):
        json.loads(f.read_text())
    assert said(build(lanes, PREFIX_SUM, tmp_path / "warm", cache), "hit") == KERNELS


def test_an_unwritable_cache_warns_once_and_changes_nothing(lanes, tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    cold = build(lanes, PREFIX_SUM, tmp_path / "cold", None)
    # Two targets: six kernels' findings that cannot be stored.
    stderr = build(lanes, PREFIX_SUM, tmp_path / "blocked", blocker / "cache",
                   target="sse4-i32x4,avx2-i32x8")
    warnings = [l for l in stderr.splitlines() if l.startswith("warning")]
    assert len(warnings) == 1, stderr
    assert "findings cache" in warnings[0] and "not-a-directory" in warnings[0]
    stderr = build(lanes, PREFIX_SUM, tmp_path / "blocked", blocker / "cache")
    assert outputs(tmp_path / "blocked") == outputs(tmp_path / "cold")
    assert [l for l in notes(stderr) if not l.startswith("warning")] == notes(cold)


def test_concurrent_builds_share_a_cache(lanes, tmp_path):
    cache = tmp_path / "cache"
    n = 6
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        done = list(pool.map(lambda i: build(lanes, PREFIX_SUM, tmp_path / f"b{i}", cache), range(n)))
    first = outputs(tmp_path / "b0")
    assert all(outputs(tmp_path / f"b{i}") == first for i in range(n))
    assert all(notes(d) == notes(done[0]) for d in done)
    # No temporary file left behind, every entry whole.
    files = entries(cache)
    assert len(files) == 3, files
    for f in files:
        json.loads(f.read_text())
    warm = build(lanes, PREFIX_SUM, tmp_path / "warm", cache)
    assert said(warm, "hit") == KERNELS
    assert outputs(tmp_path / "warm") == first


def test_where_the_cache_is_and_how_it_is_turned_off(lanes, tmp_path):
    home = tmp_path / "home"
    xdg = tmp_path / "xdg"
    home.mkdir()
    e = env(tmp_path / "unused", HOME=str(home))
    del e["LANES_CACHE_DIR"]
    src = ROOT / "tests" / "kernels" / "precond" / "fast_walsh_transform.cl"
    out = str(tmp_path / "k.o")
    cmd = [lanes, "build", "--target", "avx2-i32x8", "-o", out, str(src)]
    subprocess.run(cmd, check=True, capture_output=True, env=e, timeout=600)
    assert len(entries(home / ".cache" / "lanes")) == 1
    subprocess.run(cmd, check=True, capture_output=True, env={**e, "XDG_CACHE_HOME": str(xdg)}, timeout=600)
    assert len(entries(xdg / "lanes")) == 1
    # Off: nothing read, nothing written.
    for off in ({"LANES_CACHE": "off"}, {}):
        extra = ["--no-cache"] if not off else []
        p = subprocess.run(cmd[:2] + extra + cmd[2:], capture_output=True, text=True,
                           env={**e, "LANES_CACHE_DIR": str(tmp_path / "off"), **off}, timeout=600)
        assert p.returncode == 0 and "cache:" not in p.stderr, p.stderr
        assert not (tmp_path / "off").exists()
    # `lanes cache show` and `clean`.
    e["LANES_CACHE_DIR"] = str(home / ".cache" / "lanes")
    show = subprocess.run([lanes, "cache", "show"], capture_output=True, text=True, env=e, check=True)
    assert show.stdout.splitlines()[0] == str(home / ".cache" / "lanes")
    assert show.stdout.splitlines()[1].startswith("1 entries")
    subprocess.run([lanes, "cache", "clean"], capture_output=True, env=e, check=True)
    assert entries(home / ".cache" / "lanes") == []


def test_the_cache_is_kept_within_its_bound(lanes, tmp_path):
    cache = tmp_path / "cache"
    build(lanes, PREFIX_SUM, tmp_path / "fill", cache)
    first = entries(cache)
    assert len(first) == 3
    shards = cache / first[0].parent.parent.name
    # Two old entries of 3,000 bytes in each of the 256 directories.
    old = 1_600_000_000
    for i in range(256):
        d = shards / f"{i:02x}"
        d.mkdir(exist_ok=True)
        for j in range(2):
            f = d / f"old{j}.json"
            f.write_bytes(b"x" * 3000)
            os.utime(f, (old + j, old + j))
    # 4,000 bytes per directory: writing an entry removes its directory's
    # old ones (least recently used first), no other.
    bound = {"LANES_CACHE_MAX_SIZE": str(256 * 4000)}
    stderr = build(lanes, PREFIX_SUM, tmp_path / "sse", cache, target="sse4-i32x4", **bound)
    assert said(stderr, "miss") == KERNELS
    new = [p for p in entries(cache) if not p.name.startswith("old") and p not in first]
    assert len(new) == 3
    written = {p.parent for p in new}
    for d in shards.iterdir():
        size = sum(f.stat().st_size for f in d.iterdir())
        olds = sorted(f.name for f in d.iterdir() if f.name.startswith("old"))
        if d in written:
            assert olds == [] and size <= 4000, (d, olds, size)
        else:
            assert olds == ["old0.json", "old1.json"], d
    # The entries in use stay and are read.
    assert all(p.exists() for p in first)
    assert said(build(lanes, PREFIX_SUM, tmp_path / "warm", cache, **bound), "hit") == KERNELS
    show = subprocess.run([lanes, "cache", "show"], capture_output=True, text=True,
                          env=env(cache, **bound), check=True)
    assert f"kept within {256 * 4000} bytes" in show.stdout
    # A bound that is not a size: a warning, and the default bound.
    bad = subprocess.run([lanes, "cache", "show"], capture_output=True, text=True,
                         env=env(cache, LANES_CACHE_MAX_SIZE="lots"), check=True)
    assert "LANES_CACHE_MAX_SIZE=`lots` is not a size" in bad.stderr
    assert f"kept within {100 << 20} bytes" in bad.stdout
