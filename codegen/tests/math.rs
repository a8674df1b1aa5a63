//! Accuracy tests of the vector math library (`lanes_codegen::math`).
//!
//! Each function is JIT-compiled inside wrappers `void w<W>(const T *a,
//! const T *b, const T *c, T *out, i64 n)` for widths 1 (scalar), 4, 8, 16
//! (f32) and 1, 2, 4, 8 (f64), in two modes: generic x86-64 (polynomials
//! unfused) and the host CPU (fused where it has FMA; forced `llvm.fma` when
//! it has none). Results are compared with the host libm: f32 against the
//! double-precision result (the true error), f64 against glibc (whose own
//! error, ~0.5 ulp, is included in the measurement). Every test prints
//! `MATH-ULP <fn> <type> <max ulp> (bound <b>)`; run with `--nocapture`.

use std::sync::Once;

use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;
use inkwell::execution_engine::JitFunction;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{InitializationConfig, Target, TargetMachine};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum};
use inkwell::{AddressSpace, IntPredicate, OptimizationLevel};
use lanes_codegen::math::call_math_with;
use lanes_vectorizer::ir::MathFn;

type Kernel = unsafe extern "C" fn(*const u8, *const u8, *const u8, *mut u8, u64);

extern "C" {
    fn exp(x: f64) -> f64;
    fn exp2(x: f64) -> f64;
    fn expm1(x: f64) -> f64;
    fn log(x: f64) -> f64;
    fn log2(x: f64) -> f64;
    fn log10(x: f64) -> f64;
    fn log1p(x: f64) -> f64;
    fn sin(x: f64) -> f64;
    fn cos(x: f64) -> f64;
    fn tan(x: f64) -> f64;
    fn asin(x: f64) -> f64;
    fn acos(x: f64) -> f64;
    fn atan(x: f64) -> f64;
    fn atan2(y: f64, x: f64) -> f64;
    fn sinh(x: f64) -> f64;
    fn cosh(x: f64) -> f64;
    fn tanh(x: f64) -> f64;
    fn asinh(x: f64) -> f64;
    fn acosh(x: f64) -> f64;
    fn atanh(x: f64) -> f64;
    fn cbrt(x: f64) -> f64;
    fn hypot(x: f64, y: f64) -> f64;
    fn pow(x: f64, y: f64) -> f64;
    fn fmod(x: f64, y: f64) -> f64;
    fn fmodf(x: f32, y: f32) -> f32;
    fn ldexp(x: f64, n: i32) -> f64;
    fn ldexpf(x: f32, n: i32) -> f32;
    fn fma(x: f64, y: f64, z: f64) -> f64;
    fn fmaf(x: f32, y: f32, z: f32) -> f32;
    fn rint(x: f64) -> f64;
    fn round(x: f64) -> f64;
    fn fdim(x: f64, y: f64) -> f64;
    fn fdimf(x: f32, y: f32) -> f32;
}

// ------------------------------------------------------------------ JIT

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// Generic x86-64: `llvm.fmuladd` stays unfused.
    Generic,
    /// Host CPU attributes: fused when the host has FMA.
    Host,
    /// `llvm.fma` forced (used when the host has no FMA).
    Fma,
}

fn init() {
    static I: Once = Once::new();
    I.call_once(|| {
        Target::initialize_native(&InitializationConfig::default()).expect("native target");
    });
}

fn host_has_fma() -> bool {
    TargetMachine::get_host_cpu_features()
        .to_string()
        .split(',')
        .any(|f| f == "+fma")
}

fn modes() -> Vec<Mode> {
    if host_has_fma() {
        vec![Mode::Generic, Mode::Host]
    } else {
        vec![Mode::Generic, Mode::Host, Mode::Fma]
    }
}

fn int_second(f: MathFn) -> bool {
    matches!(f, MathFn::Pown | MathFn::Rootn | MathFn::Ldexp)
}

fn build_wrapper<'c>(
    ctx: &'c Context,
    m: &Module<'c>,
    func: MathFn,
    is64: bool,
    w: u32,
    mode: Mode,
) -> Result<(), String> {
    let b = ctx.create_builder();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let i64t = ctx.i64_type();
    let fnty = ctx.void_type().fn_type(
        &[ptr.into(), ptr.into(), ptr.into(), ptr.into(), i64t.into()],
        false,
    );
    let f = m.add_function(&format!("w{w}"), fnty, None);
    if mode == Mode::Host {
        let cpu = TargetMachine::get_host_cpu_name().to_string();
        let feats = TargetMachine::get_host_cpu_features().to_string();
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("target-cpu", &cpu),
        );
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("target-features", &feats),
        );
    }
    let entry = ctx.append_basic_block(f, "entry");
    let lp = ctx.append_basic_block(f, "loop");
    let exit = ctx.append_basic_block(f, "exit");
    let e = |x: inkwell::builder::BuilderError| x.to_string();
    b.position_at_end(entry);
    b.build_unconditional_branch(lp).map_err(e)?;
    b.position_at_end(lp);
    let i = b.build_phi(i64t, "i").map_err(e)?;
    let iv = i.as_basic_value().into_int_value();
    let ft: BasicTypeEnum = if is64 {
        ctx.f64_type().into()
    } else {
        ctx.f32_type().into()
    };
    let shaped = |t: BasicTypeEnum<'c>| -> BasicTypeEnum<'c> {
        if w == 1 {
            t
        } else {
            match t {
                BasicTypeEnum::FloatType(x) => x.vec_type(w).into(),
                BasicTypeEnum::IntType(x) => x.vec_type(w).into(),
                o => o,
            }
        }
    };
    let mut args: Vec<BasicValueEnum> = Vec::new();
    for j in 0..func.arity() {
        let et: BasicTypeEnum = if int_second(func) && j == 1 {
            ctx.i32_type().into()
        } else {
            ft
        };
        let p = f.get_nth_param(j as u32).unwrap().into_pointer_value();
        let gp = unsafe { b.build_gep(et, p, &[iv], "") }.map_err(e)?;
        let v = b.build_load(shaped(et), gp, "").map_err(e)?;
        v.as_instruction_value()
            .unwrap()
            .set_alignment(4)
            .map_err(|x| x.to_string())?;
        args.push(v);
    }
    let r = call_math_with(ctx, m, &b, func, &args, mode == Mode::Fma)?;
    let op = f.get_nth_param(3).unwrap().into_pointer_value();
    let gp = unsafe { b.build_gep(ft, op, &[iv], "") }.map_err(e)?;
    let st = b.build_store(gp, r).map_err(e)?;
    st.set_alignment(4).map_err(|x| x.to_string())?;
    let next = b
        .build_int_add(iv, i64t.const_int(w as u64, false), "")
        .map_err(e)?;
    let n = f.get_nth_param(4).unwrap().into_int_value();
    let c = b
        .build_int_compare(IntPredicate::ULT, next, n, "")
        .map_err(e)?;
    i.add_incoming(&[(&i64t.const_zero(), entry), (&next, lp)]);
    b.build_conditional_branch(c, lp, exit).map_err(e)?;
    b.position_at_end(exit);
    b.build_return(None).map_err(e)?;
    Ok(())
}

