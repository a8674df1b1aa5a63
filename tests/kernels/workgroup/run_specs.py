#!/usr/bin/env python3
"""Runs the `// run:` launch specs of the work-group corpus on an OpenCL
implementation and checks the results.

Each spec is a comment line in `lanes run`'s argument syntax:

    // run: KERNEL --global X[,Y[,Z]] --local X[,Y[,Z]] [-D NAME=V] --arg name=VALUE ...

Buffer values: `random:N`, `random:N:LO:HI`, `zeros:N`, `fill:N:V`,
`iota:N` (N elements of the parameter's element type; random floats are in
[0, 1) and random integers in [0, 100) unless LO:HI is given, integers
rounded down); `local:BYTES` for a `__local` pointer; scalars are written as
numbers. Random buffers use a fixed seed, so a run is reproducible.

Two runtimes:
- `pocl` (the system's OpenCL loader, PoCL platform): every spec must run
  without an OpenCL error, and where `REFERENCES` has a host reference for
  the kernel, the buffers it names must equal it (integers exactly, floats
  within a relative tolerance).
- `oclgrind` (`/usr/lib/oclgrind/liboclgrind-rt.so`, with data-race,
  uninitialized-value and barrier checks): a file with no `// expect-run:`
  line must produce no finding; a file with
  `// expect-run: DataRace at LINE` or `// expect-run: BarrierDivergence at LINE`
  must produce that finding on that line.

A file may say `// skip-runtime: pocl oclgrind -- REASON` for features a
runtime lacks (its specs are still parsed), and `// oclgrind: ignore
uninitialized` (with the reason) where oclgrind's uninitialized-value
tracking is known to be wrong; run alone, such a file runs without that
plugin.

Files are built with `-cl-std=CL2.0` unless a `// build: OPTIONS` line says
otherwise (oclgrind builds with `-cl-std=CL1.2` when the file allows it).

A third runtime, `lanes`, is the project's reference interpreter
(`lanes run --interpret`, data-race and barrier checks on): every spec must
run; where PoCL runs the file, the interpreter gets PoCL's inputs
(`--arg NAME=file:PATH`) and every buffer must equal PoCL's (the elements a
host reference leaves open, or compares in any order, are treated the same
way); otherwise it makes its own inputs and must match the host reference.
Seeded bugs must stop it with their `expect-run` finding on that line.

The same with `--runtime lanes --target TARGET` runs the code `lanes run`
compiles for TARGET instead of the interpreter (files with seeded bugs are
left out: their behaviour is undefined).

Usage: run_specs.py [--runtime pocl|oclgrind|lanes] [--target T] [FILE.cl ...]
(default: every .cl file of this directory, races/ and invalid/).
Exit status 0 when every spec passed, 1 otherwise, 77 when the runtime is
missing.
"""

import ctypes
import json
import math
import os
import random
import re
import shlex
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from references import REFERENCES, SCHEDULE_DEPENDENT, AnyOrder  # noqa: E402

SEED = 1
SKIP = 77


# ---------------------------------------------------------------------------
# Launch specs


class Spec:
    def __init__(self, path, line, text):
        self.path = path
        self.line = line
        words = shlex.split(text)
        self.kernel = words[0]
        self.global_size = None
        self.local_size = None
        self.defines = []
        self.args = {}
        i = 1
        while i < len(words):
            w = words[i]
            if w in ("--global", "--local", "--arg", "-D", "--kernel"):
                v = words[i + 1]
                i += 2
            elif w.startswith("-D"):
                w, v = "-D", w[2:]
                i += 1
            else:
                raise ValueError(f"{path}:{line}: unknown word `{w}` in run spec")
            if w == "--global":
                self.global_size = [int(x) for x in v.split(",")]
            elif w == "--local":
                self.local_size = [int(x) for x in v.split(",")]
            elif w == "-D":
                self.defines.append(v)
            elif w == "--kernel":
                self.kernel = v
            else:
                name, _, value = v.partition("=")
                self.args[name] = value
        if self.global_size is None:
            raise ValueError(f"{path}:{line}: run spec without --global")

    def __str__(self):
        return f"{self.path.name}:{self.line}: {self.kernel}"


