//! The algorithms. Each takes operands of the emitter's current format and
//! shape and returns the result; all are straight-line code with selects
//! (except `fmod`, a vector loop that runs while any lane is unfinished), so
//! they work unchanged for scalars and for any vector width.
//!
//! Sources: fdlibm/musl (log family, atan, asin/acos, tanh, cbrt, scalbn),
//! SLEEF (exp/ldexp2k reconstruction, double-double pow), Cody & Waite
//! (additive range reduction). Polynomial coefficients are our own minimax
//! fits (see `gen/gen.py`).

use inkwell::IntPredicate as IP;

use super::coef::*;
use super::emit::{Em, Fp, V};

type DD<'c> = (V<'c>, V<'c>);

const LOG2E: f64 = std::f64::consts::LOG2_E;

// ---------------------------------------------------------------- exp family

/// `e^x * 2^scale`; NaN is not propagated (callers select it back).
/// Cody–Waite: x = q ln2 + r, |r| <= ln2/2, e^r = 1 + r + r^2 P(r), then the
/// result is scaled by 2^q in two exact steps so that gradual underflow rounds
/// once (SLEEF `ldexp2k`).
pub(crate) fn exp_core<'c>(e: &Em<'_, 'c>, x: V<'c>, scale: i64) -> V<'c> {
    let fp = e.fp;
    // Beyond these the result is 0 or inf anyway; clamping keeps q in the
    // range of `ldexp2` and the float-to-int conversion well defined.
    let (lo, hi) = fp.pick((-104.0, 90.0), (-746.0, 711.0));
    let xc = e.clamp(x, lo, hi);
    let qf = e.rint(e.mul(xc, e.k(LOG2E)));
    let ln2 = fp.pick(LN2_F, LN2_D);
    let r = e.sub(xc, e.mul(qf, e.k(ln2[0])));
    let r = e.sub(r, e.mul(qf, e.k(ln2[1])));
    let p = e.poly(r, fp.pick(&EXP_F[..], &EXP_D[..]));
    let t = e.mla(e.mul(r, r), p, r);
    let y = e.add(e.k(1.0), t);
    let q = e.iadd(e.f2iw(qf), e.ki(scale));
    e.ldexp2(y, q)
}

pub(crate) fn exp<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let r = exp_core(e, x, 0);
    e.sel(e.isnan(x), x, r)
}

pub(crate) fn exp2<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let fp = e.fp;
    let (lo, hi) = fp.pick((-151.0, 129.0), (-1076.0, 1025.0));
    let xc = e.clamp(x, lo, hi);
    let qf = e.rint(xc);
    let r = e.sub(xc, qf); // exact
    let p = e.poly(r, fp.pick(&EXP2_F[..], &EXP2_D[..]));
    let y = e.mla(r, p, e.k(1.0));
    let res = e.ldexp2(y, e.f2iw(qf));
    e.sel(e.isnan(x), x, res)
}

pub(crate) fn exp10<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let fp = e.fp;
    let (lo, hi) = fp.pick((-46.0, 39.5), (-324.5, 309.0));
    let xc = e.clamp(x, lo, hi);
    let qf = e.rint(e.mul(xc, e.k(std::f64::consts::LOG2_10)));
    let l = fp.pick(LOG10_2_F, LOG10_2_D);
    let r = e.sub(xc, e.mul(qf, e.k(l[0])));
    let r = e.sub(r, e.mul(qf, e.k(l[1])));
    let p = e.poly(r, fp.pick(&EXP10_F[..], &EXP10_D[..]));
    let y = e.mla(r, p, e.k(1.0));
    let res = e.ldexp2(y, e.f2iw(qf));
    e.sel(e.isnan(x), x, res)
}

/// e^x - 1 without cancellation: with x = q ln2 + r,
/// e^x - 1 = 2^q (e^r - 1) + (2^q - 1), where 2^q - 1 is exact for q <= prec;
/// for larger q the -1 no longer matters (fdlibm s_expm1.c, simplified).
pub(crate) fn expm1<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let fp = e.fp;
    let (lo, hi) = fp.pick((-30.0, 90.0), (-60.0, 711.0));
    let xc = e.clamp(x, lo, hi);
    let qf = e.rint(e.mul(xc, e.k(LOG2E)));
    let ln2 = fp.pick(LN2_F, LN2_D);
    let r = e.sub(xc, e.mul(qf, e.k(ln2[0])));
    let r = e.sub(r, e.mul(qf, e.k(ln2[1])));
    let p = e.poly(r, fp.pick(&EXP_F[..], &EXP_D[..]));
    let em1r = e.mla(e.mul(r, r), p, r);
    let q = e.f2iw(qf);
    let lim = fp.prec();
    let t = e.pow2i(e.smin(q, e.ki(lim)));
    let small = e.add(e.mul(t, em1r), e.sub(t, e.k(1.0)));
    let big = e.ldexp2(e.add(em1r, e.k(1.0)), q);
    let res = e.sel(e.icmp(IP::SGT, q, e.ki(lim)), big, small);
    // x = ±0 keeps its sign; NaN propagates.
    let res = e.sel(e.eq(x, e.k(0.0)), x, res);
    e.sel(e.isnan(x), x, res)
}

// ---------------------------------------------------------------- log family

struct LogParts<'c> {
    /// The binary exponent k, as a float.
    k: V<'c>,
    f: V<'c>,
    hfsq: V<'c>,
    /// s (hfsq + R)
    sr: V<'c>,
}

/// fdlibm/musl reduction: x = 2^k (1+f) with 1+f in [sqrt2/2, sqrt2),
/// s = f/(2+f), log(1+f) = f - hfsq + s (hfsq + R(s^2)). Subnormals are
/// scaled up first. Only meaningful for finite x > 0.
fn log_parts<'c>(e: &Em<'_, 'c>, x: V<'c>) -> LogParts<'c> {
    let fp = e.fp;
    let sc = fp.pick(25i64, 54);
    let sub = e.lt(x, e.k(fp.min_normal()));
    let xs = e.sel(sub, e.mul(x, e.k((sc as f64).exp2())), x);
    let kadj = e.sel(sub, e.ki(-sc), e.ki(0));
    let (one, s2h, mask) = match fp {
        Fp::F32 => (0x3f80_0000i64, 0x3f35_04f3i64, 0x007f_ffffi64),
        Fp::F64 => (
            0x3ff0_0000_0000_0000,
            0x3fe6_a09e_667f_3bcd,
            0x000f_ffff_ffff_ffff,
        ),
    };
    let ix = e.iadd(e.as_int(xs), e.ki(one - s2h));
    let k = e.isub(e.lshr(ix, e.ki(fp.mant() as i64)), e.ki(fp.bias()));
    let k = e.iadd(k, kadj);
    let ix = e.iadd(e.and(ix, e.ki(mask)), e.ki(s2h));
    let f = e.sub(e.as_float(ix), e.k(1.0));
    log_tail(e, e.iw2f(k), f)
}