/// Runs `func` on the inputs (columns; the int operand of pown/rootn/ldexp
/// holds integers) for every width and returns the results per width.
fn run(func: MathFn, is64: bool, widths: &[u32], mode: Mode, cols: &[Vec<f64>]) -> Vec<Vec<f64>> {
    init();
    let ctx = Context::create();
    let m = ctx.create_module("mathtest");
    for &w in widths {
        build_wrapper(&ctx, &m, func, is64, w, mode)
            .unwrap_or_else(|e| panic!("{} build: {e}", func.name()));
    }
    if let Err(e) = m.verify() {
        panic!(
            "{}: invalid module: {}\n{}",
            func.name(),
            e,
            m.print_to_string()
        );
    }
    let triple = TargetMachine::get_default_triple();
    let t = Target::from_triple(&triple).unwrap();
    let tm = t
        .create_target_machine(
            &triple,
            "x86-64",
            "",
            OptimizationLevel::Default,
            inkwell::targets::RelocMode::Default,
            inkwell::targets::CodeModel::JITDefault,
        )
        .unwrap();
    m.run_passes("default<O2>", &tm, PassBuilderOptions::create())
        .unwrap();
    let ee = m
        .create_jit_execution_engine(OptimizationLevel::Default)
        .unwrap();
    let n = cols[0].len();
    let padded = n.div_ceil(16) * 16;
    let mut bufs: Vec<Vec<u8>> = Vec::new();
    for (j, c) in cols.iter().enumerate() {
        let mut v = Vec::new();
        for k in 0..padded {
            let x = c[if k < n { k } else { 0 }];
            if int_second(func) && j == 1 {
                v.extend_from_slice(&(x as i32).to_ne_bytes());
            } else if is64 {
                v.extend_from_slice(&x.to_ne_bytes());
            } else {
                v.extend_from_slice(&(x as f32).to_ne_bytes());
            }
        }
        bufs.push(v);
    }
    while bufs.len() < 3 {
        bufs.push(vec![0u8; padded * 8]);
    }
    let mut outs = Vec::new();
    for &w in widths {
        let mut out = vec![0u8; padded * 8];
        unsafe {
            let f: JitFunction<Kernel> = ee.get_function(&format!("w{w}")).unwrap();
            f.call(
                bufs[0].as_ptr(),
                bufs[1].as_ptr(),
                bufs[2].as_ptr(),
                out.as_mut_ptr(),
                padded as u64,
            );
        }
        let res: Vec<f64> = (0..n)
            .map(|k| {
                if is64 {
                    f64::from_ne_bytes(out[k * 8..k * 8 + 8].try_into().unwrap())
                } else {
                    f32::from_ne_bytes(out[k * 4..k * 4 + 4].try_into().unwrap()) as f64
                }
            })
            .collect();
        outs.push(res);
    }
    outs
}

// ------------------------------------------------------------------ references

fn cbrt_ref(x: f64) -> (f64, f64) {
    // glibc's cbrt is off by up to a few ulp: refine with one Newton step
    // evaluated with exact products (fma).
    let r = unsafe { cbrt(x) };
    if !r.is_finite() || r == 0.0 {
        return (r, 0.0);
    }
    let r2 = r * r;
    let e2 = r.mul_add(r, -r2);
    let p = r2 * r;
    let pe = r2.mul_add(r, -p);
    let resid = (p - x) + pe + e2 * r;
    (r, -resid / (3.0 * r2))
}

fn rsqrt_ref(x: f64) -> (f64, f64) {
    // 1/sqrt(x) rounded twice; add one Newton correction with exact products.
    let r = 1.0 / x.sqrt();
    if !r.is_finite() || r == 0.0 || x.is_nan() {
        return (r, 0.0);
    }
    // Scale so that r^2 stays normal.
    let (xs, post) = if x > 1e300 {
        (x * 2f64.powi(-200), 2f64.powi(-100))
    } else if x < 1e-300 {
        (x * 2f64.powi(200), 2f64.powi(100))
    } else {
        (x, 1.0)
    };
    let rs = 1.0 / xs.sqrt();
    let h = rs * rs;
    let hl = rs.mul_add(rs, -h);
    let resid = (-xs).mul_add(h, 1.0) - xs * hl;
    (r, rs * resid * 0.5 * post)
}