def read_specs(path):
    text = path.read_bytes().decode("latin-1")
    specs, expect, build = [], [], None
    for i, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*//\s*run:\s*(.*)", line)
        if m:
            specs.append(Spec(path, i, m.group(1)))
        m = re.match(r"\s*//\s*expect-run:\s*(\w+) at (\d+)", line)
        if m:
            expect.append((m.group(1), int(m.group(2))))
        m = re.match(r"\s*//\s*build:\s*(.*)", line)
        if m:
            build = m.group(1).strip()
    return specs, expect, build


# ---------------------------------------------------------------------------
# Element types

SCALARS = {
    "char": ("b", False), "uchar": ("B", False), "short": ("h", False),
    "ushort": ("H", False), "int": ("i", False), "uint": ("I", False),
    "long": ("q", False), "ulong": ("Q", False), "float": ("f", True),
    "double": ("d", True), "half": ("e", True), "size_t": ("Q", False),
    "unsigned int": ("I", False), "unsigned char": ("B", False),
}


def elem_type(type_name):
    """(struct code, components, is_float) of an argument type name such as
    `float4*`, `uint*` or `int`."""
    t = type_name.replace("*", "").replace("const", "").replace("restrict", "").strip()
    t = t.removeprefix("atomic_")
    if t.startswith("enum "):
        t = "int"
    m = re.fullmatch(r"([a-z ]+?)(2|3|4|8|16)?", t)
    if not m or m.group(1) not in SCALARS:
        raise ValueError(f"unsupported argument type `{type_name}`")
    code, is_float = SCALARS[m.group(1)]
    n = int(m.group(2) or 1)
    return code, (4 if n == 3 else n), is_float


