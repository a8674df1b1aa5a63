#!/usr/bin/env python3
"""Cross-checks the kernel corpus against clang (not part of `make test`).

    python3 tests/kernels/check_clang.py [--verbose]

valid/*.cl and examples/*.cl must compile with clang-19 as OpenCL C 2.0
without any warning or error (-Werror); its `//~` expectations are lanes'
performance warnings (and L0920 where the vectorizer cannot lower a kernel yet).

invalid/*.cl: the `//~ error[CODE]` expectations are lanes' codes, not
clang's, so this only compares *lines*: for error_/multi_/recovery_/
warning_ files it lists the lines where clang reports something but no
expectation sits, and expectation lines where clang is silent. Differences
are expected where clang's recovery differs from lanes' (documented in
README.md) or where lanes is stricter; they are for review, not failures.
unsupported_ files must be otherwise valid: clang may only complain on
expectation lines (with the clang-specific extension pragmas of PRELUDE
enabled, clang must accept them entirely, except VLAs). The script checks
too that every code L0001-L0024 and L0901-L0919 (but the retired L0902, L0903,
L0911, L0912 and L0917) is expected somewhere.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLANG = os.environ.get("CLANG", "clang-19")
FLAGS = ["-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header",
         "-fsyntax-only", "-Werror=implicit-function-declaration", "-ferror-limit=0"]
PRELUDE = """#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
#pragma OPENCL EXTENSION __cl_clang_variadic_functions : enable
#pragma OPENCL EXTENSION __cl_clang_bitfields : enable
"""
EXPECT = re.compile(r"//~(\^*)\s*((?:(?:error|warning)\[L\d{4}\]\s*)+)$")
ONE = re.compile(r"(error|warning)\[(L\d{4})\]")
DIAG = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|fatal error): (.*)$")


def clang(path, extra=()):
    p = subprocess.run([CLANG, *FLAGS, *extra, path], capture_output=True, text=True)
    diags = []
    for line in p.stderr.splitlines():
        m = DIAG.match(line)
        if m:
            diags.append((os.path.abspath(m.group(1)), int(m.group(2)), m.group(4), m.group(5)))
    return p.returncode, diags, p.stderr


def expectations(path):
    exp = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for n, line in enumerate(f, 1):
            m = EXPECT.search(line.rstrip("\n"))
            if m:
                target = n - len(m.group(1))
                for sev, code in ONE.findall(m.group(2)):
                    exp.setdefault(target, []).append((sev, code))
    return exp


def main():
    verbose = "--verbose" in sys.argv
    failures = 0

    valid = sorted(os.path.join(d, f) for d in [os.path.join(HERE, "valid"), os.path.join(ROOT, "examples")]
                   for f in os.listdir(d) if f.endswith(".cl"))
    for path in valid:
        rc, diags, err = clang(path, ["-Werror", "-I", os.path.join(HERE, "valid")])
        if rc != 0 or err.strip():
            failures += 1
            print(f"FAIL {os.path.relpath(path, ROOT)}\n{err}")
        elif any(sev == "error" and code != "L0920"
                 for found in expectations(path).values() for sev, code in found):
            failures += 1
            print(f"FAIL {os.path.relpath(path, ROOT)}: valid file expecting a front-end error")
    print(f"valid: {len(valid)} files checked")

    inv_dir = os.path.join(HERE, "invalid")
    covered = {}
    invalid = sorted(f for f in os.listdir(inv_dir) if f.endswith(".cl"))
    with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as pre:
        pre.write(PRELUDE)
    for name in invalid:
        path = os.path.join(inv_dir, name)
        exp = expectations(path)
        if not exp:
            failures += 1
            print(f"FAIL invalid/{name}: no expectations")
        for line, items in exp.items():
            for sev, code in items:
                covered.setdefault(code, set()).add(name)
        rc, diags, err = clang(path)
        mine = [d for d in diags if d[0] == os.path.abspath(path)]
        clang_lines = {d[1] for d in mine}
        if name.startswith("unsupported_"):
            stray = sorted(clang_lines - set(exp))
            rc2, diags2, err2 = clang(path, ["-include", pre.name])
            mine2 = [d for d in diags2 if d[0] == os.path.abspath(path)]
            status = "ok" if not stray else "CHECK"
            if stray:
                failures += 1
            print(f"{status:5} invalid/{name}: clang diagnostics on {sorted(clang_lines)},"
                  f" with extension pragmas on {sorted({d[1] for d in mine2})}; expected {sorted(exp)}")
            if verbose or stray:
                for d in mine:
                    print(f"        clang {d[1]}: {d[2]}: {d[3]}")
        else:
            missing = sorted(set(exp) - clang_lines)
            extra = sorted(clang_lines - set(exp))
            status = "same" if not missing and not extra else "diff"
            print(f"{status:5} invalid/{name}: expected {sorted(exp)}; clang-only lines {extra}; lanes-only lines {missing}")
            if verbose or extra:
                for d in mine:
                    print(f"        clang {d[1]}: {d[2]}: {d[3]}")
    os.unlink(pre.name)
    print(f"invalid: {len(invalid)} files")

    # L0911 (unions) and L0912 (enums) are retired: both are supported; so
    # are L0902 (__local memory), L0903 (atomics) and L0917 (work-group
    # collectives), which lanes compiles.
    # L0904 (images) and L0905 (printf) are code-generation errors only.
    wanted = [f"L{n:04d}" for n in list(range(1, 25)) + [901] + list(range(906, 911))
              + list(range(913, 917)) + [918, 919]]
    absent = [c for c in wanted if c not in covered]
    for c in sorted(covered):
        print(f"  {c}: {', '.join(sorted(covered[c]))}")
    if absent:
        failures += 1
        print("codes without an invalid file:", ", ".join(absent))
    print("FAILURES:", failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