fn sincospi_ref(x: f64, cosine: bool) -> (f64, f64) {
    if !x.is_finite() {
        return (f64::NAN, 0.0);
    }
    let xr = x - 2.0 * (x * 0.5).trunc();
    let n = (xr * 2.0).round_ties_even();
    let r = xr - n * 0.5;
    let q = (n as i64).rem_euclid(4);
    const PI_HI: f64 = std::f64::consts::PI;
    const PI_LO: f64 = 1.2246467991473532e-16;
    let ph = PI_HI * r;
    let pl = PI_HI.mul_add(r, -ph) + PI_LO * r;
    let (s, c) = unsafe { (sin(ph), cos(ph)) };
    let (s, sl) = (s, pl * c);
    let (c, cl) = (c, -pl * s);
    let (v, vl) = match (cosine, q) {
        (false, 0) => (s, sl),
        (false, 1) => (c, cl),
        (false, 2) => (-s, -sl),
        (false, _) => (-c, -cl),
        (true, 0) => (c, cl),
        (true, 1) => (-s, -sl),
        (true, 2) => (-c, -cl),
        (true, _) => (s, sl),
    };
    if v == 0.0 {
        return if cosine {
            (0.0, 0.0)
        } else {
            (0f64.copysign(x), 0.0)
        };
    }
    (v, vl)
}

fn powr_ref(x: f64, y: f64) -> f64 {
    if x < 0.0 || x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if (y == 0.0 && (x == 0.0 || x == f64::INFINITY)) || (x == 1.0 && y.is_infinite()) {
        return f64::NAN;
    }
    unsafe { pow(x.abs(), y) }
}

fn rootn_ref(x: f64, n: i32) -> (f64, f64) {
    if n == 0 || x.is_nan() || (x < 0.0 && n % 2 == 0) {
        return (f64::NAN, 0.0);
    }
    let odd = n % 2 != 0;
    let (r, l) = if n == 3 {
        cbrt_ref(x.abs())
    } else {
        (unsafe { pow(x.abs(), 1.0 / n as f64) }, 0.0)
    };
    if odd && x.is_sign_negative() {
        (-r, -l)
    } else {
        (r, l)
    }
}

/// The reference value (as an unevaluated sum hi + lo).
fn reference(func: MathFn, a: &[f64]) -> (f64, f64) {
    use MathFn::*;
    let x = a[0];
    let y = a.get(1).copied().unwrap_or(0.0);
    let one = |v: f64| (v, 0.0);
    unsafe {
        match func {
            Sqrt => one(x.sqrt()),
            Rsqrt => rsqrt_ref(x),
            Fabs => one(x.abs()),
            Floor => one(x.floor()),
            Ceil => one(x.ceil()),
            Round => one(round(x)),
            Trunc => one(x.trunc()),
            Rint => one(rint(x)),
            Exp => one(exp(x)),
            Exp2 => one(exp2(x)),
            Exp10 => one(pow(10.0, x)),
            Expm1 => one(expm1(x)),
            Log => one(log(x)),
            Log2 => one(log2(x)),
            Log10 => one(log10(x)),
            Log1p => one(log1p(x)),
            Sin => one(sin(x)),
            Cos => one(cos(x)),
            Tan => one(tan(x)),
            Asin => one(asin(x)),
            Acos => one(acos(x)),
            Atan => one(atan(x)),
            Sinh => one(sinh(x)),
            Cosh => one(cosh(x)),
            Tanh => one(tanh(x)),
            Asinh => one(asinh(x)),
            Acosh => one(acosh(x)),
            Atanh => one(atanh(x)),
            Sinpi => sincospi_ref(x, false),
            Cospi => sincospi_ref(x, true),
            Cbrt => cbrt_ref(x),
            Pow => one(pow(x, y)),
            Powr => one(powr_ref(x, y)),
            Atan2 => one(atan2(x, y)),
            Hypot => one(hypot(x, y)),
            Copysign => one(x.copysign(y)),
            Fmod => one(fmod(x, y)),
            Fdim => one(fdim(x, y)),
            Fmin => one(x.min(y)),
            Fmax => one(x.max(y)),
            Pown => one(pow(x, y)),
            Rootn => rootn_ref(x, y as i32),
            Ldexp => one(ldexp(x, y as i32)),
            Fma => one(fma(x, y, a[2])),
            _ => panic!("no reference for {}", func.name()),
        }
    }
}

/// Functions whose f32 result must be exactly the reference (correctly
/// rounded), computed directly in single precision.
fn exact_f32(func: MathFn, a: &[f64]) -> Option<f32> {
    use MathFn::*;
    let x = a[0] as f32;
    let y = a.get(1).copied().unwrap_or(0.0) as f32;
    unsafe {
        Some(match func {
            Fmod => fmodf(x, y),
            Fdim => fdimf(x, y),
            Ldexp => ldexpf(x, a[1] as i32),
            Fma => fmaf(x, y, a[2] as f32),
            Sqrt => x.sqrt(),
            Fabs => x.abs(),
            Floor => x.floor(),
            Ceil => x.ceil(),
            Trunc => x.trunc(),
            Round => x.round(),
            Rint => x.round_ties_even(),
            Copysign => x.copysign(y),
            Fmin => x.min(y),
            Fmax => x.max(y),
            _ => return None,
        })
    }
}

fn ulp_of(v: f64, is64: bool) -> f64 {
    let (p, emin) = if is64 { (53, -1022) } else { (24, -126) };
    let a = v.abs();
    let e = if a == 0.0 || !a.is_finite() {
        emin
    } else {
        (a.log2().floor() as i32).max(emin)
    };
    // log2 may round up just below a power of two.
    let e = if a != 0.0 && a.is_finite() && 2f64.powi(e) > a {
        e - 1
    } else {
        e
    };
    unsafe { ldexp(1.0, e.max(emin) - (p - 1)) }
}

