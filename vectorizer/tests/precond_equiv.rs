//! The inferred preconditions are *equivalent* to the reference conditions
//! of the paper and of the PolyBench/Jacobi boundary patterns, proven with
//! Z3 on the text users see (issue 6: "P equivalent to `x0 >= vstep &&
//! x0 + W - 1 < width - vstep`, Z3-checked, for W = 4, 8, 16").
//!
//! The printed `group` form (in lane 0's values `x0`) and the printed
//! per-lane form (quantified over the W lanes `x = x0 + l`) are parsed
//! back (a small parser of the C subset P is printed in: identifiers,
//! integer literals, `(long)`/`(int)` casts, `+ - * / %`, comparisons,
//! `&& || !`, parentheses) into Z3 integer formulas, and each is proven
//! equivalent to the reference under the natural domain: `x0 >= 0`, the
//! W lanes' ids in `int` range, every other name in `int` range, plus the
//! case's own facts (`vstep >= 0`, `width > 0`). Off-by-one references and
//! off-by-one mutations of the inferred P must be refuted by the same
//! check, so it cannot pass vacuously.

use std::collections::BTreeMap;

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;
use lanes_vectorizer::precond::{infer, Finding, Options, Outcome, Precondition, TargetKind};
use lanes_vectorizer::report::analyze_kernel;
use z3::ast::{Bool, Int};
use z3::{SatResult, Solver};

// ---------------------------------------------------------------------
// The C subset P is printed in, as Z3 integer formulas.

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(i64),
    Op(&'static str),
}

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    const OPS: [&str; 18] = [
        "&&", "||", "<=", ">=", "==", "!=", "<", ">", "+", "-", "*", "/", "%", "!", "(", ")", "~",
        ",",
    ];
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && (b[i] as char).is_ascii_digit() {
                i += 1;
            }
            let n = s[st..i].parse().map_err(|e| format!("{e} in {s:?}"))?;
            // Integer suffixes (`1L`, `2u`) change nothing here.
            while i < b.len() && matches!(b[i] as char, 'l' | 'L' | 'u' | 'U') {
                i += 1;
            }
            out.push(Tok::Num(n));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[st..i].to_string()));
        } else {
            let op = OPS
                .iter()
                .find(|op| s[i..].starts_with(**op))
                .ok_or_else(|| format!("unexpected `{c}` in {s:?}"))?;
            if matches!(*op, "~" | ",") {
                return Err(format!("`{op}` is outside the subset: {s:?}"));
            }
            out.push(Tok::Op(op));
            i += op.len();
        }
    }
    Ok(out)
}

#[derive(Clone)]
enum V {
    I(Int),
    B(Bool),
}

impl V {
    fn int(self) -> Int {
        match self {
            V::I(i) => i,
            V::B(b) => b.ite(&Int::from_i64(1), &Int::from_i64(0)),
        }
    }
    fn bool(self) -> Bool {
        match self {
            V::B(b) => b,
            V::I(i) => i.eq(Int::from_i64(0)).not(),
        }
    }
}

/// Recursive descent with C's precedences. Arithmetic is exact (the
/// domain keeps every value in range); `(int)` wraps to 32 bits.
struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    text: &'a str,
    var: &'a dyn Fn(&str) -> Int,
}

fn parse(text: &str, var: &dyn Fn(&str) -> Int) -> Result<Bool, String> {
    let mut p = Parser {
        toks: lex(text)?,
        at: 0,
        text,
        var,
    };
    let v = p.or()?;
    if p.at != p.toks.len() {
        return Err(format!("trailing {:?} in {text:?}", &p.toks[p.at..]));
    }
    Ok(v.bool())
}

fn tdiv(a: &Int, b: &Int) -> Int {
    // C truncates toward zero: |a| / |b| with the sign of a·b.
    let zero = Int::from_i64(0);
    let abs = |x: &Int| x.ge(&zero).ite(x, &(-x.clone()));
    let q = abs(a).div(abs(b));
    a.ge(&zero).iff(b.ge(&zero)).ite(&q, &(-q.clone()))
}