def make_values(spec_text, code, comps, is_float, rng):
    kind, *rest = spec_text.split(":")
    n = int(rest[0]) * comps
    conv = float if is_float else (lambda x: int(math.floor(x)))
    if kind == "zeros":
        return [conv(0)] * n
    if kind == "fill":
        return [conv(float(rest[1]))] * n
    if kind == "iota":
        return [conv(i // comps) for i in range(n)]
    if kind == "random":
        lo, hi = (float(rest[1]), float(rest[2])) if len(rest) >= 3 else (
            (0.0, 1.0) if is_float else (0.0, 100.0))
        return [conv(lo + (hi - lo) * rng.random()) for _ in range(n)]
    raise ValueError(f"unknown buffer value `{spec_text}`")


# ---------------------------------------------------------------------------
# A minimal OpenCL binding over ctypes

cl_int = ctypes.c_int32
cl_uint = ctypes.c_uint32
vp = ctypes.c_void_p
size_t = ctypes.c_size_t

CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_PLATFORM_NAME = 0x0902
CL_PROGRAM_BUILD_LOG = 0x1183
CL_KERNEL_NUM_ARGS = 0x1191
CL_KERNEL_ARG_ADDRESS_QUALIFIER = 0x1196
CL_KERNEL_ARG_TYPE_NAME = 0x1198
CL_KERNEL_ARG_NAME = 0x119A
CL_KERNEL_ARG_ADDRESS_LOCAL = 0x119C
CL_KERNEL_ARG_ADDRESS_PRIVATE = 0x119E
CL_MEM_READ_WRITE = 1
CL_MEM_COPY_HOST_PTR = 32


class ClError(Exception):
    pass


class Runtime:
    def __init__(self, name, uninitialized=True):
        self.name = name
        if name == "oclgrind":
            lib = "/usr/lib/oclgrind/liboclgrind-rt.so"
            checks = ["OCLGRIND_DATA_RACES", "OCLGRIND_CHECK_API"]
            if uninitialized:
                checks.append("OCLGRIND_UNINITIALIZED")
            for k in checks:
                os.environ[k] = "1"
            self.platform_name = None
        else:
            lib = "libOpenCL.so.1"
            self.platform_name = "Portable Computing Language"
        try:
            self.cl = ctypes.CDLL(lib)
        except OSError as e:
            raise ClError(f"{lib}: {e}")
        cl = self.cl
        for f, res in [("clCreateContext", vp), ("clCreateCommandQueue", vp),
                       ("clCreateProgramWithSource", vp), ("clCreateKernel", vp),
                       ("clCreateBuffer", vp)]:
            getattr(cl, f).restype = res
        cl.clSetKernelArg.argtypes = [vp, cl_uint, size_t, vp]
        cl.clCreateBuffer.argtypes = [vp, ctypes.c_uint64, size_t, vp, ctypes.POINTER(cl_int)]
        cl.clEnqueueReadBuffer.argtypes = [vp, vp, cl_uint, size_t, size_t, vp, cl_uint, vp, vp]
        cl.clEnqueueNDRangeKernel.argtypes = [vp, vp, cl_uint, vp, vp, vp, cl_uint, vp, vp]
        cl.clGetKernelArgInfo.argtypes = [vp, cl_uint, cl_uint, size_t, vp, vp]
        cl.clGetKernelInfo.argtypes = [vp, cl_uint, size_t, vp, vp]
        cl.clGetProgramBuildInfo.argtypes = [vp, vp, cl_uint, size_t, vp, ctypes.POINTER(size_t)]
        cl.clBuildProgram.argtypes = [vp, cl_uint, vp, ctypes.c_char_p, vp, vp]
        cl.clFinish.argtypes = [vp]
        for f in ("clReleaseMemObject", "clReleaseKernel", "clReleaseProgram"):
            getattr(cl, f).argtypes = [vp]

        n = cl_uint()
        if cl.clGetPlatformIDs(0, None, ctypes.byref(n)) != 0 or n.value == 0:
            raise ClError("no OpenCL platform")
        plats = (vp * n.value)()
        cl.clGetPlatformIDs(n.value, plats, None)
        self.platform = None
        for p in plats:
            buf = ctypes.create_string_buffer(256)
            cl.clGetPlatformInfo(vp(p), CL_PLATFORM_NAME, 256, buf, None)
            if self.platform_name is None or buf.value.decode() == self.platform_name:
                self.platform = vp(p)
                break
        if self.platform is None:
            raise ClError("no PoCL platform")
        dev = vp()
        if cl.clGetDeviceIDs(self.platform, ctypes.c_uint64(CL_DEVICE_TYPE_ALL), 1,
                             ctypes.byref(dev), None) != 0:
            raise ClError("no device")
        self.device = dev
        err = cl_int()
        cl.clCreateContext.argtypes = [vp, cl_uint, vp, vp, vp, ctypes.POINTER(cl_int)]
        self.ctx = vp(cl.clCreateContext(None, 1, ctypes.byref(dev), None, None, ctypes.byref(err)))
        self.check(err.value, "clCreateContext")
        cl.clCreateCommandQueue.argtypes = [vp, vp, ctypes.c_uint64, ctypes.POINTER(cl_int)]
        self.queue = vp(cl.clCreateCommandQueue(self.ctx, dev, 0, ctypes.byref(err)))
        self.check(err.value, "clCreateCommandQueue")

    @staticmethod
    def check(code, what):
        if code != 0:
            raise ClError(f"{what} failed with OpenCL error {code}")

    def build(self, source, options):
        cl = self.cl
        err = cl_int()
        src = ctypes.c_char_p(source)
        length = size_t(len(source))
        cl.clCreateProgramWithSource.argtypes = [vp, cl_uint, ctypes.POINTER(ctypes.c_char_p),
                                                 ctypes.POINTER(size_t), ctypes.POINTER(cl_int)]
        prog = vp(cl.clCreateProgramWithSource(self.ctx, 1, ctypes.byref(src),
                                               ctypes.byref(length), ctypes.byref(err)))
        self.check(err.value, "clCreateProgramWithSource")
        code = cl.clBuildProgram(prog, 1, ctypes.byref(self.device), options.encode(), None, None)
        if code != 0:
            size = size_t()
            cl.clGetProgramBuildInfo(prog, self.device, CL_PROGRAM_BUILD_LOG, 0, None,
                                     ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value + 1)
            cl.clGetProgramBuildInfo(prog, self.device, CL_PROGRAM_BUILD_LOG, size.value, log,
                                     None)
            cl.clReleaseProgram(prog)
            raise ClError(f"build ({options}) failed: {log.value.decode(errors='replace')}")
        return prog

    def kernel(self, prog, name):
        err = cl_int()
        self.cl.clCreateKernel.argtypes = [vp, ctypes.c_char_p, ctypes.POINTER(cl_int)]
        k = vp(self.cl.clCreateKernel(prog, name.encode(), ctypes.byref(err)))
        self.check(err.value, f"clCreateKernel({name})")
        return k

    def arg_info(self, k):
        n = cl_uint()
        self.cl.clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 4, ctypes.byref(n), None)
        out = []
        for i in range(n.value):
            vals = []
            for what in (CL_KERNEL_ARG_NAME, CL_KERNEL_ARG_TYPE_NAME):
                buf = ctypes.create_string_buffer(256)
                self.check(self.cl.clGetKernelArgInfo(k, i, what, 256, buf, None),
                           "clGetKernelArgInfo")
                vals.append(buf.value.decode())
            q = cl_uint()
            self.cl.clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, 4,
                                       ctypes.byref(q), None)
            out.append((vals[0], vals[1], q.value))
        return out

    def buffer(self, data):
        err = cl_int()
        b = vp(self.cl.clCreateBuffer(self.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                      len(data), data, ctypes.byref(err)))
        self.check(err.value, "clCreateBuffer")
        return b

    def run(self, k, global_size, local_size):
        dims = len(global_size)
        g = (size_t * dims)(*global_size)
        loc = (size_t * dims)(*local_size) if local_size else None
        self.check(self.cl.clEnqueueNDRangeKernel(self.queue, k, dims, None, g, loc, 0, None,
                                                  None), "clEnqueueNDRangeKernel")
        self.check(self.cl.clFinish(self.queue), "clFinish")

    def read(self, buf, nbytes):
        out = ctypes.create_string_buffer(nbytes)
        self.check(self.cl.clEnqueueReadBuffer(self.queue, buf, 1, 0, nbytes, out, 0, None,
                                               None), "clEnqueueReadBuffer")
        return out.raw