/// Error of `got` in ulps of the reference `hi + lo`; infinite for a wrong
/// NaN/inf/sign-of-zero.
fn ulp_error(got: f64, hi: f64, lo: f64, is64: bool) -> f64 {
    let max = if is64 { f64::MAX } else { f32::MAX as f64 };
    if hi.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if got.is_nan() {
        return f64::INFINITY;
    }
    if got.is_infinite() || hi.is_infinite() || hi.abs() > max {
        if got == hi {
            return 0.0;
        }
        // Rounding past the largest finite value gives inf.
        if got.is_infinite() && got.signum() == hi.signum() && hi.abs() >= max {
            return 0.0;
        }
        if hi.is_infinite() && got.signum() == hi.signum() && got.abs() == max {
            return 1.0;
        }
        return f64::INFINITY;
    }
    if got == 0.0 && hi == 0.0 && lo == 0.0 && got.is_sign_negative() != hi.is_sign_negative() {
        return f64::INFINITY;
    }
    ((got - hi) - lo).abs() / ulp_of(hi, is64)
}

// ------------------------------------------------------------------ inputs

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// Magnitude log-uniform in [lo, hi], sign random when `signed`.
    fn logr(&mut self, lo: f64, hi: f64, signed: bool) -> f64 {
        let v = (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp();
        if signed && self.next() & 1 == 1 {
            -v
        } else {
            v
        }
    }
    fn bits(&mut self, is64: bool) -> f64 {
        if is64 {
            f64::from_bits(self.next())
        } else {
            f32::from_bits(self.next() as u32) as f64
        }
    }
    fn int(&mut self, lo: i64, hi: i64) -> f64 {
        (lo + (self.next() % ((hi - lo + 1) as u64)) as i64) as f64
    }
}