fn log_tail<'c>(e: &Em<'_, 'c>, k: V<'c>, f: V<'c>) -> LogParts<'c> {
    let fp = e.fp;
    let s = e.div(f, e.add(e.k(2.0), f));
    let z = e.mul(s, s);
    let rr = e.mul(z, e.poly(z, fp.pick(&LOG_F[..], &LOG_D[..])));
    let hfsq = e.mul(e.mul(e.k(0.5), f), f);
    let sr = e.mul(s, e.add(hfsq, rr));
    LogParts { k, f, hfsq, sr }
}

/// log(0) = -inf, log(x<0) = NaN, log(inf) = inf, NaN propagates.
fn log_specials<'c>(e: &Em<'_, 'c>, x: V<'c>, res: V<'c>) -> V<'c> {
    let res = e.sel(e.eq(x, e.k(0.0)), e.k(f64::NEG_INFINITY), res);
    let res = e.sel(e.lt(x, e.k(0.0)), e.nan(), res);
    let res = e.sel(e.eq(x, e.inf()), e.inf(), res);
    e.sel(e.isnan(x), x, res)
}

pub(crate) fn log<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let p = log_parts(e, x);
    let ln2 = e.fp.pick(LN2_F, LN2_D);
    // k ln2_hi - ((hfsq - (s(hfsq+R) + k ln2_lo)) - f)
    let t = e.add(p.sr, e.mul(p.k, e.k(ln2[1])));
    let t = e.sub(e.sub(p.hfsq, t), p.f);
    let res = e.sub(e.mul(p.k, e.k(ln2[0])), t);
    log_specials(e, x, res)
}

/// hi + lo = f - hfsq + s(hfsq+R) with hi short enough that hi * (short
/// constant) is exact (musl log2/log10).
fn log_hilo<'c>(e: &Em<'_, 'c>, p: &LogParts<'c>) -> (V<'c>, V<'c>) {
    let mask = e.fp.pick(!0xfffi64, !0xffff_ffffi64);
    let hi = e.sub(p.f, p.hfsq);
    let hi = e.as_float(e.and(e.as_int(hi), e.ki(mask)));
    let lo = e.add(e.sub(e.sub(p.f, hi), p.hfsq), p.sr);
    (hi, lo)
}

pub(crate) fn log2<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let p = log_parts(e, x);
    let (hi, lo) = log_hilo(e, &p);
    let iv = e.fp.pick(IVLN2_F, IVLN2_D);
    let val_hi = e.mul(hi, e.k(iv[0]));
    let val_lo = e.add(e.mul(e.add(lo, hi), e.k(iv[1])), e.mul(lo, e.k(iv[0])));
    // k + val_hi, keeping the rounding error of the sum (musl e_log2.c).
    let w = e.add(p.k, val_hi);
    let val_lo = e.add(val_lo, e.add(e.sub(p.k, w), val_hi));
    let res = e.add(val_lo, w);
    log_specials(e, x, res)
}

pub(crate) fn log10<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let p = log_parts(e, x);
    let (hi, lo) = log_hilo(e, &p);
    let iv = e.fp.pick(IVLN10_F, IVLN10_D);
    let l2 = e.fp.pick(LOG10_2_F, LOG10_2_D);
    let val_hi = e.mul(hi, e.k(iv[0]));
    let w = e.mul(p.k, e.k(l2[0]));
    let val_lo = e.add(e.mul(p.k, e.k(l2[1])), e.mul(e.add(lo, hi), e.k(iv[1])));
    let val_lo = e.add(val_lo, e.mul(lo, e.k(iv[0])));
    let w2 = e.add(w, val_hi);
    let val_lo = e.add(val_lo, e.add(e.sub(w, w2), val_hi));
    let res = e.add(val_lo, w2);
    log_specials(e, x, res)
}

/// log(1+x) (musl log1pf/log1p): u = 1+x is reduced like log, and the
/// rounding error of u is added back as c/u.
pub(crate) fn log1p<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let fp = e.fp;
    let one_f = e.k(1.0);
    let u = e.add(one_f, x);
    let (one, s2h, mask) = match fp {
        Fp::F32 => (0x3f80_0000i64, 0x3f35_04f3i64, 0x007f_ffffi64),
        Fp::F64 => (
            0x3ff0_0000_0000_0000,
            0x3fe6_a09e_667f_3bcd,
            0x000f_ffff_ffff_ffff,
        ),
    };
    let iu = e.iadd(e.as_int(u), e.ki(one - s2h));
    // u <= 0 gives a meaningless k; those lanes are replaced below.
    let k = e.isub(e.lshr(iu, e.ki(fp.mant() as i64)), e.ki(fp.bias()));
    let c_big = e.sub(one_f, e.sub(u, x));
    let c_small = e.sub(x, e.sub(u, one_f));
    let c = e.sel(e.icmp(IP::SGE, k, e.ki(2)), c_big, c_small);
    let c = e.div(c, u);
    let c = e.sel(e.icmp(IP::SGT, k, e.ki(fp.prec())), e.k(0.0), c);
    let iu = e.iadd(e.and(iu, e.ki(mask)), e.ki(s2h));
    let f = e.sub(e.as_float(iu), one_f);
    // 1+x already in [sqrt2/2, sqrt2): use x itself, exactly.
    let k0 = e.icmp(IP::EQ, k, e.ki(0));
    let f = e.sel(k0, x, f);
    let c = e.sel(k0, e.k(0.0), c);
    let p = log_tail(e, e.iw2f(k), f);
    let ln2 = fp.pick(LN2_F, LN2_D);
    // s(hfsq+R) + (k ln2_lo + c) - hfsq + f + k ln2_hi
    let t = e.add(p.sr, e.add(e.mul(p.k, e.k(ln2[1])), c));
    let t = e.add(e.sub(t, p.hfsq), p.f);
    let res = e.add(t, e.mul(p.k, e.k(ln2[0])));
    let res = e.sel(e.eq(x, e.k(-1.0)), e.k(f64::NEG_INFINITY), res);
    let res = e.sel(e.lt(x, e.k(-1.0)), e.nan(), res);
    let res = e.sel(e.eq(x, e.inf()), e.inf(), res);
    let res = e.sel(e.eq(x, e.k(0.0)), x, res);
    e.sel(e.isnan(x), x, res)
}

// ---------------------------------------------------------------- trig

/// Cody–Waite reduction in double: x = q pi/2 + r, |r| <= pi/4 (+ulp).
/// pi/2 is split in three 33-bit pieces and a rest, so q*piece is exact and
/// the partial differences are exact for |q| < 2^20, i.e. |x| < ~1.6e6.
/// Returns r and q (i32 lanes). `e` computes in f64.
fn trig_reduce<'c>(e: &Em<'_, 'c>, x: V<'c>) -> (V<'c>, V<'c>) {
    let qf = e.rint(e.mul(x, e.k(std::f64::consts::FRAC_2_PI)));
    let mut r = x;
    for c in PIO2_CW {
        r = e.sub(r, e.mul(qf, e.k(c)));
    }
    let q = e.f2i(e.clamp(qf, -1.0e9, 1.0e9), 32);
    // (lanes beyond the Cody–Waite range are replaced by the Payne–Hanek ones)
    (r, q)
}