# ---------------------------------------------------------------------------
# Running one spec


class Launch:
    """The inputs and outputs of one spec: `inputs[name]` and
    `outputs[name]` are flat lists of buffer elements, `scalars[name]` the
    scalar arguments, plus the NDRange."""

    def __init__(self, spec):
        self.spec = spec
        self.inputs, self.outputs, self.scalars = {}, {}, {}
        # The bytes of each input buffer as the device received them.
        self.raw_inputs = {}
        self.global_size = spec.global_size
        self.local_size = spec.local_size
        self.defines = dict(d.partition("=")[::2] for d in spec.defines)

    def __getitem__(self, name):
        return self.scalars[name] if name in self.scalars else self.inputs[name]


def build_options(build, runtime, spec):
    # oclgrind 21.10 cannot execute the generic address space casts clang
    # emits for OpenCL C 2.0, so it gets 1.2 unless the file needs 2.0.
    std = build or ("-cl-std=CL1.2" if runtime.name == "oclgrind" else "-cl-std=CL2.0")
    opts = [std, "-cl-kernel-arg-info", f"-I{HERE}"]
    opts += [f"-D{d}" for d in spec.defines]
    return " ".join(opts)


def run_spec(rt, source, build, spec):
    """Runs one spec; returns the Launch with outputs filled in."""
    prog = rt.build(source, build_options(build, rt, spec))
    try:
        k = rt.kernel(prog, spec.kernel)
        launch = Launch(spec)
        rng = random.Random(SEED)
        bufs = []
        keep = []
        for i, (name, type_name, quals) in enumerate(rt.arg_info(k)):
            # PoCL renames parameters that shadow built-ins (`length`).
            name = name.removeprefix("_cl_")
            if name not in spec.args:
                raise ValueError(f"{spec}: no value for argument `{name}`")
            value = spec.args[name]
            if quals == CL_KERNEL_ARG_ADDRESS_LOCAL:
                m = re.fullmatch(r"local:(\d+)", value)
                if not m:
                    raise ValueError(f"{spec}: `{name}` is __local: give local:BYTES")
                rt.check(rt.cl.clSetKernelArg(k, i, int(m.group(1)), None), "clSetKernelArg")
                continue
            code, comps, is_float = elem_type(type_name)
            if "*" in type_name:
                vals = make_values(value, code, comps, is_float, rng)
                packed = struct.pack(f"<{len(vals)}{code}", *vals)
                # The inputs as the device sees them (rounded to float or half).
                launch.inputs[name] = list(struct.unpack(f"<{len(vals)}{code}", packed))
                launch.raw_inputs[name] = packed
                data = ctypes.create_string_buffer(packed, len(packed))
                b = rt.buffer(data)
                bufs.append((name, b, len(vals), code))
                keep.append(vp(b.value))
                rt.check(rt.cl.clSetKernelArg(k, i, ctypes.sizeof(vp), ctypes.byref(keep[-1])),
                         "clSetKernelArg")
            else:
                parts = value.split(",")
                vals = [float(p) if is_float else int(p, 0) for p in parts]
                launch.scalars[name] = vals[0] if len(vals) == 1 else vals
                packed = struct.pack(f"<{len(vals)}{code}", *vals)
                keep.append(ctypes.create_string_buffer(packed, len(packed)))
                rt.check(rt.cl.clSetKernelArg(k, i, len(packed), keep[-1]), "clSetKernelArg")
        rt.run(k, spec.global_size, spec.local_size)
        for name, b, n, code in bufs:
            raw = rt.read(b, n * struct.calcsize(code))
            launch.outputs[name] = list(struct.unpack(f"<{n}{code}", raw))
            rt.cl.clReleaseMemObject(b)
        rt.cl.clReleaseKernel(k)
        return launch
    finally:
        rt.cl.clReleaseProgram(prog)