fn specials(is64: bool) -> Vec<f64> {
    let (min_sub, min_norm, max) = if is64 {
        (f64::from_bits(1), f64::MIN_POSITIVE, f64::MAX)
    } else {
        (
            f32::from_bits(1) as f64,
            f32::MIN_POSITIVE as f64,
            f32::MAX as f64,
        )
    };
    let mut v = vec![
        0.0,
        f64::INFINITY,
        f64::NAN,
        1.0,
        0.5,
        2.0,
        3.0,
        0.25,
        1.5,
        10.0,
        100.0,
        1e-10,
        min_sub,
        min_norm,
        max,
        std::f64::consts::PI,
        std::f64::consts::FRAC_PI_2,
        1e10,
    ];
    let neg: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// Counts of the sweep: ~200k points per function and type.
const N: usize = 200_000;

fn gen(func: MathFn, is64: bool) -> Vec<Vec<f64>> {
    use MathFn::*;
    let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ (func as u64 * 0x1234_5678 + is64 as u64));
    let (maxv, minv) = if is64 {
        (f64::MAX, 5e-324)
    } else {
        (f32::MAX as f64, 1.4e-45)
    };
    let big = |f: f64, d: f64| if is64 { d } else { f };
    let mut cols: Vec<Vec<f64>> = vec![Vec::new(); func.arity()];
    let sp = specials(is64);
    // Special values, all combinations.
    match func.arity() {
        1 => cols[0].extend(sp.iter().copied()),
        2 => {
            let second: Vec<f64> = if func == Rootn && is64 {
                // 1/n exact (or n = 3, refined), so the reference is accurate.
                vec![
                    0.0,
                    1.0,
                    -1.0,
                    2.0,
                    -2.0,
                    3.0,
                    4.0,
                    -4.0,
                    8.0,
                    2147483647.0,
                    -2147483648.0,
                ]
            } else if int_second(func) {
                vec![
                    0.0,
                    1.0,
                    -1.0,
                    2.0,
                    -2.0,
                    3.0,
                    -3.0,
                    4.0,
                    -5.0,
                    100.0,
                    -100.0,
                    1000.0,
                    -1000.0,
                    2147483647.0,
                    -2147483648.0,
                ]
            } else {
                sp.clone()
            };
            for &a in &sp {
                for &b in &second {
                    cols[0].push(a);
                    cols[1].push(b);
                }
            }
        }
        _ => {
            for &a in &sp {
                for &b in &sp {
                    for &c in sp.iter().step_by(3) {
                        cols[0].push(a);
                        cols[1].push(b);
                        cols[2].push(c);
                    }
                }
            }
        }
    }
    let push1 = |cols: &mut Vec<Vec<f64>>, x: f64| cols[0].push(x);
    let n = N;
    let trig_max = 1.6e6;
    match func {
        Sqrt | Rsqrt | Log | Log2 | Log10 => {
            for _ in 0..n / 2 {
                push1(&mut cols, r.logr(minv, maxv, false));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.range(0.5, 2.0));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.bits(is64));
            }
        }
        Cbrt | Atan | Asinh | Fabs | Floor | Ceil | Trunc | Rint | Round => {
            for _ in 0..n / 2 {
                push1(&mut cols, r.logr(minv, maxv, true));
            }
            for _ in 0..n / 4 {
                let v = r.range(-8.0, 8.0);
                push1(
                    &mut cols,
                    if r.next() & 3 == 0 {
                        (v * 2.0).round() / 2.0
                    } else {
                        v
                    },
                );
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.bits(is64));
            }
        }
        Exp | Exp2 | Exp10 | Expm1 | Sinh | Cosh | Tanh => {
            let lim = match func {
                Exp | Expm1 | Sinh | Cosh => big(105.0, 750.0),
                Exp2 => big(155.0, 1080.0),
                Exp10 => big(47.0, 330.0),
                _ => big(12.0, 25.0),
            };
            for _ in 0..n / 2 {
                push1(&mut cols, r.range(-lim, lim));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.logr(1e-30, 2.0, true));
            }
            for _ in 0..n / 8 {
                push1(&mut cols, r.range(-2.0, 2.0));
            }
            for _ in 0..n / 8 {
                push1(&mut cols, r.bits(is64));
            }
        }
        Log1p => {
            for _ in 0..n / 4 {
                push1(&mut cols, -r.logr(1e-30, 1.0, false));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.logr(minv, maxv, false));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.range(-1.0, 2.0));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.bits(is64));
            }
        }
        Sin | Cos | Tan => {
            for _ in 0..n / 4 {
                push1(&mut cols, r.range(-10.0, 10.0));
            }
            for _ in 0..n / 8 {
                push1(&mut cols, r.logr(1e-30, trig_max, true));
            }
            for _ in 0..n / 8 {
                push1(&mut cols, r.logr(trig_max, maxv, true));
            }
            // Near multiples of pi/2, where the reduction cancels most.
            for _ in 0..n / 4 {
                let k = r.int(-1_000_000, 1_000_000);
                let v = k * std::f64::consts::FRAC_PI_2;
                let v = if is64 { v } else { v as f32 as f64 };
                let d = r.int(-3, 3);
                let v = if is64 {
                    f64::from_bits((v.to_bits() as i64 + d as i64) as u64)
                } else {
                    f32::from_bits(((v as f32).to_bits() as i64 + d as i64) as u32) as f64
                };
                push1(&mut cols, if v.abs() < trig_max { v } else { 1.0 });
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.bits(is64));
            }
        }
        Sinpi | Cospi => {
            for _ in 0..n / 4 {
                push1(&mut cols, r.range(-4.0, 4.0));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.logr(minv, maxv, true));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.int(-1000, 1000) * 0.5);
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.bits(is64));
            }
        }
        Asin | Acos | Atanh => {
            for _ in 0..n / 2 {
                push1(&mut cols, r.range(-1.0, 1.0));
            }
            for _ in 0..n / 4 {
                push1(&mut cols, r.logr(1e-30, 1.0, true));
            }
            for _ in 0..n / 4 {
                let v = 1.0 - r.logr(1e-16, 1.0, false);
                push1(&mut cols, if r.next() & 1 == 1 { -v } else { v });
            }
        }
        Acosh => {
            for _ in 0..n / 2 {
                push1(&mut cols, 1.0 + r.logr(1e-20, 10.0, false));
            }
            for _ in 0..n / 2 {
                push1(&mut cols, r.logr(1.0, maxv, false));
            }
        }
        Pow | Powr | Atan2 | Hypot | Fmod | Fdim | Copysign | Fmin | Fmax => {
            for _ in 0..n / 4 {
                let (a, b) = match func {
                    Pow | Powr => {
                        let x = r.logr(1e-3, 1e3, func == Pow);
                        let y = r.range(-20.0, 20.0);
                        (x, if x < 0.0 { y.round() } else { y })
                    }
                    Fmod => (r.logr(1e-3, 1e6, true), r.logr(1e-3, 1e3, true)),
                    _ => (r.range(-10.0, 10.0), r.range(-10.0, 10.0)),
                };
                cols[0].push(a);
                cols[1].push(b);
            }
            for _ in 0..n / 4 {
                let (a, b) = match func {
                    Pow | Powr => {
                        let x = 1.0 + r.range(-1e-3, 1e-3);
                        (x, r.range(-big(3e4, 3e5), big(3e4, 3e5)))
                    }
                    _ => (r.logr(minv, maxv, true), r.logr(minv, maxv, true)),
                };
                cols[0].push(a);
                cols[1].push(b);
            }
            for _ in 0..n / 4 {
                let (a, b) = match func {
                    Pow | Powr => (r.logr(minv, maxv, false), r.range(-2.0, 2.0)),
                    _ => (r.logr(1e-20, 1e20, true), r.logr(1e-20, 1e20, true)),
                };
                cols[0].push(a);
                cols[1].push(b);
            }
            for _ in 0..n / 4 {
                cols[0].push(r.bits(is64));
                cols[1].push(r.bits(is64));
            }
        }
        Pown => {
            for _ in 0..n / 2 {
                cols[0].push(r.logr(0.1, 10.0, true));
                cols[1].push(r.int(-60, 60));
            }
            for _ in 0..n / 2 {
                cols[0].push(r.logr(minv, maxv, true));
                cols[1].push(r.int(-4, 4));
            }
        }
        Rootn => {
            for _ in 0..n {
                let x = if r.next() & 1 == 0 {
                    r.logr(minv, maxv, true)
                } else {
                    r.logr(1e-3, 1e3, true)
                };
                let nn = if is64 {
                    [
                        1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 8.0, -8.0, 16.0, -16.0, 32.0, -32.0, 3.0,
                    ][(r.next() % 13) as usize]
                } else {
                    let v = r.int(-20, 20);
                    if v == 0.0 {
                        7.0
                    } else {
                        v
                    }
                };
                cols[0].push(x);
                cols[1].push(nn);
            }
        }
        Ldexp => {
            let lim: i64 = if is64 { 2200 } else { 330 };
            for _ in 0..n / 2 {
                cols[0].push(r.logr(minv, maxv, true));
                cols[1].push(r.int(-lim, lim));
            }
            for _ in 0..n / 2 {
                cols[0].push(r.bits(is64));
                cols[1].push(r.int(-lim, lim));
            }
        }
        Fma => {
            for _ in 0..n / 2 {
                cols[0].push(r.logr(1e-10, 1e10, true));
                cols[1].push(r.logr(1e-10, 1e10, true));
                cols[2].push(r.logr(1e-10, 1e10, true));
            }
            for _ in 0..n / 2 {
                cols[0].push(r.bits(is64));
                cols[1].push(r.bits(is64));
                cols[2].push(r.bits(is64));
            }
        }
        _ => panic!("no inputs for {}", func.name()),
    }
    if !is64 {
        // Inputs are f32 values (the int column stays as is).
        for (j, c) in cols.iter_mut().enumerate() {
            if int_second(func) && j == 1 {
                continue;
            }
            for v in c.iter_mut() {
                *v = *v as f32 as f64;
            }
        }
    }
    cols
}

// ------------------------------------------------------------------ checks