/// sin(r), cos(r) for |r| <= pi/4 (fdlibm's compensated cos form).
fn sincos_poly<'c>(e: &Em<'_, 'c>, r: V<'c>, sc: &[f64], cc: &[f64]) -> (V<'c>, V<'c>) {
    let z = e.mul(r, r);
    let s = e.mla(e.mul(r, z), e.poly(z, sc), r);
    let hz = e.mul(e.k(0.5), z);
    let w = e.sub(e.k(1.0), hz);
    let tail = e.mul(e.mul(z, z), e.poly(z, cc));
    let c = e.add(w, e.add(e.sub(e.sub(e.k(1.0), w), hz), tail));
    (s, c)
}

/// Payne–Hanek reduction of a finite ax >= 2^20 (double): returns f in
/// [-1/2, 1/2] and q (i32 lanes) with ax * 2/pi = q + f (mod 4).
/// ax = M 2^(E-52); only the bits of 2/pi from position E-53 on matter mod 4.
/// Seven 26-bit chunks c_i of them (read from a 50-entry table with per-lane
/// shifts) times M = Mh 2^27 + Ml give exact products, which are split on
/// 26-bit boundaries and added into limbs of weight 2^(2-26k); after carry
/// propagation limb 1 holds the quadrant and the limbs the exact fraction
/// (to 2^-127), summed into a double only after centering (fdlibm
/// k_rem_pio2.c's idea, arranged for straight-line vector code).
fn payne_hanek<'c>(d: &Em<'_, 'c>, ax: V<'c>) -> (V<'c>, V<'c>) {
    let table = d.table_i64("lanes.math.two_over_pi_26", &TWO_OVER_PI_26);
    let ex = d.isub(d.lshr(d.as_int(ax), d.ki(52)), d.ki(1023));
    // Window start E-1 in the padded bit stream: chunk k0, offset off.
    let em2 = d.itrunc(d.isub(ex, d.ki(2)), 32);
    let k0 = d.zext(d.udiv(em2, d.kib(32, 26)), 64);
    let off = d.zext(d.urem(em2, d.kib(32, 26)), 64);
    let g: Vec<V<'c>> = (0..8)
        .map(|j| d.load_table(table, d.iadd(k0, d.ki(j))))
        .collect();
    let sh = d.isub(d.ki(26), off);
    let mask = d.ki((1 << 26) - 1);
    let two26 = d.k(67108864.0);
    let inv26 = d.k(1.0 / 67108864.0);
    let chunks: Vec<V<'c>> = (0..7)
        .map(|i| {
            let cat = d.or(d.shl(g[i], d.ki(26)), g[i + 1]);
            let c = d.and(d.lshr(cat, sh), mask);
            d.i2f(d.itrunc(c, 32))
        })
        .collect();
    let m = d.mul(ax, d.pow2i(d.isub(d.ki(52), ex)));
    let mh = d.intr("llvm.floor", &[d.mul(m, d.k(1.0 / 134217728.0))]);
    let ml = d.sub(m, d.mul(mh, d.k(134217728.0)));
    let mh2 = d.add(mh, mh);
    let zero = d.k(0.0);
    // limbs[k] has weight 2^(2-26k); limb 0 (and above) is a multiple of 4.
    let mut limbs = [zero; 8];
    let split = |x: V<'c>| {
        let hi = d.intr("llvm.floor", &[d.mul(x, inv26)]);
        (hi, d.sub(x, d.mul(hi, two26)))
    };
    for (i, &c) in chunks.iter().enumerate() {
        let (xh, xl) = split(d.mul(ml, c));
        limbs[i + 1] = d.add(limbs[i + 1], xl);
        if i >= 1 {
            limbs[i] = d.add(limbs[i], xh);
            let (yh, yl) = split(d.mul(mh2, c));
            limbs[i] = d.add(limbs[i], yl);
            if i >= 2 {
                limbs[i - 1] = d.add(limbs[i - 1], yh);
            }
        }
    }
    for k in (2..8).rev() {
        let (c, rest) = split(limbs[k]);
        limbs[k] = rest;
        limbs[k - 1] = d.add(limbs[k - 1], c);
    }
    let (_, l1) = split(limbs[1]);
    // Round to the nearest quadrant: q = floor(V + 1/2), V = l1 2^-24 + ...
    let q = d.intr(
        "llvm.floor",
        &[d.mul(d.add(l1, d.k(8388608.0)), d.k(1.0 / 16777216.0))],
    );
    let mut acc = d.sub(l1, d.mul(q, d.k(16777216.0)));
    for &l in &limbs[2..8] {
        acc = d.add(d.mul(acc, two26), l);
    }
    let f = d.mul(acc, d.k(2f64.powi(-180)));
    (f, d.f2i(q, 32))
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trig {
    Sin,
    Cos,
    Tan,
}

/// sin/cos/tan. f32 arguments are reduced and evaluated in double (exact
/// reduction, result rounded once); f64 in double with r in one word.
/// |x| <= 1.5 * 2^20 uses the Cody–Waite reduction; larger finite arguments
/// take a branch (only when some lane needs it) to the Payne–Hanek
/// reduction, so every finite argument is reduced correctly.
pub(crate) fn trig<'c>(e: &Em<'_, 'c>, x: V<'c>, which: Trig) -> Result<V<'c>, String> {
    let d = e.with_fp(Fp::F64);
    let xd = if e.fp == Fp::F32 { e.fpext(x) } else { x };
    let (r0, q0) = trig_reduce(&d, xd);
    let ax = d.fabs(xd);
    let big = d.and(d.gt(ax, d.k(1572864.0)), d.isfinite(xd));
    let err = |x: inkwell::builder::BuilderError| format!("math: LLVM builder error: {x}");
    let entry = e.b.get_insert_block().ok_or("math: builder has no block")?;
    let func = entry.get_parent().ok_or("math: block has no function")?;
    let slow = e.ctx.append_basic_block(func, "trig.huge");
    let join = e.ctx.append_basic_block(func, "trig.join");
    let any = d.any(big);
    e.b.build_conditional_branch(any.into_int_value(), slow, join)
        .map_err(err)?;
    e.b.position_at_end(slow);
    // Lanes not taking this path get a harmless argument (keeps the table
    // index in range).
    let (f, qh) = payne_hanek(&d, d.sel(big, ax, d.k(2f64.powi(21))));
    let rh = d.add(d.mul(f, d.k(PIO2_D[0])), d.mul(f, d.k(PIO2_D[1])));
    let neg = d.signbit(xd);
    let rh = d.sel(neg, d.neg(rh), rh);
    let qh = d.sel(neg, d.isub(d.kib(32, 0), qh), qh);
    let r1 = d.sel(big, rh, r0);
    let q1 = d.sel(big, qh, q0);
    let slow_end = e.b.get_insert_block().ok_or("math: builder has no block")?;
    e.b.build_unconditional_branch(join).map_err(err)?;
    e.b.position_at_end(join);
    let rp = e.b.build_phi(d.fty(), "r").map_err(err)?;
    rp.add_incoming(&[(&r0, entry), (&r1, slow_end)]);
    let qp = e.b.build_phi(d.ity(32), "q").map_err(err)?;
    qp.add_incoming(&[(&q0, entry), (&q1, slow_end)]);
    let r = rp.as_basic_value();
    let q = qp.as_basic_value();
    let (sc, cc) = match e.fp {
        Fp::F32 => (&SIN_G[..], &COS_G[..]),
        Fp::F64 => (&SIN_D[..], &COS_D[..]),
    };
    let (s, c) = sincos_poly(&d, r, sc, cc);
    let i1 = d.kib(32, 1);
    let i2 = d.kib(32, 2);
    let zero = d.kib(32, 0);
    let odd = d.icmp(IP::NE, d.and(q, i1), zero);
    let res = match which {
        Trig::Sin => {
            let v = d.sel(odd, c, s);
            let neg = d.icmp(IP::NE, d.and(q, i2), zero);
            d.sel(neg, d.neg(v), v)
        }
        Trig::Cos => {
            let v = d.sel(odd, s, c);
            let neg = d.icmp(IP::NE, d.and(d.iadd(q, i1), i2), zero);
            d.sel(neg, d.neg(v), v)
        }
        Trig::Tan => {
            let num = d.sel(odd, d.neg(c), s);
            let den = d.sel(odd, s, c);
            d.div(num, den)
        }
    };
    // sin(±0) = tan(±0) = ±0 (the reduction loses the sign of zero).
    let res = match which {
        Trig::Cos => res,
        _ => d.sel(d.eq(xd, d.k(0.0)), xd, res),
    };
    Ok(if e.fp == Fp::F32 { e.fptrunc(res) } else { res })
}