def compare(spec, name, got, want, rel=1e-4, abs_tol=1e-4):
    if isinstance(want, AnyOrder):
        got, want = sorted(got[:len(want)]), sorted(want)
    if len(got) != len(want):
        return [f"{spec}: `{name}` has {len(got)} elements, the reference {len(want)}"]
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            continue
        if isinstance(w, float) or isinstance(g, float):
            ok = math.isclose(g, w, rel_tol=rel, abs_tol=abs_tol) or (
                math.isnan(g) and math.isnan(w))
        else:
            ok = g == w
        if not ok:
            bad.append(f"{name}[{i}] = {g}, want {w}")
            if len(bad) >= 5:
                break
    return [f"{spec}: " + "; ".join(bad)] if bad else []


# ---------------------------------------------------------------------------
# The reference interpreter (`lanes run --interpret`)


def lanes_binary():
    """`$LANES`, or the workspace's debug build."""
    return os.environ.get("LANES") or str(HERE.parents[2] / "target" / "debug" / "lanes")


class Lanes:
    """`lanes run --interpret` as a runtime, or with `target` the code
    `lanes run --target TARGET` compiles; `pocl` (a Runtime or None)
    supplies the inputs and the results to compare with."""

    name = "lanes"

    def __init__(self, binary=None, pocl=None, target=None):
        self.binary = binary or lanes_binary()
        if not os.access(self.binary, os.X_OK):
            raise ClError(f"no lanes binary at {self.binary} (build it, or set LANES)")
        self.pocl = pocl
        self.target = target

    def how(self):
        return f"lanes run --target {self.target}" if self.target else "lanes run --interpret"


def scalar_value(text):
    parts = [int(p, 0) if re.fullmatch(r"-?(0x)?[0-9a-fA-F]+", p) else float(p)
             for p in text.split(",")]
    return parts[0] if len(parts) == 1 else parts


