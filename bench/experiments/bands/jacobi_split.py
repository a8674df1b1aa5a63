#!/usr/bin/env python3
"""Hand-edited copies of jacobi_2d's `lanes build --emit asm` output that
show what splitting the band-row loop at its guards would buy
(bench/RESULTS.md, 2026-11-27 22:30-23:06, branch `jac4`).

  jS.s  the middle of a split loop: every SIMD group takes the all-active
        path (no broadcast, no guards); the groups on the boundary columns
        are computed too, so only the interior of B is compared.
  jR.s  jS.s with `B` in a register (rbp, saved around the loop) instead
        of reloaded from the stack in every SIMD group.

Usage: jacobi_split.py jacobi.s   (writes jS.s and jR.s beside it)
Written against the assembly of ba00ef3; the patterns assert that they
match once.
"""
import os
import re
import sys

src = sys.argv[1]
s = open(src).read()
out = os.path.dirname(os.path.abspath(src))

# The loop header: x = base + 8c, the hoisted broadcast, the guards.
hdr = re.compile(
    r"(?P<head>\.LBB\d+_\d+):\n"
    r"\tleaq\t\((?P<base>%r\w+),(?P<c>%r\w+),8\), (?P<x>%r\w+)\n"
    r"\tvmovd\t%e\w+, %xmm\d+\n"
    r"\tvpbroadcastd\t%xmm\d+, %ymm\d+\n"
    r"\ttestq\t(?P=x), (?P=x)\n"
    r"\tjle\t\.LBB\d+_\d+\n"
    r"\tcmpq\t-?\d+\(%rsp\), (?P=x)\n"
    r"\tjl\t(?P<fast>\.LBB\d+_\d+)\n"
)
m = list(hdr.finditer(s))
assert len(m) == 1, f"{len(m)} loop headers"
m = m[0]
jS = s[: m.start()] + (
    f"{m['head']}:\n\tleaq\t({m['base']},{m['c']},8), {m['x']}\n\tjmp\t{m['fast']}\n"
) + s[m.end():]
open(os.path.join(out, "jS.s"), "w").write(jS)

# The all-active block's store of B through a reloaded pointer, and the
# loop's end.
st = re.compile(
    r"\tmovq\t(?P<slot>-?\d+\(%rsp\)), (?P<p>%r\w+)\n"
    r"\tvmovups\t(?P<v>%ymm\d+), \((?P=p),(?P<i>%r\w+),4\)\n"
    r"(?P<cont>\.LBB\d+_\d+):\n"
    r"\tincq\t" + re.escape(m["c"]) + r"\n"
    r"\tdecq\t(?P<n>%r\w+)\n"
    r"\tje\t(?P<exit>\.LBB\d+_\d+)\n"
)
k = list(st.finditer(jS))
assert len(k) == 1, f"{len(k)} stores"
k = k[0]
jR = jS[: k.start()] + (
    f"\tvmovups\t{k['v']}, (%rbp,{k['i']},4)\n{k['cont']}:\n"
    f"\tincq\t{m['c']}\n\tdecq\t{k['n']}\n\tje\t.Lrestore\n"
) + jS[k.end():]
# Into the loop: save rbp (the caller's loop counter) and load B; out of
# it: restore rbp.
pre = re.compile(r"\txorl\t%" + m["c"][1:] + "d, %" + m["c"][1:] + r"d\n\tjmp\t" + re.escape(m["head"]) + "\n")
p = list(pre.finditer(jR))
assert len(p) == 1, f"{len(p)} loop entries"
p = p[0]
jR = jR[: p.start()] + p.group(0).replace(
    "\tjmp", f"\tmovq\t%rbp, saved_rbp(%rip)\n\tmovq\t{k['slot']}, %rbp\n\tjmp"
) + jR[p.end():]
jR = jR.replace(f"{k['exit']}:\n", f".Lrestore:\n\tmovq\tsaved_rbp(%rip), %rbp\n{k['exit']}:\n", 1)
jR += "\n\t.local saved_rbp\n\t.comm saved_rbp,8,8\n"
open(os.path.join(out, "jR.s"), "w").write(jR)