/// sinpi/cospi: x mod 2 is exact, then x = n/2 + r with |r| <= 1/4 exactly,
/// and sin(pi r), cos(pi r) are polynomials in r.
pub(crate) fn sincospi<'c>(e: &Em<'_, 'c>, x: V<'c>, cos: bool) -> V<'c> {
    let fp = e.fp;
    let xr = e.sub(x, e.mul(e.k(2.0), e.trunc(e.mul(x, e.k(0.5)))));
    let nf = e.rint(e.mul(xr, e.k(2.0)));
    let r = e.sub(xr, e.mul(nf, e.k(0.5)));
    let n = e.f2i(e.clamp(nf, -4.0, 4.0), 32);
    let z = e.mul(r, r);
    let s = e.mul(r, e.poly(z, fp.pick(&SINPI_F[..], &SINPI_D[..])));
    let c = e.mla(z, e.poly(z, fp.pick(&COSPI_F[..], &COSPI_D[..])), e.k(1.0));
    let i1 = e.kib(32, 1);
    let i2 = e.kib(32, 2);
    let zero = e.kib(32, 0);
    let odd = e.icmp(IP::NE, e.and(n, i1), zero);
    if cos {
        let v = e.sel(odd, s, c);
        let neg = e.icmp(IP::NE, e.and(e.iadd(n, i1), i2), zero);
        let v = e.sel(neg, e.neg(v), v);
        // cospi(n + 1/2) = +0
        e.sel(e.eq(v, e.k(0.0)), e.k(0.0), v)
    } else {
        let v = e.sel(odd, c, s);
        let neg = e.icmp(IP::NE, e.and(n, i2), zero);
        let v = e.sel(neg, e.neg(v), v);
        // sinpi(±n) = ±0
        e.sel(e.eq(v, e.k(0.0)), e.copysign(e.k(0.0), x), v)
    }
}

// ---------------------------------------------------------------- inverse trig

/// atan(ax) for ax >= 0 (fdlibm s_atan.c): the argument is reduced to
/// |s| <= 7/16 with atan(ax) = atan(c) + atan(s) for c in {0, 1/2, 1, 3/2, inf};
/// the reduction's division is shared by all ranges (selects pick constants).
fn atan_core<'c>(e: &Em<'_, 'c>, ax: V<'c>) -> V<'c> {
    let fp = e.fp;
    let r1 = e.ge(ax, e.k(7.0 / 16.0));
    let r2 = e.ge(ax, e.k(11.0 / 16.0));
    let r3 = e.ge(ax, e.k(19.0 / 16.0));
    let r4 = e.ge(ax, e.k(39.0 / 16.0));
    let pick = |v0: f64, v1: f64, v2: f64, v3: f64, v4: f64| {
        let v = e.sel(r1, e.k(v1), e.k(v0));
        let v = e.sel(r2, e.k(v2), v);
        let v = e.sel(r3, e.k(v3), v);
        e.sel(r4, e.k(v4), v)
    };
    // s = (a ax - b) / (c ax + d)
    let a = pick(1.0, 2.0, 1.0, 1.0, 0.0);
    let b = pick(0.0, 1.0, 1.0, 1.5, 1.0);
    let c = pick(0.0, 1.0, 1.0, 1.5, 1.0);
    let d = pick(1.0, 2.0, 1.0, 1.0, 0.0);
    let num = e.sel(r4, e.k(-1.0), e.sub(e.mul(a, ax), b));
    let den = e.sel(r4, ax, e.add(e.mul(c, ax), d));
    let s = e.div(num, den);
    // atan(1/2), atan(1), atan(3/2), pi/2 as high + low parts.
    let (c1, c2, c3, c4) = match fp {
        Fp::F32 => (ATAN_HALF_F, PIO4_F, ATAN_1P5_F, PIO2_F),
        Fp::F64 => (ATAN_HALF_D, PIO4_D, ATAN_1P5_D, PIO2_D),
    };
    let off_hi = pick(0.0, c1[0], c2[0], c3[0], c4[0]);
    let off_lo = pick(0.0, c1[1], c2[1], c3[1], c4[1]);
    let z = e.mul(s, s);
    let t = e.mla(
        e.mul(s, z),
        e.poly(z, fp.pick(&ATAN_F[..], &ATAN_D[..])),
        off_lo,
    );
    e.add(off_hi, e.add(t, s))
}

pub(crate) fn atan<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let r = atan_core(e, e.fabs(x));
    let r = e.copysign(r, x);
    e.sel(e.isnan(x), x, r)
}

/// atan2 via atan of min/max (<= 1), then the quadrant fix-ups of C99 F.9.1.4.
pub(crate) fn atan2<'c>(e: &Em<'_, 'c>, y: V<'c>, x: V<'c>) -> V<'c> {
    let fp = e.fp;
    let ay = e.fabs(y);
    let ax = e.fabs(x);
    let both_inf = e.and(e.isinf(x), e.isinf(y));
    let ay = e.sel(both_inf, e.k(1.0), ay);
    let ax = e.sel(both_inf, e.k(1.0), ax);
    let swap = e.gt(ay, ax);
    let num = e.sel(swap, ax, ay);
    let den = e.sel(swap, ay, ax);
    let t = e.div(num, den);
    let t = e.sel(e.eq(den, e.k(0.0)), e.k(0.0), t);
    let r = atan_core(e, t);
    let (p2, p1) = fp.pick((PIO2_F, PI_F), (PIO2_D, PI_D));
    let r = e.sel(swap, e.add(e.sub(e.k(p2[0]), r), e.k(p2[1])), r);
    let r = e.sel(e.signbit(x), e.add(e.sub(e.k(p1[0]), r), e.k(p1[1])), r);
    let r = e.copysign(r, y);
    e.sel(e.or(e.isnan(x), e.isnan(y)), e.add(x, y), r)
}

