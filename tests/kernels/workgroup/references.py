"""Host references for the launch specs of the work-group corpus.

`REFERENCES[(file stem, kernel)]` maps a `run_specs.Launch` (inputs,
scalars, NDRange, -D defines) to the expected contents of the buffers the
kernel writes: `{name: list}` or `{name: (list, {"rel": r, "abs_tol": a})}`;
`None` elements are not compared.
"""

REFERENCES = {}


class AnyOrder(list):
    """A reference for the first len(self) elements of a buffer whose order
    depends on the scheduling of work-items (queues filled with atomics)."""


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


@reference("radix_sort_step", "radix_count")
def radix_count(l):
    per_group = define(l, "KEYS_PER_ITEM", 4) * l.local_size[0]
    keys, shift = l["keys"], l["shift"]
    groups = len(keys) // per_group
    counts, offsets = [0] * (16 * groups), []
    for g in range(groups):
        h = [0] * 16
        for k in keys[g * per_group:(g + 1) * per_group]:
            h[(k >> shift) & 15] += 1
        for b in range(16):
            counts[b * groups + g] = h[b]
        offsets += [sum(h[:b]) for b in range(16)]
    return {"counts": counts, "offsets": offsets}


@reference("dwt_haar_1d", "dwtHaar1D")
def dwt_haar_1d(l):
    x, n, L = l["signal"], l["signalLength"], l.local_size[0]
    s = 0.70710678118654752
    coefs = list(l["coefs"])
    for i in range(len(l["avgs"])):
        coefs[i] = None
    avgs = []
    for g in range(n // (2 * L)):
        level_in = x[2 * L * g:2 * L * (g + 1)]
        k = 1
        while len(level_in) > 1:
            half = len(level_in) // 2
            for i in range(half):
                coefs[(n >> k) + g * half + i] = (level_in[2 * i] - level_in[2 * i + 1]) * s
            level_in = [(level_in[2 * i] + level_in[2 * i + 1]) * s for i in range(half)]
            k += 1
        avgs.append(level_in[0])
    return {"coefs": coefs, "avgs": avgs}


def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@reference("convolution_separable", "convolutionRows")
def convolution_rows(l):
    r, w, h, s, f = define(l, "RADIUS", 4), l["imageW"], l["imageH"], l["src"], l["filter"]
    return {"dst": [sum(f[r + k] * s[y * w + clamp(x + k, 0, w - 1)] for k in range(-r, r + 1))
                    for y in range(h) for x in range(w)]}


@reference("convolution_separable", "convolutionColumns")
def convolution_columns(l):
    r, w, h, s, f = define(l, "RADIUS", 4), l["imageW"], l["imageH"], l["src"], l["filter"]
    return {"dst": [sum(f[r + k] * s[clamp(y + k, 0, h - 1) * w + x] for k in range(-r, r + 1))
                    for y in range(h) for x in range(w)]}


@reference("nbody_local", "nbody_sim")
def nbody(l):
    n, dt, eps = l["numBodies"], l["deltaTime"], l["epsSqr"]
    p, v = l["pos"], l["vel"]
    new_pos, new_vel = [], []
    for i in range(n):
        acc = [0.0, 0.0, 0.0]
        for j in range(n):
            d = [p[4 * j + c] - p[4 * i + c] for c in range(3)]
            s = p[4 * j + 3] * (sum(x * x for x in d) + eps) ** -1.5
            for c in range(3):
                acc[c] += s * d[c]
        vv = [v[4 * i + c] + acc[c] * dt for c in range(3)]
        new_vel += vv + [v[4 * i + 3]]
        new_pos += [p[4 * i + c] + vv[c] * dt for c in range(3)] + [p[4 * i + 3]]
    tol = {"rel": 1e-3, "abs_tol": 1e-3}
    return {"newPos": (new_pos, tol), "newVel": (new_vel, tol)}


@reference("kmeans_atomic", "kmeans_assign")
def kmeans(l):
    n, k = l["n"], define(l, "K", 8)
    p, c = l["points"], l["centroids"]
    membership, sums, counts = [], [0] * (2 * k), [0] * k
    for i in range(n):
        x, y = p[2 * i], p[2 * i + 1]
        dist = [(x - c[2 * j]) ** 2 + (y - c[2 * j + 1]) ** 2 for j in range(k)]
        best = dist.index(min(dist))
        membership.append(best)
        sums[2 * best] += int(x * 1024.0)
        sums[2 * best + 1] += int(y * 1024.0)
        counts[best] += 1
    return {"membership": membership, "sums": sums, "counts": counts}


@reference("bfs_frontier", "bfs_queue", "bfs_queue_local")
def bfs_queue(l):
    ro, cols, levels = l["row_offsets"], l["cols"], list(l["levels"])
    found = []
    for v in l["frontier"][:l["frontier_size"]]:
        for e in range(ro[v], ro[v + 1]):
            u = cols[e]
            if levels[u] == -1:
                levels[u] = l["level"] + 1
                found.append(u)
    return {"levels": levels, "next_size": [len(found)], "next_frontier": AnyOrder(found)}


@reference("bfs_frontier", "bfs_mask")
def bfs_mask(l):
    ro, cols, mask, visited = l["row_offsets"], l["cols"], l["mask"], l["visited"]
    cost, upd, over = list(l["cost"]), list(l["updating_mask"]), 0
    for v in range(l["nodes"]):
        if mask[v]:
            for e in range(ro[v], ro[v + 1]):
                u = cols[e]
                if not visited[u]:
                    cost[u], upd[u], over = l["level"] + 1, 1, 1
    return {"mask": [0] * len(mask), "cost": cost, "updating_mask": upd, "over": [over]}


@reference("async_copy_tile", "scale_tiles")
def scale_tiles(l):
    return {"data": [x * l["factor"] for x in l["data"]]}


@reference("async_copy_tile", "column_sums")
def column_sums(l):
    m, rows, cols = l["m"], l["rows"], l["cols"]
    return {"sums": [sum(m[r * cols + c] for r in range(rows)) for c in range(cols)]}


def groups_of(values, size):
    return [values[g:g + size] for g in range(0, len(values), size)]


@reference("work_group_collectives", "block_sum")
def block_sum(l):
    return {"block_totals": group_sums(l["in"], l.local_size[0])}


@reference("work_group_collectives", "block_scan")
def block_scan(l):
    L = l.local_size[0]
    return {"out": blocked_scan(l["in"], L), "block_totals": group_sums(l["in"], L)}


def c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@reference("work_group_collectives", "normalize_max")
def normalize_max(l):
    out, flags = [], []
    for g in groups_of(l["in"], l.local_size[0]):
        m = max(g)
        out += [c_div(x * 1000, m) if m > 0 else 0 for x in g]
        flags.append(1 if min(g) < 0 else 0)
    return {"out": out, "flags": flags}


@reference("work_group_collectives", "subtract_first")
def subtract_first(l):
    out = []
    for g in groups_of(l["in"], l.local_size[0]):
        rank = 0
        for x in g:
            out.append((x - g[0]) * 1000 + rank)
            rank += 1 if x > g[0] else 0
    return {"out": out}


@reference("atom_extension", "value_stats")
def value_stats(l):
    n, t = l["n"], l["threshold"]
    picked = [v for v in l["values"][:n] if v > t]
    count, total, lo, hi = l["stats"]
    if picked:
        count, total = count + len(picked), total + sum(picked)
        lo, hi = min(lo, min(picked)), max(hi, max(picked))
    return {"stats": [count, total, lo, hi], "last": [None]}


# Kernels whose buffers depend on the order in which work-items and
# work-groups run (PoCL runs work-groups on several threads); their host
# reference checks any valid outcome, and they are compared with the
# reference only, never buffer for buffer with PoCL.
SCHEDULE_DEPENDENT = {("atom_extension", "claim_slots")}


@reference("atom_extension", "claim_slots")
def claim_slots(l):
    # Linear probing fills the same set of slots in any order of insertion.
    n, got = l["n"], l.outputs["table"]
    occupied = set()
    for g in range(n):
        s = g % 7
        while s in occupied:
            s += 1
        occupied.add(s)
    # Each work-item claims one slot: the occupied slots hold 1 .. n, each
    # once; otherwise the reference is the table in order of insertion.
    if sorted(got[i] for i in occupied) == list(range(1, n + 1)):
        table = [got[i] if i in occupied else 0 for i in range(len(got))]
    else:
        table = [0] * len(got)
        for g in range(n):
            s = g % 7
            while table[s]:
                s += 1
            table[s] = g + 1
    slot_of = [got.index(g + 1) if g + 1 in got else -1 for g in range(n)]
    return {"table": table, "slot_of": slot_of}


@reference("atomics_cl20", "count_matches")
def count_matches(l):
    return {"count": [l["keys"][:l["n"]].count(l["key"])]}


@reference("atomics_cl20", "digit_bins")
def digit_bins(l):
    L, n, d = l.local_size[0], l["n"], l["digits"]
    bins = []
    for g in range(len(l["bins"]) // 16):
        h = [0] * 16
        for x in d[g * L:min((g + 1) * L, n)]:
            h[x % 16] += 1
        bins += h
    return {"bins": bins}


@reference("atomics_cl20", "float_max")
def float_max(l):
    import struct
    m = max(l["values"][:l["n"]])
    return {"result": [struct.unpack("<I", struct.pack("<f", m))[0]]}


@reference("stream_compaction", "compact_global", "compact_local")
def compaction(l):
    kept = [v for v in l["in"][:l["n"]] if v >= l["threshold"]]
    return {"out": AnyOrder(kept), "count": [len(kept)]}


@reference("matvec_local_reduce", "matvec_rows", "matvec_rows4")
def matvec(l):
    A, x, rows, cols = l["A"], l["x"], l["rows"], l["cols"]
    return {"y": [sum(A[r * cols + j] * x[j] for j in range(cols)) for r in range(rows)]}


@reference("spmv_csr_vector", "spmv_csr_vector_kernel")
def spmv(l):
    rd, cols, val, vec = l["rowDelimiters"], l["cols"], l["val"], l["vec"]
    return {"out": [sum(val[j] * vec[cols[j]] for j in range(rd[r], rd[r + 1]))
                    for r in range(l["dim"])]}


@reference("hotspot", "hotspot")
def hotspot(l):
    cols, rows, t, p = l["grid_cols"], l["grid_rows"], l["temp_src"], l["power"]
    k = l["step"] / l["Cap"]
    rx, ry, rz, amb = 1 / l["Rx"], 1 / l["Ry"], 1 / l["Rz"], l["amb_temp"]
    at = lambda r, c: t[clamp(r, 0, rows - 1) * cols + clamp(c, 0, cols - 1)]
    out = []
    for r in range(rows):
        for c in range(cols):
            v = at(r, c)
            out.append(v + k * (p[r * cols + c] + (at(r + 1, c) + at(r - 1, c) - 2 * v) * ry
                                + (at(r, c + 1) + at(r, c - 1) - 2 * v) * rx + (amb - v) * rz))
    return {"temp_dst": out}


@reference("pathfinder", "dynproc_kernel")
def pathfinder(l):
    cols, wall, prev = l["cols"], l["wall"], l["src"][:l["cols"]]
    for i in range(l["iteration"]):
        row = l["startStep"] + i
        prev = [wall[row * cols + x] + min(prev[max(x - 1, 0)], prev[x], prev[min(x + 1, cols - 1)])
                for x in range(cols)]
    return {"dst": prev}


@reference("const_qualifier", "poly_eval")
def poly_eval(l):
    c, scale = l["coeffs"], [1.0, 0.5, 0.25, 0.125]
    out = list(l["y"])
    for i in range(l["n"]):
        acc = c[0]
        for k in range(1, 8):
            acc = acc * l["x"][i] + c[k]
        out[i] = acc * scale[i & 3]
    return {"y": out}


@reference("enum_types", "reduce_op")
def reduce_op(l):
    op = l["op"]
    f = {0: sum, 1: min, 2: max, 3: lambda g: sum(v & 1 for v in g)}[op]
    return {"out": [f(g) for g in groups_of(l["in"], l.local_size[0])]}


@reference("union_types", "float_bits_histogram")
def float_bits_histogram(l):
    import struct
    hist, neg = [], []
    for g in groups_of(l["in"], l.local_size[0]):
        bits = [struct.unpack("<I", struct.pack("<f", x))[0] for x in g]
        hist += byte_histogram([(b >> 23) & 0xFF for b in bits])
        neg.append(sum(b >> 31 for b in bits))
    return {"hist": hist, "negatives": neg}


@reference("union_types", "pack_pixels")
def pack_pixels(l):
    p = l["rgba"]
    return {"packed": [p[4 * i] | p[4 * i + 1] << 8 | p[4 * i + 2] << 16 | p[4 * i + 3] << 24
                       for i in range(l["n"])]}


@reference("prototypes", "smooth_rms")
def smooth_rms(l):
    L = l.local_size[0]
    mirror = lambda i: 1 if i < 0 else (L - 2 if i >= L else i)
    smooth, rms = [], []
    for g in groups_of(l["in"], L):
        smooth += [(g[mirror(i - 1)] + g[i] + g[mirror(i + 1)]) / 3 for i in range(L)]
        rms.append((sum(x * x for x in g) / L) ** 0.5)
    return {"smooth": smooth, "rms": rms}


@reference("printf_debug", "traced_sum")
def traced_sum(l):
    return {"sums": group_sums(l["in"], l.local_size[0])}


def to_half(x, toward_zero=False):
    import struct
    h = struct.unpack("<e", struct.pack("<e", x))[0]
    if toward_zero and abs(h) > abs(x):
        bits = struct.unpack("<H", struct.pack("<e", h))[0] - 1
        h = struct.unpack("<e", struct.pack("<H", bits))[0]
    return h


@reference("half_storage", "compress_block")
def compress_block(l):
    rev = []
    for g in groups_of(l["in"], l.local_size[0]):
        rev += g[::-1]
    exact = {"rel": 0.0, "abs_tol": 0.0}
    return {"out_rte": ([to_half(v) for v in rev], exact),
            "out_rtz": ([to_half(v, True) for v in rev], exact)}


@reference("half_storage", "expand_scale4")
def expand_scale4(l):
    return {"out": [h * l["scale"] for h in l["in"]]}


@reference("pointer_out_math", "decompose")
def decompose(l):
    import math
    out, quo = [], []
    for i in range(l["n"]):
        v, w = l["x"][i], l["y"][i]
        q = round(v / w)  # round half to even, as remquo
        out += [v, v, 1.0, v, v - q * w, math.lgamma(w), 1.0, 0.0]
        quo.append(q & 7)
    out += [None] * (len(l["out"]) - len(out))
    quo += [None] * (len(l["quo"]) - len(quo))
    return {"out": out, "quo": quo}


@reference("reqd_work_group_size", "running_max")
def running_max(l):
    out = []
    for g in groups_of(l["in"], l.local_size[0]):
        m = -math_inf()
        for x in g:
            m = max(m, x)
            out.append(m)
    return {"out": out}


def math_inf():
    return float("inf")


@reference("memory_fences", "rotate_through_global")
def rotate_through_global(l):
    out = []
    for g in groups_of(l["in"], l.local_size[0]):
        out += g[1:] + g[:1]
    return {"out": out, "scratch": l["in"]}


@reference("memory_fences", "pair_swap")
def pair_swap(l):
    x = l["in"]
    return {"out": [x[i ^ 1] for i in range(len(x))], "flags": [1] * len(x)}


@reference("matrix_mul_vec4", "mmm_vec4")
def mmm_vec4(l):
    A, B, wA, wB = l["A"], l["B"], l["wA"], l["wB"]
    hA = len(l["C"]) // wB
    return {"C": [sum(A[i * wA + k] * B[k * wB + j] for k in range(wA))
                  for i in range(hA) for j in range(wB)]}


@reference("binomial_option", "binomial_options")
def binomial_options(l):
    import math
    T, R, V = l["T"], l["R"], l["V"]
    n = l.local_size[0] - 1
    dt = T / n
    vsdt = V * math.sqrt(dt)
    r_inv = math.exp(-R * dt)
    u = math.exp(vsdt)
    d = 1 / u
    pu = (1 / r_inv - d) / (u - d)
    pu_r, pd_r = pu * r_inv, (1 - pu) * r_inv
    out = []
    for S, X in zip(l["spot"], l["strike"]):
        v = [max(S * math.exp(vsdt * (2 * i - n)) - X, 0.0) for i in range(n + 1)]
        for j in range(n, 0, -1):
            v = [pu_r * v[i + 1] + pd_r * v[i] for i in range(j)]
        out.append(v[0])
    return {"call": (out, {"rel": 1e-3, "abs_tol": 1e-3})}


@reference("sobel_local", "sobel")
def sobel(l):
    import math
    w, h, p = l["width"], l["height"], l["in"]
    lum = lambda y, x: (0.299 * p[4 * (y * w + x)] + 0.587 * p[4 * (y * w + x) + 1]
                        + 0.114 * p[4 * (y * w + x) + 2])
    at = lambda y, x: lum(clamp(y, 0, h - 1), clamp(x, 0, w - 1))
    out = []
    for y in range(h):
        for x in range(w):
            gx = (at(y - 1, x + 1) + 2 * at(y, x + 1) + at(y + 1, x + 1)
                  - at(y - 1, x - 1) - 2 * at(y, x - 1) - at(y + 1, x - 1))
            gy = (at(y + 1, x - 1) + 2 * at(y + 1, x) + at(y + 1, x + 1)
                  - at(y - 1, x - 1) - 2 * at(y - 1, x) - at(y - 1, x + 1))
            out.append(float(min(255, int(math.sqrt(gx * gx + gy * gy)))))
    return {"out": (out, {"rel": 0.0, "abs_tol": 1.0})}


@reference("half_storage", "halve_aligned4")
def halve_aligned4(l):
    return {"data": [to_half(0.5 * h) for h in l["data"]]}


@reference("bool_literals", "block_is_sorted")
def block_is_sorted(l):
    d, L = l["data"], l.local_size[0]
    return {"sorted": [int(all(d[i] <= d[i + 1] for i in range(g, g + L)))
                       for g in range(0, l.global_size[0], L)]}


@reference("stencil_3d_slab", "block2D_stencil")
def stencil_3d(l):
    nx, ny, nz, a, c0, c1 = l["nx"], l["ny"], l["nz"], l["A0"], l["c0"], l["c1"]
    at = lambda x, y, z: a[x + nx * (y + ny * z)]
    out = list(a)
    for z in range(1, nz - 1):
        for y in range(1, ny - 1):
            for x in range(1, nx - 1):
                out[x + nx * (y + ny * z)] = c1 * (
                    at(x - 1, y, z) + at(x + 1, y, z) + at(x, y - 1, z) + at(x, y + 1, z)
                    + at(x, y, z - 1) + at(x, y, z + 1)) - c0 * at(x, y, z)
    return {"Anext": out}


@reference("argmax_reduction", "argmax_pairs")
def argmax(l):
    L, x = l.local_size[0], l["in"]
    vals, idxs = [], []
    for g in range(0, len(x), L):
        block = x[g:g + L]
        m = max(block)
        vals.append(m)
        idxs.append(g + block.index(m))
    return {"max_val": vals, "max_idx": idxs}