impl Parser<'_> {
    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.toks.get(self.at), Some(Tok::Op(o)) if *o == op) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, op: &str) -> Result<(), String> {
        if self.eat(op) {
            Ok(())
        } else {
            Err(format!(
                "expected `{op}` at token {} of {:?}",
                self.at, self.text
            ))
        }
    }

    fn or(&mut self) -> Result<V, String> {
        let mut a = self.and()?;
        while self.eat("||") {
            let b = self.and()?;
            a = V::B(Bool::or(&[a.bool(), b.bool()]));
        }
        Ok(a)
    }

    fn and(&mut self) -> Result<V, String> {
        let mut a = self.eq()?;
        while self.eat("&&") {
            let b = self.eq()?;
            a = V::B(Bool::and(&[a.bool(), b.bool()]));
        }
        Ok(a)
    }

    fn eq(&mut self) -> Result<V, String> {
        let mut a = self.rel()?;
        loop {
            let ne = if self.eat("==") {
                false
            } else if self.eat("!=") {
                true
            } else {
                return Ok(a);
            };
            let b = self.rel()?;
            let e = a.int().eq(b.int());
            a = V::B(if ne { e.not() } else { e });
        }
    }

    fn rel(&mut self) -> Result<V, String> {
        let mut a = self.add()?;
        loop {
            let op = ["<=", ">=", "<", ">"].into_iter().find(|op| self.eat(op));
            let Some(op) = op else { return Ok(a) };
            let (x, y) = (a.int(), self.add()?.int());
            a = V::B(match op {
                "<=" => x.le(&y),
                ">=" => x.ge(&y),
                "<" => x.lt(&y),
                _ => x.gt(&y),
            });
        }
    }

    fn add(&mut self) -> Result<V, String> {
        let mut a = self.mul()?;
        loop {
            let minus = if self.eat("+") {
                false
            } else if self.eat("-") {
                true
            } else {
                return Ok(a);
            };
            let (x, y) = (a.int(), self.mul()?.int());
            a = V::I(if minus { x - y } else { x + y });
        }
    }

    fn mul(&mut self) -> Result<V, String> {
        let mut a = self.unary()?;
        loop {
            let op = ["*", "/", "%"].into_iter().find(|op| self.eat(op));
            let Some(op) = op else { return Ok(a) };
            let (x, y) = (a.int(), self.unary()?.int());
            a = V::I(match op {
                "*" => x * y,
                "/" => tdiv(&x, &y),
                _ => {
                    let q = tdiv(&x, &y);
                    x - q * y
                }
            });
        }
    }

    fn unary(&mut self) -> Result<V, String> {
        if self.eat("!") {
            return Ok(V::B(self.unary()?.bool().not()));
        }
        if self.eat("-") {
            return Ok(V::I(-self.unary()?.int()));
        }
        if self.eat("+") {
            return Ok(V::I(self.unary()?.int()));
        }
        // A cast: `(long)` is exact here, `(int)` wraps to 32 bits.
        if let (Some(Tok::Op("(")), Some(Tok::Ident(t)), Some(Tok::Op(")"))) = (
            self.toks.get(self.at),
            self.toks.get(self.at + 1),
            self.toks.get(self.at + 2),
        ) {
            if t == "long" || t == "int" {
                let int = t == "int";
                self.at += 3;
                let v = self.unary()?.int();
                return Ok(V::I(if int {
                    let m = Int::from_i64(1 << 32);
                    let h = Int::from_i64(1 << 31);
                    (v + &h).modulo(&m) - h
                } else {
                    v
                }));
            }
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<V, String> {
        match self.toks.get(self.at).cloned() {
            Some(Tok::Num(n)) => {
                self.at += 1;
                Ok(V::I(Int::from_i64(n)))
            }
            Some(Tok::Ident(name)) => {
                self.at += 1;
                if self.toks.get(self.at) == Some(&Tok::Op("(")) {
                    return Err(format!(
                        "call of `{name}` is outside the subset: {:?}",
                        self.text
                    ));
                }
                Ok(V::I((self.var)(&name)))
            }
            Some(Tok::Op("(")) => {
                self.at += 1;
                let v = self.or()?;
                self.expect(")")?;
                Ok(v)
            }
            t => Err(format!("unexpected {t:?} in {:?}", self.text)),
        }
    }
}

// ---------------------------------------------------------------------
// Equivalence under a domain.

const INT_MIN: i64 = -(1 << 31);
const INT_MAX: i64 = (1 << 31) - 1;

/// The names of a formula's variables, each a Z3 integer; `x0` and the
/// lane variable are special (see [`Domain`]).
struct Names {
    vars: std::cell::RefCell<BTreeMap<String, Int>>,
}

impl Names {
    fn new() -> Names {
        Names {
            vars: Default::default(),
        }
    }
    fn get(&self, name: &str) -> Int {
        self.vars
            .borrow_mut()
            .entry(name.to_string())
            .or_insert_with(|| Int::new_const(name))
            .clone()
    }
}

/// The domain: `x0 >= 0` and `x0 + W - 1` an `int`, every other name an
/// `int`, and the case's own facts (parsed in the same subset).
fn domain(names: &Names, x0: &str, width: u32, facts: &str) -> Result<Bool, String> {
    let mut out = vec![parse(facts, &|n| names.get(n))?];
    let x = names.get(x0);
    out.push(x.ge(Int::from_i64(0)));
    out.push((&x + Int::from_i64(i64::from(width) - 1)).le(Int::from_i64(INT_MAX)));
    for (n, v) in names.vars.borrow().iter() {
        if n != x0 {
            out.push(v.ge(Int::from_i64(INT_MIN)));
            out.push(v.le(Int::from_i64(INT_MAX)));
        }
    }
    Ok(Bool::and(&out))
}

/// `Ok` when `a <=> b` under `dom`, else a counterexample.
fn equivalent(dom: &Bool, a: &Bool, b: &Bool) -> Result<(), String> {
    let s = Solver::new();
    s.assert(dom);
    s.assert(a.iff(b).not());
    match s.check() {
        SatResult::Unsat => Ok(()),
        SatResult::Sat => Err(format!(
            "counterexample: {}",
            s.get_model().map(|m| m.to_string()).unwrap_or_default()
        )),
        SatResult::Unknown => Err("Z3 answered unknown".into()),
    }
}

/// What one case claims: P's group form and its per-lane form (at lanes
/// `lane_var = x0 + l`, l < W) are both equivalent to `reference`.
struct Claim<'a> {
    group: &'a str,
    lane: &'a str,
    lane_var: &'a str,
    x0: &'a str,
    reference: &'a str,
    facts: &'a str,
    width: u32,
}