/// asin/acos (fdlibm e_asin.c/e_acos.c structure, polynomial instead of the
/// rational): |x| < 1/2 directly, else via asin(sqrt((1-|x|)/2)).
pub(crate) fn asin_acos<'c>(e: &Em<'_, 'c>, x: V<'c>, acos: bool) -> V<'c> {
    let fp = e.fp;
    let ax = e.fabs(x);
    let small = e.lt(ax, e.k(0.5));
    let zb = e.mul(e.sub(e.k(1.0), ax), e.k(0.5));
    let z = e.sel(small, e.mul(ax, ax), zb);
    let s = e.sel(small, ax, e.sqrt(zb));
    let p = e.mla(e.mul(s, z), e.poly(z, fp.pick(&ASIN_F[..], &ASIN_D[..])), s);
    let (p2, p1) = fp.pick((PIO2_F, PI_F), (PIO2_D, PI_D));
    let two_p = e.add(p, p);
    if !acos {
        let big = e.sub(e.k(p2[0]), e.sub(two_p, e.k(p2[1])));
        let r = e.sel(small, p, big);
        e.copysign(r, x)
    } else {
        let ps = e.copysign(p, x);
        let rs = e.sub(e.k(p2[0]), e.sub(ps, e.k(p2[1])));
        let rneg = e.sub(e.k(p1[0]), e.sub(two_p, e.k(p1[1])));
        let rb = e.sel(e.signbit(x), rneg, two_p);
        let r = e.sel(small, rs, rb);
        e.sel(e.isnan(x), x, r)
    }
}

// ---------------------------------------------------------------- hyperbolic

pub(crate) fn sinh<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let fp = e.fp;
    let ax = e.fabs(x);
    let z = e.mul(ax, ax);
    let ps = e.mla(
        e.mul(ax, z),
        e.poly(z, fp.pick(&SINH_F[..], &SINH_D[..])),
        ax,
    );
    // e^|x|/2 - 1/(4 (e^|x|/2)); the halving is folded into the exponent so
    // the result does not overflow early.
    let eh = exp_core(e, ax, -1);
    let big = e.sub(eh, e.div(e.k(0.25), eh));
    let r = e.sel(e.lt(ax, e.k(1.0)), ps, big);
    let r = e.copysign(r, x);
    e.sel(e.isnan(x), x, r)
}

pub(crate) fn cosh<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let eh = exp_core(e, e.fabs(x), -1);
    let r = e.add(eh, e.div(e.k(0.25), eh));
    e.sel(e.isnan(x), x, r)
}

/// fdlibm s_tanh.c: |x| >= 1: 1 - 2/(expm1(2|x|) + 2); else
/// -t/(t+2) with t = expm1(-2|x|).
pub(crate) fn tanh<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let ax = e.fabs(x);
    let big = e.ge(ax, e.k(1.0));
    let two_ax = e.add(ax, ax);
    let a = e.sel(big, two_ax, e.neg(two_ax));
    let t = expm1(e, a);
    let t2 = e.add(t, e.k(2.0));
    let rb = e.sub(e.k(1.0), e.div(e.k(2.0), t2));
    let rs = e.div(e.neg(t), t2);
    let r = e.sel(big, rb, rs);
    let r = e.copysign(r, x);
    e.sel(e.isnan(x), x, r)
}

/// Thresholds for asinh/acosh: below `mid` the exact formula, up to `big`
/// log(2x), beyond log(x) + ln2 (so 2x cannot overflow).
fn ah_limits(fp: Fp) -> (f64, f64) {
    fp.pick((4096.0, 2f64.powi(125)), (2f64.powi(26), 2f64.powi(1021)))
}

/// asinh(x) = log1p(|x| + x^2/(1 + sqrt(1 + x^2))) (fdlibm s_asinh.c), one
/// log1p call for all ranges.
pub(crate) fn asinh<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let (mid, big) = ah_limits(e.fp);
    let y = e.fabs(x);
    let y2 = e.mul(y, y);
    let u = e.add(y, e.div(y2, e.add(e.k(1.0), e.sqrt(e.add(e.k(1.0), y2)))));
    let two_y_m1 = e.sub(e.add(y, y), e.k(1.0));
    let arg = e.sel(e.lt(y, e.k(mid)), u, e.sel(e.lt(y, e.k(big)), two_y_m1, y));
    let add = e.sel(e.lt(y, e.k(big)), e.k(0.0), e.k(std::f64::consts::LN_2));
    let r = e.add(log1p(e, arg), add);
    let r = e.copysign(r, x);
    e.sel(e.isnan(x), x, r)
}

/// acosh(x) = log1p(t + sqrt(t (t+2))), t = x - 1 (exact near 1).
pub(crate) fn acosh<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let (mid, big) = ah_limits(e.fp);
    let t = e.sub(x, e.k(1.0));
    let u = e.add(t, e.sqrt(e.mul(t, e.add(t, e.k(2.0)))));
    let two_x_m1 = e.sub(e.add(x, x), e.k(1.0));
    let arg = e.sel(e.lt(x, e.k(mid)), u, e.sel(e.lt(x, e.k(big)), two_x_m1, x));
    let add = e.sel(e.lt(x, e.k(big)), e.k(0.0), e.k(std::f64::consts::LN_2));
    let r = e.add(log1p(e, arg), add);
    let r = e.sel(e.lt(x, e.k(1.0)), e.nan(), r);
    e.sel(e.isnan(x), x, r)
}

/// atanh(x) = log1p(2x/(1-x))/2 (fdlibm e_atanh.c).
pub(crate) fn atanh<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let y = e.fabs(x);
    let t = e.add(y, y);
    let om = e.sub(e.k(1.0), y);
    let small = e.add(t, e.div(e.mul(t, y), om));
    let large = e.div(t, om);
    let arg = e.sel(e.lt(y, e.k(0.5)), small, large);
    let r = e.mul(e.k(0.5), log1p(e, arg));
    let r = e.copysign(r, x);
    e.sel(e.isnan(x), x, r)
}

// ---------------------------------------------------------------- roots

