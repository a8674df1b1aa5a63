# Minimax polynomial fits (Remez exchange) with mpmath, for lanes' vector math.
import mpmath as mp, struct, sys
mp.mp.dps = 130

def f32(x):
    return struct.unpack('f', struct.pack('f', float(x)))[0]

def remez(g0, a, b, n, rel=True, iters=30, grid=4000):
    g = lambda t: g0(t if abs(t) > mp.mpf("1e-25") else mp.mpf("1e-25"))
    """Minimax p(t)=sum_{j<=n} c_j t^j approximating g on [a,b]; relative error if rel."""
    a = mp.mpf(a); b = mp.mpf(b)
    N = n + 2
    xs = [ (a+b)/2 - (b-a)/2*mp.cos(mp.pi*i/(N-1)) for i in range(N)]
    w = (lambda t: 1/abs(g(t))) if rel else (lambda t: mp.mpf(1))
    best = None
    for it in range(iters):
        A = mp.matrix(N, N); B = mp.matrix(N, 1)
        for i, x in enumerate(xs):
            for j in range(n+1):
                A[i, j] = x**j
            A[i, n+1] = (-1)**i / w(x)
            B[i] = g(x)
        sol = mp.lu_solve(A, B)
        c = [sol[j] for j in range(n+1)]
        E = sol[n+1]
        err = lambda t: w(t)*(g(t) - mp.polyval(c[::-1], t))
        # dense grid to find extrema
        ts = [a + (b-a)*(1-mp.cos(mp.pi*k/grid))/2 for k in range(grid+1)]
        es = [err(t) for t in ts]
        # local extrema incl. endpoints
        ext = []
        for k in range(len(ts)):
            l = es[k-1] if k > 0 else None
            r = es[k+1] if k < len(ts)-1 else None
            e = es[k]
            if (l is None or abs(e) >= abs(l)) and (r is None or abs(e) >= abs(r)):
                ext.append((ts[k], e))
        # enforce alternation: merge same-sign neighbours keeping the largest
        alt = []
        for t, e in ext:
            if alt and mp.sign(alt[-1][1]) == mp.sign(e):
                if abs(e) > abs(alt[-1][1]): alt[-1] = (t, e)
            else:
                alt.append((t, e))
        while len(alt) > N:
            # drop the smaller end
            if abs(alt[0][1]) < abs(alt[-1][1]): alt.pop(0)
            else: alt.pop()
        maxerr = max(abs(e) for _, e in ext)
        best = (c, maxerr)
        if len(alt) < N:
            break
        xs = [t for t, _ in alt]
        if abs(maxerr - abs(E)) < abs(E)*mp.mpf('1e-6'):
            break
    return best

def check(g0, a, b, c, rel=True, grid=20000):
    g = lambda t: g0(t if abs(t) > mp.mpf("1e-25") else mp.mpf("1e-25"))
    a = mp.mpf(a); b = mp.mpf(b)
    m = 0
    for k in range(grid+1):
        t = a + (b-a)*k/grid
        v = g(t)
        e = (v - mp.polyval([mp.mpf(x) for x in c[::-1]], t))
        if rel: e = e / v
        m = max(m, abs(e))
    return m

def fit(name, g, a, b, n, kind, rel=True):
    c, e = remez(g, a, b, n, rel)
    if kind == 'f32':
        cr = [f32(x) for x in c]
    else:
        cr = [float(x) for x in c]
    er = check(g, a, b, cr, rel)
    print(f"// {name}: degree {n} on [{mp.nstr(mp.mpf(a),6)}, {mp.nstr(mp.mpf(b),6)}], minimax {'rel' if rel else 'abs'} err {mp.nstr(e,3)} = 2^{mp.nstr(mp.log(e,2),4)}, rounded {mp.nstr(er,3)} = 2^{mp.nstr(mp.log(er,2),4)}", file=sys.stderr)
    return cr, er