fn check(c: &Claim<'_>) -> Result<(), String> {
    let names = Names::new();
    let var = |n: &str| names.get(n);
    let group = parse(c.group, &var)?;
    let reference = parse(c.reference, &var)?;
    let x0 = names.get(c.x0);
    let mut lanes = Vec::new();
    for l in 0..c.width {
        let at = |n: &str| {
            if n == c.lane_var {
                &x0 + Int::from_i64(i64::from(l))
            } else if n == c.x0 {
                // The lane form must not mention lane 0's value.
                Int::new_const(format!("{n}_in_lane_text"))
            } else {
                names.get(n)
            }
        };
        lanes.push(parse(c.lane, &at)?);
    }
    let every_lane = Bool::and(&lanes);
    let dom = domain(&names, c.x0, c.width, c.facts)?;
    equivalent(&dom, &group, &reference).map_err(|e| {
        format!(
            "W = {}: group form `{}` is not equivalent to `{}`: {e}",
            c.width, c.group, c.reference
        )
    })?;
    equivalent(&dom, &every_lane, &group).map_err(|e| {
        format!(
            "W = {}: `{}` on lanes {} = {} + 0..{} is not equivalent to the group form `{}`: {e}",
            c.width,
            c.lane,
            c.lane_var,
            c.x0,
            c.width - 1,
            c.group
        )
    })
}