/// cbrt in double (fdlibm s_cbrt.c start): exponent/3 bit trick (~5 bits),
/// two Halley steps (~45 bits); for f64 then round to 22 bits and one last
/// Halley step in the cancellation-free form of s_cbrt.c (< 0.67 ulp).
fn cbrt_d<'c>(d: &Em<'_, 'c>, x: V<'c>, full: bool) -> V<'c> {
    // Iterate on a normal value away from overflow: scale by 2^±54 (exact
    // cube 2^±18 afterwards).
    let ax0 = d.fabs(x);
    let sub = d.lt(ax0, d.k(2f64.powi(-1000)));
    let huge = d.gt(ax0, d.k(2f64.powi(1000)));
    let ax = d.sel(sub, d.mul(ax0, d.k(2f64.powi(54))), ax0);
    let ax = d.sel(huge, d.mul(ax, d.k(2f64.powi(-54))), ax);
    let post = d.sel(
        sub,
        d.k(2f64.powi(-18)),
        d.sel(huge, d.k(2f64.powi(18)), d.k(1.0)),
    );
    let hx = d.itrunc(d.lshr(d.as_int(ax), d.ki(32)), 32);
    let hx3 = d.udiv(hx, d.kib(32, 3));
    let hi = d.iadd(hx3, d.kib(32, 715_094_163));
    let t = d.as_float(d.shl(d.zext(hi, 64), d.ki(32)));
    let halley = |t: V<'c>| {
        let t3 = d.mul(d.mul(t, t), t);
        let num = d.add(t3, d.add(ax, ax));
        let den = d.add(d.add(t3, t3), ax);
        d.mul(t, d.div(num, den))
    };
    let mut t = halley(halley(t));
    if full {
        t = d.as_float(d.and(
            d.iadd(d.as_int(t), d.ki(0x8000_0000)),
            d.ki(0xffff_ffff_c000_0000u64 as i64),
        ));
        let s = d.mul(t, t);
        let r = d.div(ax, s);
        let w = d.add(t, t);
        let r = d.div(d.sub(r, t), d.add(w, r));
        t = d.mla(t, r, t);
    }
    let r = d.copysign(d.mul(t, post), x);
    // ±0, ±inf, NaN are their own cube roots.
    let keep = d.or(d.not(d.isfinite(x)), d.eq(x, d.k(0.0)));
    d.sel(keep, x, r)
}

pub(crate) fn cbrt<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    match e.fp {
        Fp::F32 => {
            let d = e.with_fp(Fp::F64);
            e.fptrunc(cbrt_d(&d, e.fpext(x), false))
        }
        Fp::F64 => cbrt_d(e, x, true),
    }
}

/// hypot: f32 exactly in double; f64 with both operands scaled by the same
/// power of two so the squares neither overflow nor underflow.
pub(crate) fn hypot<'c>(e: &Em<'_, 'c>, x: V<'c>, y: V<'c>) -> V<'c> {
    let r = match e.fp {
        Fp::F32 => {
            let d = e.with_fp(Fp::F64);
            let xd = e.fpext(x);
            let yd = e.fpext(y);
            let s = d.add(d.mul(xd, xd), d.mul(yd, yd));
            e.fptrunc(d.sqrt(s))
        }
        Fp::F64 => {
            let ax = e.fabs(x);
            let ay = e.fabs(y);
            let a = e.maxnum(ax, ay);
            let ea = e.isub(e.lshr(e.as_int(a), e.ki(52)), e.ki(1023));
            let ea = e.smin(e.smax(ea, e.ki(-1021)), e.ki(1021));
            let down = e.pow2i(e.isub(e.ki(0), ea));
            let up = e.pow2i(ea);
            let sx = e.mul(ax, down);
            let sy = e.mul(ay, down);
            let s = e.add(e.mul(sx, sx), e.mul(sy, sy));
            e.mul(e.sqrt(s), up)
        }
    };
    let r = e.sel(e.or(e.isnan(x), e.isnan(y)), e.add(x, y), r);
    e.sel(e.or(e.isinf(x), e.isinf(y)), e.inf(), r)
}

// ---------------------------------------------------------------- pow family

/// ln(x) as a double-double for finite x > 0 (SLEEF `logk`): x = 2^k m,
/// m in [sqrt2/2, sqrt2), t = (m-1)/(m+1) in double-double,
/// ln m = 2t + 2t^3/3 + t^5 L(t^2). `e` computes in f64.
fn log_dd<'c>(e: &Em<'_, 'c>, x: V<'c>) -> DD<'c> {
    let sub = e.lt(x, e.k(f64::MIN_POSITIVE));
    let xs = e.sel(sub, e.mul(x, e.k(2f64.powi(54))), x);
    let kadj = e.sel(sub, e.ki(-54), e.ki(0));
    let (one, s2h, mask) = (
        0x3ff0_0000_0000_0000i64,
        0x3fe6_a09e_667f_3bcdi64,
        0x000f_ffff_ffff_ffffi64,
    );
    let ix = e.iadd(e.as_int(xs), e.ki(one - s2h));
    let k = e.iadd(e.isub(e.lshr(ix, e.ki(52)), e.ki(1023)), kadj);
    let m = e.as_float(e.iadd(e.and(ix, e.ki(mask)), e.ki(s2h)));
    let kf = e.iw2f(k);
    let n = e.sub(m, e.k(1.0)); // exact
    let den = e.two_sum(m, e.k(1.0));
    let t = e.dd_div((n, e.k(0.0)), den);
    let t2 = e.dd_mul(t, t);
    let s = (e.mul(kf, e.k(LN2_D[0])), e.mul(kf, e.k(LN2_D[1])));
    let s = e.dd_add(s, (e.add(t.0, t.0), e.add(t.1, t.1)));
    let t3 = e.dd_mul(t2, t);
    let two_thirds = (e.k(2.0 / 3.0), e.k(3.700743415417188e-17));
    let s = e.dd_add(s, e.dd_mul(t3, two_thirds));
    let t5 = e.dd_mul(t2, t3);
    e.dd_add(s, e.dd_mul_d(t5, e.poly(t2.0, &DDLOG_D)))
}

/// e^(h+l) for a double-double argument (SLEEF `expk`), saturating to 0/inf.
fn exp_dd<'c>(e: &Em<'_, 'c>, h: V<'c>, l: V<'c>) -> V<'c> {
    let hc = e.clamp(h, -1000.0, 1000.0);
    // Saturated lanes: the low word no longer means anything.
    let l = e.sel(e.lt(e.fabs(h), e.k(1000.0)), l, e.k(0.0));
    let qf = e.rint(e.mul(e.add(hc, l), e.k(LOG2E)));
    let s = e.dd_add((hc, l), (e.neg(e.mul(qf, e.k(LN2_D[0]))), e.k(0.0)));
    let s = e.dd_add(s, (e.neg(e.mul(qf, e.k(LN2_D[1]))), e.k(0.0)));
    let u = e.poly(s.0, &EXP_DD);
    let t = e.dd_add(s, e.dd_mul_d(e.dd_mul(s, s), u));
    let t = e.dd_add((e.k(1.0), e.k(0.0)), t);
    let y = e.add(t.0, t.1);
    e.ldexp2(y, e.f2iw(qf))
}