/// Max error (ulp) of `func` for one type over all widths and modes; panics
/// with examples when a result exceeds `bound` (`None`: must be exact).
fn check(func: MathFn, is64: bool, bound: Option<f64>) -> f64 {
    let cols = gen(func, is64);
    let widths: &[u32] = if is64 { &[1, 2, 4, 8] } else { &[1, 4, 8, 16] };
    let n = cols[0].len();
    let refs: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let a: Vec<f64> = cols.iter().map(|c| c[k]).collect();
            reference(func, &a)
        })
        .collect();
    let mut worst = 0.0f64;
    let mut worst_at: Vec<f64> = Vec::new();
    let mut fails = Vec::new();
    for mode in modes() {
        let outs = run(func, is64, widths, mode, &cols);
        for (wi, out) in outs.iter().enumerate() {
            for k in 0..n {
                let a: Vec<f64> = cols.iter().map(|c| c[k]).collect();
                let got = out[k];
                let err = match (bound, is64) {
                    (None, false) => {
                        let want = exact_f32(func, &a).unwrap() as f64;
                        let minmax = matches!(func, MathFn::Fmin | MathFn::Fmax) && got == want;
                        if minmax
                            || got.to_bits() == want.to_bits()
                            || (got.is_nan() && want.is_nan())
                        {
                            0.0
                        } else {
                            f64::INFINITY
                        }
                    }
                    (None, true) => {
                        let want = refs[k].0;
                        let minmax = matches!(func, MathFn::Fmin | MathFn::Fmax) && got == want;
                        if minmax
                            || got.to_bits() == want.to_bits()
                            || (got.is_nan() && want.is_nan())
                        {
                            0.0
                        } else {
                            f64::INFINITY
                        }
                    }
                    _ => ulp_error(got, refs[k].0, refs[k].1, is64),
                };
                if err > worst && err.is_finite() {
                    worst = err;
                    worst_at = a.clone();
                    worst_at.push(got);
                }
                if err > bound.unwrap_or(0.0) && fails.len() < 12 {
                    fails.push(format!(
                        "  {mode:?} w{}: {}({}) = {:e}, want {:e}{:+e} ({err:.2} ulp)",
                        widths[wi],
                        func.name(),
                        a.iter()
                            .map(|v| format!("{v:e}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        got,
                        refs[k].0,
                        refs[k].1,
                    ));
                }
            }
        }
    }
    let ty = if is64 { "f64" } else { "f32" };
    println!(
        "MATH-ULP {} {ty} {worst:.3} (bound {}) at (args.., got) {:?}",
        func.name(),
        bound.map(|b| b.to_string()).unwrap_or("exact".into()),
        worst_at
    );
    if !fails.is_empty() {
        panic!(
            "{} {ty}: results beyond the bound:\n{}",
            func.name(),
            fails.join("\n")
        );
    }
    worst
}

fn both(func: MathFn, b32: Option<f64>, b64: Option<f64>) {
    check(func, false, b32);
    check(func, true, b64);
}

macro_rules! t {
    ($name:ident, $f:ident, $b32:expr, $b64:expr) => {
        #[test]
        fn $name() {
            both(MathFn::$f, $b32, $b64);
        }
    };
}

// Bounds: OpenCL C 1.2 full profile, tables 7.1 (float) and 7.2 (double).
t!(math_sqrt, Sqrt, None, None);
t!(math_rsqrt, Rsqrt, Some(2.0), Some(2.0));
t!(math_fabs, Fabs, None, None);
t!(math_floor, Floor, None, None);
t!(math_ceil, Ceil, None, None);
t!(math_trunc, Trunc, None, None);
t!(math_rint, Rint, None, None);
t!(math_round, Round, None, None);
t!(math_copysign, Copysign, None, None);
t!(math_fmin, Fmin, None, None);
t!(math_fmax, Fmax, None, None);
t!(math_fma, Fma, None, None);
t!(math_fmod, Fmod, None, None);
t!(math_fdim, Fdim, None, None);
t!(math_ldexp, Ldexp, None, None);
t!(math_exp, Exp, Some(3.0), Some(3.0));
t!(math_exp2, Exp2, Some(3.0), Some(3.0));
t!(math_exp10, Exp10, Some(3.0), Some(3.0));
t!(math_expm1, Expm1, Some(3.0), Some(3.0));
t!(math_log, Log, Some(3.0), Some(3.0));
t!(math_log2, Log2, Some(3.0), Some(3.0));
t!(math_log10, Log10, Some(3.0), Some(3.0));
t!(math_log1p, Log1p, Some(2.0), Some(2.0));
t!(math_sin, Sin, Some(4.0), Some(4.0));
t!(math_cos, Cos, Some(4.0), Some(4.0));
t!(math_tan, Tan, Some(5.0), Some(5.0));
t!(math_asin, Asin, Some(4.0), Some(4.0));
t!(math_acos, Acos, Some(4.0), Some(4.0));
t!(math_atan, Atan, Some(5.0), Some(5.0));
t!(math_atan2, Atan2, Some(6.0), Some(6.0));
t!(math_sinh, Sinh, Some(4.0), Some(4.0));
t!(math_cosh, Cosh, Some(4.0), Some(4.0));
t!(math_tanh, Tanh, Some(5.0), Some(5.0));
t!(math_asinh, Asinh, Some(4.0), Some(4.0));
t!(math_acosh, Acosh, Some(4.0), Some(4.0));
t!(math_atanh, Atanh, Some(5.0), Some(5.0));
t!(math_sinpi, Sinpi, Some(4.0), Some(4.0));
t!(math_cospi, Cospi, Some(4.0), Some(4.0));
t!(math_cbrt, Cbrt, Some(2.0), Some(2.0));
t!(math_hypot, Hypot, Some(4.0), Some(4.0));
t!(math_pow, Pow, Some(16.0), Some(16.0));
t!(math_powr, Powr, Some(16.0), Some(16.0));
t!(math_pown, Pown, Some(16.0), Some(16.0));
t!(math_rootn, Rootn, Some(16.0), Some(16.0));

// ------------------------------------------------------------------ integers

fn build_int_wrapper<'c>(
    ctx: &'c Context,
    m: &Module<'c>,
    func: MathFn,
    bits: u32,
    w: u32,
) -> Result<(), String> {
    let b = ctx.create_builder();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let i64t = ctx.i64_type();
    let fnty = ctx.void_type().fn_type(
        &[ptr.into(), ptr.into(), ptr.into(), ptr.into(), i64t.into()],
        false,
    );
    let f = m.add_function(&format!("w{w}"), fnty, None);
    let entry = ctx.append_basic_block(f, "entry");
    let lp = ctx.append_basic_block(f, "loop");
    let exit = ctx.append_basic_block(f, "exit");
    let e = |x: inkwell::builder::BuilderError| x.to_string();
    b.position_at_end(entry);
    b.build_unconditional_branch(lp).map_err(e)?;
    b.position_at_end(lp);
    let i = b.build_phi(i64t, "i").map_err(e)?;
    let iv = i.as_basic_value().into_int_value();
    let it = ctx
        .custom_width_int_type(std::num::NonZeroU32::new(bits).unwrap())
        .unwrap();
    let vt: BasicTypeEnum = if w == 1 {
        it.into()
    } else {
        it.vec_type(w).into()
    };
    let mut args = Vec::new();
    for j in 0..func.arity() {
        let p = f.get_nth_param(j as u32).unwrap().into_pointer_value();
        let gp = unsafe { b.build_gep(it, p, &[iv], "") }.map_err(e)?;
        let v = b.build_load(vt, gp, "").map_err(e)?;
        v.as_instruction_value()
            .unwrap()
            .set_alignment(1)
            .map_err(|x| x.to_string())?;
        args.push(v);
    }
    let r = lanes_codegen::math::call_math(ctx, m, &b, func, &args)?;
    let op = f.get_nth_param(3).unwrap().into_pointer_value();
    let gp = unsafe { b.build_gep(it, op, &[iv], "") }.map_err(e)?;
    b.build_store(gp, r)
        .map_err(e)?
        .set_alignment(1)
        .map_err(|x| x.to_string())?;
    let next = b
        .build_int_add(iv, i64t.const_int(w as u64, false), "")
        .map_err(e)?;
    let n = f.get_nth_param(4).unwrap().into_int_value();
    let c = b
        .build_int_compare(IntPredicate::ULT, next, n, "")
        .map_err(e)?;
    i.add_incoming(&[(&i64t.const_zero(), entry), (&next, lp)]);
    b.build_conditional_branch(c, lp, exit).map_err(e)?;
    b.position_at_end(exit);
    b.build_return(None).map_err(e)?;
    Ok(())
}

