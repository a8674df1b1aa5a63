"""Host references for the launch specs of the work-group corpus.

`REFERENCES[(file stem, kernel)]` maps a `run_specs.Launch` (inputs,
scalars, NDRange, -D defines) to the expected contents of the buffers the
kernel writes: `{name: list}` or `{name: (list, {"rel": r, "abs_tol": a})}`;
`None` elements are not compared.
"""

REFERENCES = {}


def reference(stem, *kernels):
    def register(f):
        for k in kernels:
            REFERENCES[(stem, k)] = f
        return f

    return register


def define(launch, name, default):
    return int(launch.defines.get(name, default))


@reference("matrix_mul_tiled", "matrixMul")
def matrix_mul(l):
    A, B, wA, wB = l["A"], l["B"], l["wA"], l["wB"]
    hA = len(A) // wA
    C = [0.0] * (hA * wB)
    for i in range(hA):
        for j in range(wB):
            C[i * wB + j] = sum(A[i * wA + k] * B[k * wB + j] for k in range(wA))
    return {"C": C}


def group_sums(values, group):
    return [sum(values[g * group:(g + 1) * group]) for g in range(len(values) // group)]


@reference("reduction_interleaved", "reduce_modulo", "reduce_strided")
def reduce_interleaved(l):
    return {"g_odata": group_sums(l["g_idata"], l.local_size[0])}


@reference("reduction_sequential", "reduce_sequential")
def reduce_sequential(l):
    n, L = l["n"], l.local_size[0]
    padded = l["input"][:n] + [0] * (l.global_size[0] - n)
    return {"partial": group_sums(padded, L)}


@reference("reduction_first_add", "reduce_first_add")
def reduce_first_add(l):
    return {"out": group_sums(l["in"], 2 * l.local_size[0])}


@reference("reduction_first_add", "reduce_grid_stride")
def reduce_grid_stride(l):
    x, n, G, L = l["in"], l["n"], l.global_size[0], l.local_size[0]
    per_item = [sum(x[i:n:G]) for i in range(G)]
    return {"out": group_sums(per_item, L)}


def blocked_scan(values, block, inclusive=True):
    out = []
    for b in range(0, len(values), block):
        acc = 0
        for x in values[b:b + block]:
            if inclusive:
                acc += x
                out.append(acc)
            else:
                out.append(acc)
                acc += x
    return out


@reference("prefix_sum", "group_prefixSum")
def prefix_sum(l):
    return {"output": blocked_scan(l["input"], l["length"])}


@reference("scan_blelloch", "scan_exclusive")
def scan_exclusive(l):
    n = 2 * l.local_size[0]
    data = [x & 0xFFFFFFFF for x in blocked_scan(l["data"], n, inclusive=False)]
    sums = [sum(l["data"][b:b + n]) for b in range(0, len(l["data"]), n)]
    return {"data": data, "sums": sums}


@reference("scan_blelloch", "scan_hillis_steele")
def scan_hillis_steele(l):
    return {"out": blocked_scan(l["in"], l.local_size[0])}


def byte_histogram(values, bins=256):
    h = [0] * bins
    for v in values:
        h[v] += 1
    return h


@reference("histogram_local_atomics", "histogram256")
def histogram256(l):
    return {"hist": byte_histogram(l["data"])}


@reference("histogram_local_atomics", "histogram_partial")
def histogram_partial(l):
    per_group = 4 * define(l, "ITEMS", 4) * l.local_size[0]
    data = l["data"]
    out = []
    for g in range(0, len(data), per_group):
        out += byte_histogram(data[g:g + per_group])
    return {"partial": out}


@reference("transpose_local", "transpose", "transpose_unpadded")
def transpose(l):
    w, h, a = l["width"], l["height"], l["idata"]
    return {"odata": [a[r * w + c] for c in range(w) for r in range(h)]}


@reference("stencil_1d_halo", "stencil_1d")
def stencil_1d(l):
    r = define(l, "RADIUS", 3)
    x, w, n = l["in"], l["weights"], l["n"]
    at = lambda i: x[i] if 0 <= i < n else 0.0
    return {"out": [sum(w[j + r] * at(i + j) for j in range(-r, r + 1)) for i in range(n)]}


@reference("stencil_2d_halo", "heat_step")
def heat_step(l):
    w, h, a, x = l["width"], l["height"], l["alpha"], l["in"]
    at = lambda r, c: x[min(max(r, 0), h - 1) * w + min(max(c, 0), w - 1)]
    out = []
    for r in range(h):
        for c in range(w):
            v = at(r, c)
            out.append(v + a * (at(r - 1, c) + at(r + 1, c) + at(r, c + 1) + at(r, c - 1) - 4 * v))
    return {"out": out}


def sorted_blocks(values, block, descending=False):
    out = []
    for b in range(0, len(values), block):
        out += sorted(values[b:b + block], reverse=descending)
    return out


@reference("bitonic_sort_local", "sort_blocks")
def sort_blocks(l):
    return {"data": sorted_blocks(l["data"], l.local_size[0])}


@reference("bitonic_sort_local", "sort_blocks_dir")
def sort_blocks_dir(l):
    return {"data": sorted_blocks(l["data"], 2 * l.local_size[0], l["ascending"] == 0)}