// ---------------------------------------------------------------------
// The preconditions under test.

fn findings(src: &str, width: u32) -> Vec<Finding> {
    let u = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!u.has_errors(), "{:?}", u.diagnostics);
    let k = *u.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&u.hir, k, width).expect("analyses");
    infer(&ka, &u.hir, k, &Options::new(width))
}

fn found(fs: &[Finding], kind: TargetKind) -> Vec<Precondition> {
    fs.iter()
        .filter(|f| f.kind == kind)
        .map(|f| match &f.outcome {
            Outcome::Found(p) => p.clone(),
            o => panic!("{kind:?} at {:?}: {o:?}", f.span),
        })
        .collect()
}

/// Checks P (both forms) against the reference for W = 4, 8, 16, and
/// that the check refutes each off-by-one reference and P with each
/// integer literal of its group form moved by one.
#[allow(clippy::too_many_arguments)]
fn assert_equivalent(
    what: &str,
    p: &Precondition,
    width: u32,
    lane_var: &str,
    x0: &str,
    reference: &str,
    off_by_one: &[String],
    facts: &str,
) {
    let group = p
        .group
        .as_deref()
        .unwrap_or_else(|| panic!("{what}, W = {width}: no group form: {p:?}"));
    eprintln!(
        "{what}, W = {width}: `{}` / `{group}` vs `{reference}`",
        p.lane
    );
    let claim = Claim {
        group,
        lane: &p.lane,
        lane_var,
        x0,
        reference,
        facts,
        width,
    };
    if let Err(e) = check(&claim) {
        panic!("{what}: {e}");
    }
    for wrong in off_by_one {
        let c = Claim {
            reference: wrong,
            ..claim
        };
        assert!(
            check(&c).is_err(),
            "{what}, W = {width}: the off-by-one reference `{wrong}` was not refuted"
        );
    }
    for mutated in mutations(group) {
        let c = Claim {
            group: &mutated,
            ..claim
        };
        assert!(
            check(&c).is_err(),
            "{what}, W = {width}: the mutated group form `{mutated}` was not refuted"
        );
    }
    for mutated in mutations(&p.lane) {
        let c = Claim {
            lane: &mutated,
            ..claim
        };
        assert!(
            check(&c).is_err(),
            "{what}, W = {width}: the mutated lane form `{mutated}` was not refuted"
        );
    }
}