fn int_ref(func: MathFn, bits: u32, a: i128, b: i128) -> i128 {
    use MathFn::*;
    let mask: i128 = (1i128 << bits) - 1;
    let s = |v: i128| {
        let v = v & mask;
        if v >> (bits - 1) & 1 == 1 {
            v - (1i128 << bits)
        } else {
            v
        }
    };
    let u = |v: i128| v & mask;
    let (smin, smax) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
    let r = match func {
        SMin => s(a).min(s(b)),
        SMax => s(a).max(s(b)),
        UMin => u(a).min(u(b)),
        UMax => u(a).max(u(b)),
        IAbs => s(a).abs(),
        SMulHi => (s(a) * s(b)) >> bits,
        UMulHi => ((u(a) as u128 * u(b) as u128) >> bits) as i128,
        SAddSat => (s(a) + s(b)).clamp(smin, smax),
        UAddSat => (u(a) + u(b)).min(mask),
        SSubSat => (s(a) - s(b)).clamp(smin, smax),
        USubSat => (u(a) - u(b)).max(0),
        Popcount => u(a).count_ones() as i128,
        Clz => (0..bits).rev().take_while(|&k| u(a) >> k & 1 == 0).count() as i128,
        Ctz => (0..bits).take_while(|&k| u(a) >> k & 1 == 0).count() as i128,
        Rotate => {
            let n = (u(b) % bits as i128) as u32;
            if n == 0 {
                u(a)
            } else {
                (u(a) << n | u(a) >> (bits - n)) & mask
            }
        }
        _ => unreachable!(),
    };
    r & mask
}

#[test]
fn math_integer() {
    use MathFn::*;
    init();
    let funcs = [
        SMin, SMax, UMin, UMax, IAbs, SMulHi, UMulHi, SAddSat, UAddSat, SSubSat, USubSat, Popcount,
        Clz, Ctz, Rotate,
    ];
    for bits in [8u32, 16, 32, 64] {
        let bytes = (bits / 8) as usize;
        let mut r = Rng(0x51ed_270b_2d4a_1f3c ^ bits as u64);
        let edge: Vec<u64> = vec![
            0,
            1,
            2,
            u64::MAX,
            u64::MAX - 1,
            1 << (bits - 1),
            (1 << (bits - 1)) - 1,
            3,
            7,
            0x55,
        ];
        let mut xa = Vec::new();
        let mut xb = Vec::new();
        for &p in &edge {
            for &q in &edge {
                xa.push(p);
                xb.push(q);
            }
        }
        for _ in 0..20_000 {
            let (p, q) = (r.next(), r.next());
            // Small magnitudes too, so saturation and mul_hi see both sides.
            let sh = (r.next() % bits as u64) as u32;
            xa.push(if r.next() & 1 == 0 {
                p
            } else {
                ((p as i64) >> sh) as u64
            });
            xb.push(q);
        }
        let n = xa.len().div_ceil(16) * 16;
        let pack = |v: &Vec<u64>| -> Vec<u8> {
            let mut out = Vec::new();
            for k in 0..n {
                out.extend_from_slice(&v[k.min(v.len() - 1)].to_le_bytes()[..bytes]);
            }
            out
        };
        let (ba, bb) = (pack(&xa), pack(&xb));
        for func in funcs {
            let ctx = Context::create();
            let m = ctx.create_module("ints");
            for w in [1u32, 4, 16] {
                build_int_wrapper(&ctx, &m, func, bits, w).unwrap();
            }
            m.verify()
                .unwrap_or_else(|e| panic!("{}: {e}", func.name()));
            let ee = m
                .create_jit_execution_engine(OptimizationLevel::Default)
                .unwrap();
            for w in [1u32, 4, 16] {
                let mut out = vec![0u8; n * bytes];
                unsafe {
                    let f: JitFunction<Kernel> = ee.get_function(&format!("w{w}")).unwrap();
                    f.call(
                        ba.as_ptr(),
                        bb.as_ptr(),
                        bb.as_ptr(),
                        out.as_mut_ptr(),
                        n as u64,
                    );
                }
                for k in 0..xa.len() {
                    let mut le = [0u8; 8];
                    le[..bytes].copy_from_slice(&out[k * bytes..(k + 1) * bytes]);
                    let got = u64::from_le_bytes(le) as i128;
                    let want = int_ref(func, bits, xa[k] as i128, xb[k] as i128);
                    assert_eq!(
                        got,
                        want,
                        "{} i{bits} w{w}: ({:#x}, {:#x})",
                        func.name(),
                        xa[k],
                        xb[k]
                    );
                }
            }
        }
    }
}