def run_lanes(lanes, path, spec, inputs=None):
    """Runs one spec on the interpreter, with the buffers of `inputs`
    (name -> bytes) where given. Returns (Launch or None, the process)."""
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        mode = ["--target", lanes.target] if lanes.target else ["--interpret"]
        cmd = [lanes.binary, "run", *mode, str(path), "--kernel", spec.kernel,
               "--global", ",".join(map(str, spec.global_size)), "-I", str(HERE),
               "--save", str(d / "saved"), "--print", "0"]
        if spec.local_size:
            cmd += ["--local", ",".join(map(str, spec.local_size))]
        for define in spec.defines:
            cmd += ["-D", define]
        launch = Launch(spec)
        for name, value in spec.args.items():
            if inputs is not None and name in inputs:
                given = d / f"{name}.given"
                given.write_bytes(inputs[name])
                value = f"file:{given}"
            elif not re.match(r"(random|zeros|fill|iota|local):", value):
                launch.scalars[name] = scalar_value(value)
            cmd += ["--arg", f"{name}={value}"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            return None, proc
        saved = d / "saved"
        for a in json.loads((saved / "args.json").read_text())["arguments"]:
            if a["kind"] != "buffer":
                continue
            m = re.fullmatch(r"uchar\[(\d+)\]", a["element"])
            code = "B" if m else elem_type(a["element"])[0]
            for where, field in ((launch.inputs, "input"), (launch.outputs, "output")):
                raw = (saved / a[field]).read_bytes()
                where[a["name"]] = list(struct.unpack(f"<{len(raw) // struct.calcsize(code)}{code}",
                                                      raw))
        return launch, proc


def lanes_verdict(spec, proc, expect):
    """The interpreter's finding against the `// expect-run:` lines."""
    text = proc.stderr.strip()
    names = {"DataRace": "data race", "BarrierDivergence": "barrier divergence"}
    out = []
    for kind, line in expect:
        # `FILE:LINE:COL: data race: ...; the write ... is at FILE:LINE:COL`
        found = re.search(rf":(\d+):\d+: {names[kind]}:", text)
        lines = [int(x) for x in re.findall(r"\.cl:(\d+):\d+", text)]
        if proc.returncode == 0 or not found or line not in lines:
            out.append(f"{spec}: the interpreter did not report {kind} at line {line}:\n{text}")
    return out


def same_as_pocl(spec, ref, got, want):
    """Compares the interpreter's buffers with PoCL's; `ref` (the host
    reference's buffers, or {}) says which elements may differ (None) or
    may come in any order (AnyOrder)."""
    failures = []
    for name, w in want.items():
        g = got.get(name)
        if g is None:
            failures.append(f"{spec}: the interpreter did not save `{name}`")
            continue
        shape, tol = ref.get(name), {}
        if isinstance(shape, tuple):
            shape, tol = shape
        if isinstance(shape, AnyOrder):
            n = len(shape)
            failures += compare(spec, name, g[:n], AnyOrder(w[:n]), **tol)
            failures += compare(spec, name, g[n:], w[n:], **tol)
            continue
        if isinstance(shape, list):
            w = [None if i < len(shape) and shape[i] is None else x for i, x in enumerate(w)]
        failures += compare(spec, name, g, w, **tol)
    return failures


# Codes with which `lanes build` refuses a feature it does not compile yet:
# images, printf, functions without a vector version.
REFUSED = {"L0904", "L0905", "L0920"}


def check_file_lanes(lanes, path, quiet=False):
    """Runs every spec of one file on the interpreter; returns (specs run,
    failures)."""
    specs, expect, build = read_specs(path)
    source = path.read_bytes()
    skipped = re.search(rb"//\s*skip-runtime:([\w ]+)--", source)
    pocl = lanes.pocl
    if skipped and "pocl" in skipped.group(1).decode().split():
        pocl = None
    failures, ran = [], 0
    if expect and lanes.target:
        return 0, []
    for spec in specs:
        before = len(failures)
        ref = REFERENCES.get((path.stem, spec.kernel))
        if expect:
            _, proc = run_lanes(lanes, path, spec)
            failures += lanes_verdict(spec, proc, expect)
        else:
            want = None
            if pocl is not None:
                try:
                    want = run_spec(pocl, source, build, spec)
                except (ClError, ValueError) as e:
                    failures.append(f"{spec}: PoCL: {e}")
                    continue
            launch, proc = run_lanes(lanes, path, spec, want.raw_inputs if want else None)
            refused = re.search(r"error\[(L09\d\d)\]", proc.stderr)
            if launch is None and lanes.target and refused and refused.group(1) in REFUSED:
                # A feature `lanes build` does not compile yet, refused
                # with its code: not run, not a failure.
                if not quiet:
                    print(f"refused ({refused.group(1)}) {spec}")
                continue
            if launch is None:
                failures.append(f"{spec}: {lanes.how()} exited {proc.returncode}:\n"
                                f"{proc.stderr.strip()}")
                continue
            expected = {}
            if ref is not None:
                expected = ref(launch)
                for name, w in expected.items():
                    tol = {}
                    if isinstance(w, tuple):
                        w, tol = w
                    failures += compare(spec, name, launch.outputs[name], w, **tol)
            any_order = (path.stem, spec.kernel) in SCHEDULE_DEPENDENT
            if want is not None and not any_order:
                failures += same_as_pocl(spec, expected, launch.outputs, want.outputs)
        ran += 1
        if not quiet:
            print(f"{'ok' if len(failures) == before else 'FAILED'} {spec}")
    return ran, failures


def check_file(rt, path, quiet=False):
    """Runs every spec of one file; returns (specs run, failures)."""
    specs, expect, build = read_specs(path)
    source = path.read_bytes()
    ignore = re.findall(rb"//\s*oclgrind: ignore (\w+)", source)
    ignore = [w.decode() for w in ignore]
    failures, ran = [], 0
    skipped = re.search(rb"//\s*skip-runtime:([\w ]+)--", source)
    if skipped and rt.name in skipped.group(1).decode().split():
        return 0, []
    if rt.name == "pocl" and any(kind == "BarrierDivergence" for kind, _ in expect):
        # Barrier divergence is undefined behaviour; PoCL may hang on it.
        return 0, []
    for spec in specs:
        before = len(failures)
        err_file = None
        if rt.name == "oclgrind":
            err_file = tempfile.TemporaryFile()
            saved = os.dup(2)
            sys.stderr.flush()
            os.dup2(err_file.fileno(), 2)
        try:
            launch = run_spec(rt, source, build, spec)
        except (ClError, ValueError) as e:
            failures.append(f"{spec}: {e}")
            continue
        finally:
            if err_file is not None:
                os.dup2(saved, 2)
                os.close(saved)
        ran += 1
        if err_file is not None:
            err_file.seek(0)
            log = err_file.read().decode(errors="replace")
            failures += oclgrind_verdict(spec, log, expect, ignore)
        if not expect:
            ref = REFERENCES.get((path.stem, spec.kernel))
            if ref is not None:
                for name, want in ref(launch).items():
                    tol = {}
                    if isinstance(want, tuple):
                        want, tol = want
                    failures += compare(spec, name, launch.outputs[name], want, **tol)
        if not quiet:
            print(f"{'ok' if len(failures) == before else 'FAILED'} {spec}")
    return ran, failures


def oclgrind_verdict(spec, log, expect, ignore=()):
    """Compares oclgrind's findings with the `// expect-run:` lines: a race
    matches when one of its two accesses is on the expected line."""
    found, other = [], []
    # oclgrind prints one block per finding: a header line, then details
    # with `At line N (column C) of input.cl:`, blocks separated by blank lines.
    for block in re.split(r"\n(?=\S)", log):
        head = block.split("\n", 1)[0]
        lines = [int(x) for x in re.findall(r"At line (\d+)", block)]
        if "data race" in head:
            found.append(("DataRace", lines))
        elif "Work-group divergence" in head:
            found.append(("BarrierDivergence", lines))
        elif head.startswith("Oclgrind: ") and "suppressing" in head:
            continue
        elif head.startswith("Uninitialized") and "uninitialized" in ignore:
            continue
        elif head.strip():
            other.append(head)
    log = "\n".join(log.strip().splitlines()[:40])
    if not expect:
        return [f"{spec}: oclgrind reported:\n{log}"] if found or other else []
    out = []
    for kind, line in expect:
        if not any(k == kind and line in ls for k, ls in found):
            out.append(f"{spec}: oclgrind did not report {kind} at line {line}:\n{log}")
    return out


def default_files():
    return (sorted(HERE.glob("*.cl")) + sorted((HERE / "races").glob("*.cl"))
            + sorted((HERE / "invalid").glob("*.cl")))


def main(argv):
    runtime = "pocl"
    target = None
    files = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--runtime":
            runtime = args.pop(0)
        elif a == "--target":
            target = args.pop(0)
        else:
            files.append(Path(a).resolve())
    files = [f for f in (files or default_files()) if read_specs(f)[0]]
    # The uninitialized-value plugin is off when every file asks to ignore it
    # (it aborts on some built-ins that write through private pointers).
    ignore_uninit = all(b"oclgrind: ignore uninitialized" in f.read_bytes() for f in files)
    try:
        if runtime == "lanes":
            try:
                pocl = Runtime("pocl")
            except ClError as e:
                print(f"PoCL not available ({e}): comparing with the host references only")
                pocl = None
            rt = Lanes(pocl=pocl, target=target)
        else:
            rt = Runtime(runtime, uninitialized=not ignore_uninit)
    except ClError as e:
        print(f"SKIPPED: {runtime} not available ({e})")
        return SKIP
    total, failures = 0, []
    for f in files:
        ran, bad = (check_file_lanes if runtime == "lanes" else check_file)(rt, f)
        total += ran
        failures += bad
    for f in failures:
        print("FAIL", f)
    print(f"{total} launches in {len(files)} files on {runtime}, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