/// ln|x| as a double-double with ln 0 = -inf, ln inf = inf (low word 0).
fn log_dd_ext<'c>(e: &Em<'_, 'c>, ax: V<'c>) -> DD<'c> {
    let (lh, ll) = log_dd(e, ax);
    let lh = e.sel(e.eq(ax, e.k(0.0)), e.k(f64::NEG_INFINITY), lh);
    let lh = e.sel(e.eq(ax, e.inf()), e.inf(), lh);
    let ll = e.sel(e.isfinite(lh), ll, e.k(0.0));
    (lh, ll)
}

/// Double-double times/over a double, passing infinities through.
fn dd_scale_ext<'c>(e: &Em<'_, 'c>, l: DD<'c>, y: V<'c>, divide: bool) -> DD<'c> {
    let raw = if divide { e.div(l.0, y) } else { e.mul(l.0, y) };
    let (ph, pl) = if divide {
        e.dd_div_d(l, y)
    } else {
        e.dd_mul_d(l, y)
    };
    let fin = e.isfinite(raw);
    (e.sel(fin, ph, raw), e.sel(fin, pl, e.k(0.0)))
}

/// |x|^y for the pow family, before the sign and special-case fix-ups; `e`
/// computes in f64. With `accurate`, in double-double (f64 results);
/// otherwise in plain double, which is ample for f32 results.
fn pow_core_d<'c>(e: &Em<'_, 'c>, ax: V<'c>, y: V<'c>, accurate: bool) -> V<'c> {
    if accurate {
        let l = log_dd_ext(e, ax);
        // Beyond 2^900 only saturation matters; keeps the products finite.
        let yc = e.clamp(y, -2f64.powi(900), 2f64.powi(900));
        let (ph, pl) = dd_scale_ext(e, l, yc, false);
        exp_dd(e, ph, pl)
    } else {
        let l = log(e, ax);
        exp_core(e, e.mul(y, l), 0)
    }
}

/// C99 F.9.4.4 special cases around a core computing |x|^y.
fn pow_fixups<'c>(e: &Em<'_, 'c>, x: V<'c>, y: V<'c>, r: V<'c>) -> V<'c> {
    let ax = e.fabs(x);
    let yt = e.trunc(y);
    let yint = e.eq(yt, y);
    let yh = e.mul(y, e.k(0.5));
    let yodd = e.and(yint, e.une(e.trunc(yh), yh));
    let neg_finite = e.and(e.lt(x, e.k(0.0)), e.isfinite(x));
    let r = e.sel(e.and(neg_finite, e.not(yint)), e.nan(), r);
    let r = e.sel(e.and(e.signbit(x), yodd), e.neg(r), r);
    let r = e.sel(e.and(e.eq(ax, e.k(1.0)), e.isinf(y)), e.k(1.0), r);
    let r = e.sel(e.or(e.isnan(x), e.isnan(y)), e.add(x, y), r);
    let r = e.sel(e.eq(y, e.k(0.0)), e.k(1.0), r);
    e.sel(e.eq(x, e.k(1.0)), e.k(1.0), r)
}

/// pow(x, y) on operands already in double (`e` is f64); `accurate` as in
/// `pow_core_d`.
fn pow_d<'c>(e: &Em<'_, 'c>, x: V<'c>, y: V<'c>, accurate: bool) -> V<'c> {
    let r = pow_core_d(e, e.fabs(x), y, accurate);
    pow_fixups(e, x, y, r)
}

pub(crate) fn pow<'c>(e: &Em<'_, 'c>, x: V<'c>, y: V<'c>) -> V<'c> {
    match e.fp {
        Fp::F32 => {
            let d = e.with_fp(Fp::F64);
            e.fptrunc(pow_d(&d, e.fpext(x), e.fpext(y), false))
        }
        Fp::F64 => pow_d(e, x, y, true),
    }
}

/// pown(x, n) = pow(x, n) with n converted exactly (to double).
pub(crate) fn pown<'c>(e: &Em<'_, 'c>, x: V<'c>, n: V<'c>) -> V<'c> {
    let d = e.with_fp(Fp::F64);
    let y = d.i2f(n);
    match e.fp {
        Fp::F32 => e.fptrunc(pow_d(&d, e.fpext(x), y, false)),
        Fp::F64 => pow_d(e, x, y, true),
    }
}

/// powr(x, y) = exp2(y log2 x) for x >= 0 (OpenCL 1.2 §7.5 special cases).
pub(crate) fn powr<'c>(e: &Em<'_, 'c>, x: V<'c>, y: V<'c>) -> V<'c> {
    let r = pow(e, e.fabs(x), y);
    let zero = e.k(0.0);
    let bad = e.or(e.lt(x, zero), e.or(e.isnan(x), e.isnan(y)));
    let bad = e.or(bad, e.and(e.eq(x, zero), e.eq(y, zero)));
    let bad = e.or(bad, e.and(e.eq(x, e.inf()), e.eq(y, zero)));
    let bad = e.or(bad, e.and(e.eq(x, e.k(1.0)), e.isinf(y)));
    e.sel(bad, e.nan(), r)
}

/// rootn(x, n) = x^(1/n), with the 1/n folded into the logarithm (so it is
/// not rounded), OpenCL special cases.
pub(crate) fn rootn<'c>(e: &Em<'_, 'c>, x: V<'c>, n: V<'c>) -> V<'c> {
    let d = e.with_fp(Fp::F64);
    let nd = d.i2f(n);
    let (xd, accurate) = match e.fp {
        Fp::F32 => (e.fpext(x), false),
        Fp::F64 => (x, true),
    };
    let ax = d.fabs(xd);
    let r = if accurate {
        let l = log_dd_ext(&d, ax);
        let (th, tl) = dd_scale_ext(&d, l, nd, true);
        exp_dd(&d, th, tl)
    } else {
        let l = log(&d, ax);
        exp_core(&d, d.div(l, nd), 0)
    };
    let i1 = d.kib(32, 1);
    let odd = d.icmp(IP::NE, d.and(n, i1), d.kib(32, 0));
    let r = d.sel(odd, d.copysign(r, xd), r);
    let r = d.sel(d.and(d.lt(xd, d.k(0.0)), d.not(odd)), d.nan(), r);
    let r = d.sel(d.icmp(IP::EQ, n, d.kib(32, 0)), d.nan(), r);
    let r = d.sel(d.isnan(xd), xd, r);
    match e.fp {
        Fp::F32 => e.fptrunc(r),
        Fp::F64 => r,
    }
}

// ---------------------------------------------------------------- misc