// ------------------------------------------------------------------ codegen

/// Every function for `<8 x float>`, `<16 x float>`, `<4 x double>` and
/// scalars compiles on SSE4, AVX2, AVX-512 and NEON without any call (no
/// libm, objects stay self-contained), except `fma` on SSE4.
#[test]
fn math_no_calls() {
    use MathFn::*;
    Target::initialize_x86(&InitializationConfig::default());
    Target::initialize_aarch64(&InitializationConfig::default());
    let all = [
        Sqrt, Rsqrt, Fabs, Floor, Ceil, Round, Trunc, Rint, Exp, Exp2, Exp10, Expm1, Log, Log2,
        Log10, Log1p, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh,
        Sinpi, Cospi, Cbrt, Pow, Powr, Atan2, Hypot, Copysign, Fmod, Fdim, Fmin, Fmax, Pown, Rootn,
        Ldexp, Fma,
    ];
    let targets = [
        ("x86_64-unknown-linux-gnu", "x86-64-v2", ""),
        ("x86_64-unknown-linux-gnu", "x86-64-v3", ""),
        ("x86_64-unknown-linux-gnu", "skylake-avx512", ""),
        ("aarch64-unknown-linux-gnu", "generic", "+neon"),
    ];
    for (triple, cpu, feats) in targets {
        let ctx = Context::create();
        let m = ctx.create_module("calls");
        let tt = inkwell::targets::TargetTriple::create(triple);
        m.set_triple(&tt);
        let b = ctx.create_builder();
        let ptr = ctx.ptr_type(AddressSpace::default());
        for (fi, &func) in all.iter().enumerate() {
            // fma is llvm.fma: a libm call where the CPU has no FMA (SSE4).
            if func == Fma && cpu == "x86-64-v2" {
                continue;
            }
            for (ti, (is64, w)) in [(false, 8u32), (false, 16), (true, 4), (false, 1), (true, 1)]
                .into_iter()
                .enumerate()
            {
                let fnty = ctx.void_type().fn_type(&[ptr.into(), ptr.into()], false);
                let f = m.add_function(&format!("t{fi}_{ti}"), fnty, None);
                f.add_attribute(
                    AttributeLoc::Function,
                    ctx.create_string_attribute("target-cpu", cpu),
                );
                if !feats.is_empty() {
                    f.add_attribute(
                        AttributeLoc::Function,
                        ctx.create_string_attribute("target-features", feats),
                    );
                }
                let bb = ctx.append_basic_block(f, "entry");
                b.position_at_end(bb);
                let ft: BasicTypeEnum = if is64 {
                    ctx.f64_type().into()
                } else {
                    ctx.f32_type().into()
                };
                fn shaped(w: u32, t: BasicTypeEnum<'_>) -> BasicTypeEnum<'_> {
                    match (w, t) {
                        (1, t) => t,
                        (_, BasicTypeEnum::FloatType(x)) => x.vec_type(w).into(),
                        (_, BasicTypeEnum::IntType(x)) => x.vec_type(w).into(),
                        (_, t) => t,
                    }
                }
                let p = f.get_nth_param(0).unwrap().into_pointer_value();
                let mut args = Vec::new();
                for j in 0..func.arity() {
                    let t = if int_second(func) && j == 1 {
                        ctx.i32_type().into()
                    } else {
                        ft
                    };
                    args.push(b.build_load(shaped(w, t), p, "").unwrap());
                }
                let r = call_math_with(&ctx, &m, &b, func, &args, false).unwrap();
                b.build_store(f.get_nth_param(1).unwrap().into_pointer_value(), r)
                    .unwrap();
                b.build_return(None).unwrap();
            }
        }
        m.verify().unwrap();
        let t = Target::from_triple(&tt).unwrap();
        let tm = t
            .create_target_machine(
                &tt,
                cpu,
                feats,
                OptimizationLevel::Default,
                inkwell::targets::RelocMode::PIC,
                inkwell::targets::CodeModel::Default,
            )
            .unwrap();
        m.run_passes("default<O2>", &tm, PassBuilderOptions::create())
            .unwrap();
        let asm = tm
            .write_to_memory_buffer(&m, inkwell::targets::FileType::Assembly)
            .unwrap();
        let asm = String::from_utf8_lossy(asm.as_slice()).into_owned();
        if let Ok(dir) = std::env::var("LANES_MATH_ASM_DIR") {
            let _ = std::fs::write(format!("{dir}/{cpu}.s"), &asm);
        }
        let calls: Vec<&str> = asm
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                t.starts_with("call")
                    || t.starts_with("bl\t")
                    || t.starts_with("b\t") && !t.contains(".LBB")
                    || t.starts_with("jmp\t") && !t.contains(".LBB")
            })
            .collect();
        assert!(
            calls.is_empty(),
            "{cpu}: calls in generated code: {:?}",
            &calls[..calls.len().min(10)]
        );
        println!("MATH-ASM {cpu}: {} lines, no calls", asm.lines().count());
    }
}