/// `text` with one comparison made strict/non-strict or one integer
/// literal moved by ±1 (an off-by-one in P).
fn mutations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (from, to) in [(" < ", " <= "), (" <= ", " < ")] {
        for (i, _) in text.match_indices(from) {
            out.push(format!("{}{to}{}", &text[..i], &text[i + from.len()..]));
        }
    }
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let n: i64 = text[st..i].parse().unwrap_or(0);
            for m in [n - 1, n + 1] {
                if m >= 0 {
                    out.push(format!("{}{m}{}", &text[..st], &text[i..]));
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

const CONVOLUTION: &str = include_str!("../../examples/convolution.cl");

/// The paper's running example (its Fig. 1): the stencil loop is uniform
/// exactly for the groups inside the image.
#[test]
fn convolution_is_the_papers_condition() {
    for w in [4, 8, 16] {
        let fs = findings(CONVOLUTION, w);
        let ps = found(&fs, TargetKind::Loop);
        let [p] = &ps[..] else {
            panic!("one divergent loop: {fs:?}")
        };
        let reference = format!("x0 >= vstep && x0 + {w} - 1 < width - vstep");
        let wrong = [
            format!("x0 >= vstep && x0 + {w} < width - vstep"),
            format!("x0 >= vstep && x0 + {w} - 2 < width - vstep"),
            format!("x0 > vstep && x0 + {w} - 1 < width - vstep"),
            format!("x0 >= vstep - 1 && x0 + {w} - 1 < width - vstep"),
            format!("x0 >= vstep && x0 + {w} - 1 <= width - vstep"),
        ];
        assert_equivalent(
            "convolution",
            p,
            w,
            "x",
            "x0",
            &reference,
            &wrong,
            "vstep >= 0 && width > 0",
        );
    }
}

/// PolyBench's bounds guard `if (i < n)`: `i0 + W - 1 < n` (i0: lane 0's i).
#[test]
fn polybench_guard_is_the_last_lane_in_range() {
    let src = r#"
__kernel void k(__global float *a, int n) {
    int i = get_global_id(0);
    if (i < n) {
        a[i] = 2.0f * a[i];
    }
}
"#;
    for w in [4, 8, 16] {
        let fs = findings(src, w);
        let ps = found(&fs, TargetKind::Branch);
        let [p] = &ps[..] else {
            panic!("one divergent branch: {fs:?}")
        };
        let reference = format!("i0 + {w} - 1 < n");
        let wrong = [format!("i0 + {w} < n"), format!("i0 + {w} - 2 < n")];
        assert_equivalent("polybench guard", p, w, "i", "i0", &reference, &wrong, "1");
    }
}

/// The clamped 3-point Jacobi stencil: the left neighbour is packed from
/// `i0 >= 1` on, the right one while `i0 + W - 1 < n - 1` (i0: lane 0's i).
#[test]
fn clamped_jacobi_neighbours() {
    let src = r#"
__kernel void k(__global const float *a, __global float *b, int n) {
    int i = get_global_id(0);
    if (i < n) {
        int l = max(i - 1, 0);
        int r = min(i + 1, n - 1);
        b[i] = 0.33333f * (a[l] + a[i] + a[r]);
    }
}
"#;
    for w in [4, 8, 16] {
        let fs = findings(src, w);
        let ps = found(&fs, TargetKind::Access);
        assert_eq!(ps.len(), 2, "a[l] and a[r]: {fs:?}");
        let refs = [
            (
                "a[l]",
                "i0 >= 1".to_string(),
                vec!["i0 >= 2".to_string(), "i0 >= 0".to_string()],
            ),
            (
                "a[r]",
                format!("i0 + {w} - 1 < n - 1"),
                vec![format!("i0 + {w} - 1 < n"), format!("i0 + {w} < n - 1")],
            ),
        ];
        for (p, (what, reference, wrong)) in ps.iter().zip(&refs) {
            assert_equivalent(what, p, w, "i", "i0", reference, wrong, "1");
        }
    }
}

/// The parser and the checker themselves, on fixed texts.
#[test]
fn the_checker_reads_c_and_refutes() {
    let claim = Claim {
        group: "(long)vstep <= (long)x0 && (int)(x0 + 7) < width - vstep",
        lane: "!(x < vstep) && x + 1 <= width - vstep",
        lane_var: "x",
        x0: "x0",
        reference: "x0 >= vstep && x0 + 8 - 1 < width - vstep",
        facts: "vstep >= 0 && width > 0",
        width: 8,
    };
    assert_eq!(check(&claim), Ok(()));
    // `/` and `%` truncate toward zero as in C.
    let names = Names::new();
    let v = |n: &str| names.get(n);
    let t = parse(
        "-7 / 2 == -3 && -7 % 2 == -1 && 7 / -2 == -3 && 7 % -2 == 1",
        &v,
    )
    .unwrap();
    assert_eq!(
        equivalent(&Bool::from_bool(true), &t, &Bool::from_bool(true)),
        Ok(())
    );
    // The lane form may not be stated in lane 0's value.
    let c = Claim {
        lane: "vstep <= x0 && x0 + 7 < width - vstep",
        ..claim
    };
    assert!(check(&c).is_err());
    assert!(parse("f(x) < 1", &v).is_err());
    assert!(parse("x < ", &v).is_err());
}

// ---------------------------------------------------------------------
// Gist: conjuncts implied by the context of the target are dropped.

/// A causal window clamped to the image: `[max(x - r, 0), min(x, n - 1)]`.
/// Its raw P is `r <= x && x < n`; every lane that reaches the loop has
/// passed `if (x >= n) return;` (or is inside `if (x < n)`), so the gist
/// is `r <= x`, and the group form `r <= x0` is the reference `x0 >= r`.
#[test]
fn gist_drops_what_the_guard_implies() {
    let early_return = r#"
__kernel void k(__global const float *a, __global float *b, int n, int r) {
    int x = get_global_id(0);
    if (x >= n)
        return;
    float s = 0.0f;
    for (int j = max(x - r, 0); j <= min(x, n - 1); ++j)
        s += a[j];
    b[x] = s;
}
"#;
    let enclosing = r#"
__kernel void k(__global const float *a, __global float *b, int n, int r) {
    int x = get_global_id(0);
    if (x < n) {
        float s = 0.0f;
        for (int j = max(x - r, 0); j <= min(x, n - 1); ++j)
            s += a[j];
        b[x] = s;
    }
}
"#;
    for (what, src) in [("early return", early_return), ("enclosing if", enclosing)] {
        for w in [4, 8, 16] {
            let fs = findings(src, w);
            let ps = found(&fs, TargetKind::Loop);
            let [p] = &ps[..] else {
                panic!("one divergent loop: {fs:?}")
            };
            assert_eq!(p.lane, "r <= x", "{what}, W = {w}: {p:?}");
            // The inserted check keeps the dropped conjunct (the fast path's
            // assumption-aware analysis reads only the check).
            assert_eq!(p.exact, "(long)r <= (long)x && (long)x < (long)n", "{p:?}");
            let wrong = ["x0 > r".to_string(), "x0 >= r + 1".to_string()];
            assert_equivalent(what, p, w, "x", "x0", "x0 >= r", &wrong, "1");
        }
    }
}

/// Without a guard nothing is implied: the same loop keeps `x < n`.
#[test]
fn gist_keeps_what_nothing_implies() {
    let src = r#"
__kernel void k(__global const float *a, __global float *b, int n, int r) {
    int x = get_global_id(0);
    float s = 0.0f;
    for (int j = max(x - r, 0); j <= min(x, n - 1); ++j)
        s += a[j];
    b[x] = s;
}
"#;
    let fs = findings(src, 8);
    let ps = found(&fs, TargetKind::Loop);
    let [p] = &ps[..] else {
        panic!("one divergent loop: {fs:?}")
    };
    assert_eq!(p.lane, "r <= x && x < n", "{p:?}");
    let wrong = ["x0 >= r && x0 + 8 < n".to_string()];
    assert_equivalent(
        "no guard",
        p,
        8,
        "x",
        "x0",
        "x0 >= r && x0 + 7 < n",
        &wrong,
        "1",
    );
}

/// A conjunct implied by the id range alone (`get_global_id(0) >= 0`):
/// `max(x + 1, 0)` always takes `x + 1`, so only the other bound is left.
#[test]
fn gist_uses_the_id_range() {
    let src = r#"
__kernel void k(__global const float *a, __global float *b, int n) {
    int x = get_global_id(0);
    float s = 0.0f;
    for (int j = max(x + 1, 0); j <= min(x + 3, n); ++j)
        s += a[j];
    b[x] = s;
}
"#;
    let fs = findings(src, 8);
    let ps = found(&fs, TargetKind::Loop);
    let [p] = &ps[..] else {
        panic!("one divergent loop: {fs:?}")
    };
    assert_eq!(p.lane, "x < n - 2", "{p:?}");
    assert_eq!(p.exact, "(long)x < (long)n - 2 && -1 <= (long)x", "{p:?}");
    let wrong = ["x0 + 7 + 3 < n".to_string()];
    assert_equivalent("id range", p, 8, "x", "x0", "x0 + 7 + 3 <= n", &wrong, "1");
}

/// `--specialize auto` inserts the check with the dropped conjunct, so
/// inside the fast path the assumption-aware analysis still resolves
/// `min(x, n - 1)` and the copy of the loop is uniform.
#[test]
fn gisted_fast_path_is_uniform_inside() {
    let src = GUARDED_CLAMP;
    let u = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    let s = lanes_vectorizer::precond::specialize(&u, &Options::new(8));
    assert_eq!(s.applied.len(), 1, "{:?}", s.applied);
    assert_eq!(s.applied[0].condition, "r <= x");
    let v = check_text(
        "s.cl",
        None,
        &s.text,
        &PreprocessOptions::default(),
        &RealFs,
    );
    assert!(!v.has_errors(), "{}\n{:?}", s.text, v.diagnostics);
    let k = *v.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&v.hir, k, 8).expect("analyses");
    let r = lanes_vectorizer::report::report(&ka, &v.hir, k, &v.sources);
    let divergent: Vec<bool> = r.loops.iter().map(|l| l.divergent).collect();
    assert_eq!(
        divergent,
        [false, true],
        "copy uniform, original divergent:\n{}",
        s.text
    );
}

/// The code action inserts the gisted per-lane P (`r <= x`, without the
/// `x < n` the early return guarantees): the assumption-aware analysis takes
/// the guard on the way into account, so the copy is uniform too.
#[test]
fn gisted_code_action_copy_is_uniform_inside() {
    let src = GUARDED_CLAMP;
    let u = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    let k = *u.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&u.hir, k, 8).expect("analyses");
    let found = lanes_vectorizer::precond::infer(&ka, &u.hir, k, &Options::new(8));
    let (p, stmt) = found
        .iter()
        .find_map(|f| match (&f.kind, &f.outcome, f.stmt) {
            (
                lanes_vectorizer::precond::TargetKind::Loop,
                lanes_vectorizer::precond::Outcome::Found(p),
                Some(s),
            ) => Some((p.clone(), s)),
            _ => None,
        })
        .expect("a loop precondition");
    assert_eq!(p.lane, "r <= x");
    let text = lanes_vectorizer::precond::specialize::fast_path(
        src,
        stmt.start as usize,
        stmt.end as usize,
        &p.lane,
    )
    .expect("an edit");
    let edited = format!(
        "{}{}{}",
        &src[..stmt.start as usize],
        text,
        &src[stmt.end as usize..]
    );
    let v = check_text(
        "e.cl",
        None,
        &edited,
        &PreprocessOptions::default(),
        &RealFs,
    );
    assert!(!v.has_errors(), "{edited}\n{:?}", v.diagnostics);
    let k = *v.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&v.hir, k, 8).expect("analyses");
    let r = lanes_vectorizer::report::report(&ka, &v.hir, k, &v.sources);
    let divergent: Vec<bool> = r.loops.iter().map(|l| l.divergent).collect();
    assert_eq!(
        divergent,
        [false, true],
        "copy uniform, original divergent:\n{edited}"
    );
}

/// A clamped window after an early return: the gist drops `x < n` from P.
const GUARDED_CLAMP: &str = r#"
__kernel void k(__global const float *a, __global float *b, int n, int r) {
    int x = get_global_id(0);
    if (x >= n)
        return;
    float s = 0.0f;
    for (int j = max(x - r, 0); j <= min(x, n - 1); ++j)
        s += a[j];
    b[x] = s;
}
"#;