/// x * 2^n correctly rounded (musl scalbn): bring n into the normal exponent
/// range with at most two exact pre-scalings on each side, then one multiply
/// (which is the only rounding). `n` is i32 lanes.
pub(crate) fn ldexp<'c>(e: &Em<'_, 'c>, x: V<'c>, n: V<'c>) -> V<'c> {
    let fp = e.fp;
    let n = e.i32_to_iw(n);
    let emax = fp.emax();
    let emin = fp.emin();
    let down = emin + fp.prec() - 1; // 2^-102 or 2^-969: results stay normal
    let mut y = x;
    let mut n = n;
    for _ in 0..2 {
        let big = e.icmp(IP::SGT, n, e.ki(emax));
        y = e.sel(big, e.mul(y, e.k((emax as f64).exp2())), y);
        n = e.sel(big, e.isub(n, e.ki(emax)), n);
    }
    n = e.smin(n, e.ki(emax));
    for _ in 0..2 {
        let small = e.icmp(IP::SLT, n, e.ki(emin));
        y = e.sel(small, e.mul(y, e.k((down as f64).exp2())), y);
        n = e.sel(small, e.isub(n, e.ki(down)), n);
    }
    n = e.smax(n, e.ki(emin));
    e.mul(y, e.pow2i(n))
}

pub(crate) fn fdim<'c>(e: &Em<'_, 'c>, x: V<'c>, y: V<'c>) -> V<'c> {
    let r = e.sel(e.gt(x, y), e.sub(x, y), e.k(0.0));
    e.sel(e.or(e.isnan(x), e.isnan(y)), e.add(x, y), r)
}

/// 1/sqrt(x): f32 in double (one final rounding); f64 as 1/sqrt(x) plus one
/// Newton correction r (1 - x r^2)/2 whose residual uses exact products.
pub(crate) fn rsqrt<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    match e.fp {
        Fp::F32 => {
            let d = e.with_fp(Fp::F64);
            e.fptrunc(d.div(d.k(1.0), d.sqrt(e.fpext(x))))
        }
        Fp::F64 => {
            // Scale by 2^-+200 so r^2 and x r^2 stay normal.
            let big = e.gt(x, e.k(2f64.powi(1000)));
            let small = e.lt(x, e.k(2f64.powi(-1000)));
            let xs = e.sel(big, e.mul(x, e.k(2f64.powi(-200))), x);
            let xs = e.sel(small, e.mul(xs, e.k(2f64.powi(200))), xs);
            let post = e.sel(
                big,
                e.k(2f64.powi(-100)),
                e.sel(small, e.k(2f64.powi(100)), e.k(1.0)),
            );
            let r = e.div(e.k(1.0), e.sqrt(xs));
            let (h, hl) = e.two_prod(r, r);
            let (p, pl) = e.two_prod(xs, h);
            let resid = e.sub(e.sub(e.sub(e.k(1.0), p), pl), e.mul(xs, hl));
            let rc = e.mul(e.mla(e.mul(r, e.k(0.5)), resid, r), post);
            // 0, inf, negative and NaN arguments keep the plain quotient.
            let plain = e.div(e.k(1.0), e.sqrt(x));
            let ok = e.and(e.isfinite(plain), e.gt(plain, e.k(0.0)));
            e.sel(ok, rc, plain)
        }
    }
}

/// ilogb for finite x > 0, subnormals included (integer lanes of the format).
fn ilogb_pos<'c>(e: &Em<'_, 'c>, x: V<'c>) -> V<'c> {
    let fp = e.fp;
    let p = fp.prec();
    let sub = e.lt(x, e.k(fp.min_normal()));
    let xs = e.sel(sub, e.mul(x, e.k((p as f64).exp2())), x);
    let ex = e.isub(
        e.lshr(e.as_int(xs), e.ki(fp.mant() as i64)),
        e.ki(fp.bias()),
    );
    e.isub(ex, e.sel(sub, e.ki(p), e.ki(0)))
}

/// fmod, exact. Each round subtracts q * D with D = |y| 2^k and
/// q = rint(r/D) < 2^qb; D is split in a short high part and the rest so both
/// products are exact, and rounding q to nearest keeps every partial
/// difference below D in magnitude, hence exact (a multiple of ulp(D) below
/// 2^(e_D+1)). The loop runs while any lane still has r >= |y|: one round for
/// |x/y| < 2^qb (qb = 9 for f32, 23 for f64), at most ~31 (f32) / ~92 (f64).
pub(crate) fn fmod<'c>(e: &Em<'_, 'c>, x: V<'c>, y: V<'c>) -> Result<V<'c>, String> {
    let fp = e.fp;
    let ax = e.fabs(x);
    let ay = e.fabs(y);
    let invalid = e.or(
        e.or(e.isnan(x), e.isnan(y)),
        e.or(e.isinf(x), e.eq(ay, e.k(0.0))),
    );
    let r0 = e.sel(invalid, e.k(0.0), ax);
    let d = e.sel(invalid, e.k(1.0), ay);
    let p = fp.prec();
    let sub = e.lt(d, e.k(fp.min_normal()));
    let dn = e.sel(sub, e.mul(d, e.k((p as f64).exp2())), d);
    let dadj = e.sel(sub, e.ki(p), e.ki(0));
    let ed = ilogb_pos(e, d);
    let qb = fp.pick(9i64, 23);

    let entry = e.b.get_insert_block().ok_or("math: builder has no block")?;
    let func = entry.get_parent().ok_or("math: block has no function")?;
    let head = e.ctx.append_basic_block(func, "fmod.head");
    let body = e.ctx.append_basic_block(func, "fmod.body");
    let exit = e.ctx.append_basic_block(func, "fmod.exit");
    let err = |x: inkwell::builder::BuilderError| format!("math: LLVM builder error: {x}");
    e.b.build_unconditional_branch(head).map_err(err)?;

    e.b.position_at_end(head);
    let phi = e.b.build_phi(e.fty(), "r").map_err(err)?;
    let r = phi.as_basic_value();
    let active = e.ge(r, d);
    let any = match e.lanes {
        Some(_) => e.intr("llvm.vector.reduce.or", &[active]),
        None => active,
    };
    e.b.build_conditional_branch(any.into_int_value(), body, exit)
        .map_err(err)?;

    e.b.position_at_end(body);
    let er = ilogb_pos(e, r);
    let k = e.smax(e.isub(e.iadd(e.isub(er, ed), e.ki(1)), e.ki(qb)), e.ki(0));
    let dd = e.ldexp2(dn, e.isub(k, dadj));
    let (dh, dl) = e.split(dd);
    let q = e.rint(e.div(r, dd));
    let q = e.sel(active, q, e.k(0.0));
    // In the top binade q*D may round past the largest float: work on
    // halves there (exact, all values being large).
    let top = e.ge(r, e.k((fp.emax() as f64).exp2()));
    let s = e.sel(top, e.k(0.5), e.k(1.0));
    let a = e.sub(e.mul(r, s), e.mul(q, e.mul(dh, s)));
    let b = e.sub(a, e.mul(q, e.mul(dl, s)));
    let b = e.sel(e.lt(b, e.k(0.0)), e.add(b, e.mul(dd, s)), b);
    let rn = e.sel(active, e.div(b, s), r);
    let body_end = e.b.get_insert_block().ok_or("math: builder has no block")?;
    e.b.build_unconditional_branch(head).map_err(err)?;
    phi.add_incoming(&[(&r0, entry), (&rn, body_end)]);

    e.b.position_at_end(exit);
    let res = e.copysign(r, x);
    Ok(e.sel(invalid, e.nan(), res))
}
