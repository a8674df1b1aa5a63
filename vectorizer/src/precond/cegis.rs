//! CEGIS precondition synthesis: the paper's *concrete abduction* (Moll and
//! Hack, "Synthesizing Hot Code Paths by Abductive Reasoning", §III-E).
//!
//! [`synthesize`] under-approximates a spec `s` over group-uniform integers
//! by a DNF `p` of octagon and modulus literals such that Z3 proves
//! `domain ∧ C ⇒ s` for every clause `C` of `p`. Samples come from a box
//! per var (`lo..=hi`); proofs cover the var's whole domain (`min..=max`,
//! e.g. every group id below 2^31), so a small box never weakens a claim.
//!
//! 0. *Periodic classes* ([`Spec::moduli`], for a SIMD group its width W
//!    and `W/2`, `2W`): residue classes of one var, or of two vars with the
//!    second at residue 0 (`step ≡ 0 ∧ x0 ≡ 0 (mod W)`), largest first, on
//!    which every one of 48 samples drawn *inside* the class satisfies the
//!    spec, are proven as clauses; they are the first clauses (a periodic
//!    clause covers the same share of every box, where a bound relating an
//!    id to a parameter covers a share that shrinks as the box grows). For
//!    FastWalshTransform the spec "the lanes' `tid / step` blocks agree"
//!    holds for most points with a large step, so neither the spec-true
//!    samples nor the lines between them show the period; this probe does.
//! 1. *Literal discovery* (concrete, [`Spec::holds`] only). Sample the box
//!    (boundary values and random points in the domain). At a border point
//!    read an octagon line off its edges (an edge in `v`: the spec flips at
//!    `σ ± e_v`; up edges give coefficient +1, down edges −1, the constant is
//!    `n·σ`); keep it when a neighbour along the line shows the same flip
//!    (drops corner artifacts). Border points come from every sample (lines
//!    produced by more samples rank first) and from bisecting pairs of a
//!    spec-true and a spec-false sample that no literal separates yet.
//!    Modulus literals: all spec-true samples in one residue class (gcd), a
//!    class on which the spec always holds, or many parallel lines in two
//!    residue classes (the paper's DETECT_MODULUS); discovery then recurses
//!    into the class's sub-lattice to find the pattern's ends.
//! 2. *Boolean structure* (CEGIS over queries (29)-(33)). From a seed point
//!    where `s` holds and `p` does not (31), orient every literal to be true
//!    at the seed (the negate flags of (29)) and pick literals greedily until
//!    every known spec-false sample is excluded (concrete rejection). Besides
//!    the discovered literals, every octagon normal is a candidate with its
//!    bound tight at the seed. Drop literals no false sample needs (prime
//!    implicant, (32)-(33)) and move octagon bounds out to the false samples
//!    (forced constants), all on samples; skip the seed if the clause would
//!    cover too few new true samples. Then Z3 checks (30); a counterexample
//!    is a new false sample and the clause is rebuilt. Only proven clauses
//!    enter `p`; clauses the others imply are removed at the end.
//!
//! *Encoding.* Vars are Z3 integers with their domain as constraints,
//! octagon literals are linear sums, modulus literals `v mod m = r` with a
//! constant `m` ([`Literal::encode`]); the spec is the integer encoding of
//! [`super::smt`] (linear: non-linear terms are abstracted there, with
//! [`Spec::lemmas`] for the moduli of the clause under proof). No `bv2int`
//! anywhere. A model of a query may satisfy the abstraction without
//! satisfying the spec, so a seed Z3 proposes is evaluated before it is
//! used. Z3's effort on one query is heavy-tailed: a query that spends more
//! than [`FIRST_ATTEMPT`] resource units is restarted with another random
//! seed (twice the units); every query is charged to the target's
//! [`Meter`] ([`super::budget`]).
//!
//! *Measured* (debug build, `spec::tests::query_times`, on the shared
//! 2-core machine): the proof of the clause `x0 % 8 == 0` for the branch
//! `if ((x / 8) % 2 == 0)` at W = 8 took **no answer within 60 s** in the
//! former encoding (64-bit vectors tied to the integer program by `bv2int`,
//! one program copy per lane; Z3 returned `unknown` at a 60 s timeout), 31.5
//! s with plain integers but the old program encoding (every wrap a `mod
//! 2^32`), and **10 ms** now (intervals remove most wraps, one symbolic
//! lane replaces W copies). FastWalshTransform's `step % 16 == 0 && x0 % 16
//! == 0 ⇒ packed` takes 9 ms (`data[pair]`) and 54 ms (`data[pair +
//! step]`) at W = 16. The whole synthesis of one FastWalshTransform access
//! takes 0.1–0.7 s (of a 2 s budget) at W = 4, 8, 16.
//!
//! Deterministic: a fixed-seed RNG, and budgets and restarts counted in
//! Z3's resource units and samples, not in time.

use rustc_hash::FxHashSet;
use std::time::{Duration, Instant};

use super::budget::{self, Meter};

use z3::ast::{Bool, Int};
use z3::{Params, SatResult, Solver};

/// A variable of the synthesis space Σ: a group-uniform integer (a kernel
/// argument, the SIMD group's base id x0, ...). Samples are drawn from
/// `[lo, hi]`; proofs hold on `[min, max]` (by default the same box), so a
/// small sampling box does not weaken what is proven.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Var {
    pub name: String,
    pub lo: i64,
    pub hi: i64,
    pub min: i64,
    pub max: i64,
}

impl Var {
    pub fn new(name: impl Into<String>, lo: i64, hi: i64) -> Var {
        Var {
            name: name.into(),
            lo,
            hi,
            min: lo,
            max: hi,
        }
    }

    /// The range the proofs cover (it should contain the sampling box).
    pub fn with_domain(mut self, min: i64, max: i64) -> Var {
        self.min = min.min(self.lo);
        self.max = max.max(self.hi);
        self
    }
}

/// What the precondition must imply.
pub trait Spec {
    fn vars(&self) -> &[Var];
    /// Concrete evaluation at a point (one value per var). Cheap; called a lot.
    fn holds(&self, point: &[i64]) -> bool;
    /// The spec as a Z3 formula over integer variables, one per var (the
    /// synthesizer asserts `min <= v <= max` for each). Linear integer
    /// arithmetic keeps the proofs fast; see the module doc. `None` =
    /// cannot encode.
    fn encode(&self, vars: &[Int]) -> Option<Bool>;
    /// Facts that hold for every point that occurs at run time besides the
    /// box (e.g. `x0 % 4 == 0` for a group's base id). Samples are drawn
    /// from the domain only and proofs assume it, so the precondition need
    /// not repeat it. Default: the whole box.
    fn domain(&self, _point: &[i64]) -> bool {
        true
    }
    /// Moduli the problem suggests (for a SIMD group: its width and
    /// near multiples). Literal discovery probes their residue classes
    /// (also two vars at once) for classes where the spec always holds;
    /// those classes give modulus literals and the first seeds.
    fn moduli(&self) -> Vec<i64> {
        Vec::new()
    }
    /// The most clauses the result may have.
    fn max_clauses(&self) -> usize {
        MAX_CLAUSES
    }
    /// [`Spec::domain`] for Z3; `None` = no assumption (always sound: the
    /// proofs are then done on the whole box).
    fn encode_domain(&self, _vars: &[Int]) -> Option<Bool> {
        None
    }
    /// True facts about the auxiliary terms of [`Spec::encode`] that the
    /// proof of a clause with modulus literals `x % m == r` for these `m`
    /// may need (e.g. `a % m == 0 ⇒ a·b % m == 0` for a product the
    /// encoding keeps abstract). Asserted next to the spec, so they must
    /// hold for every value of the auxiliary terms the encoding allows.
    fn lemmas(&self, _vars: &[Int], _moduli: &[i64]) -> Option<Bool> {
        None
    }
}

/// Literals: octagon `sum(coef * var) <= c` with at most two vars and coefs
/// in {-1, +1}, or modulus `var mod m == r` (0 <= r < m, m >= 2;
/// mathematical modulus).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Literal {
    Octagon { terms: Vec<(usize, i64)>, c: i64 },
    Modulus { var: usize, m: i64, r: i64 },
}

/// A conjunction of literals, each possibly negated (`true` = negated).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Clause(pub Vec<(Literal, bool)>);

/// A disjunction of clauses; empty = false.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dnf(pub Vec<Clause>);

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Time in literal discovery (initial and on demand).
    pub literal_ms: f64,
    /// Z3 queries of literal discovery (a first spec-true point when
    /// sampling found none).
    pub literal_queries: u32,
    /// Time in boolean structure synthesis, proofs included.
    pub clause_ms: f64,
    /// Z3 queries of boolean structure synthesis.
    pub clause_queries: u32,
    /// Evaluations of `Spec::holds`.
    pub samples: u32,
    /// Literals discovered.
    pub literals: u32,
    /// The budget ran out (a `Found` result is then partial).
    pub timed_out: bool,
    /// Z3 showed that no spec-true point is left outside the result: it is
    /// equivalent to the spec (on the box and domain).
    pub exact: bool,
    /// The result is a hint ([`synthesize_with`]), proven for this spec.
    pub hinted: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every clause is proven by Z3 to imply the spec. With
    /// `Stats::timed_out` the DNF holds what was proven before the budget ran
    /// out.
    Found(Dnf),
    NotFound,
    /// The budget ran out before any clause was proven.
    Timeout,
}

fn octagon_sum(terms: &[(usize, i64)], p: &[i64]) -> i128 {
    terms.iter().map(|&(v, k)| k as i128 * p[v] as i128).sum()
}

/// Names a C expression for var `v` (parenthesised coefficient forms).
fn term_text(k: i64, name: &str) -> String {
    if k.abs() == 1 {
        name.to_string()
    } else {
        format!("{} * {name}", k.unsigned_abs())
    }
}

/// `sum(terms) <= c` with the negative terms moved to the right-hand side.
fn display_le(terms: &[(usize, i64)], c: i128, names: &[String]) -> String {
    let pos: Vec<String> = terms
        .iter()
        .filter(|t| t.1 > 0)
        .map(|&(v, k)| term_text(k, &names[v]))
        .collect();
    let neg: Vec<String> = terms
        .iter()
        .filter(|t| t.1 < 0)
        .map(|&(v, k)| term_text(k, &names[v]))
        .collect();
    let (l, r) = (pos.join(" + "), neg.join(" + "));
    match (pos.is_empty(), neg.is_empty()) {
        (false, true) => format!("{l} <= {c}"),
        (true, false) => format!("{r} >= {}", -c),
        (false, false) if c > 0 => format!("{l} <= {r} + {c}"),
        (false, false) if c == 0 => format!("{l} <= {r}"),
        (false, false) => format!("{l} + {} <= {r}", -c),
        (true, true) => (if c >= 0 { "1" } else { "0" }).to_string(),
    }
}

/// An octagon literal as (terms with a positive first coefficient, is a
/// lower bound, bound).
type Bound = (Vec<(usize, i64)>, bool, i128);

/// `sum(terms) == k` with the negative terms moved to the right-hand side.
fn display_eq(terms: &[(usize, i64)], k: i128, names: &[String]) -> String {
    let side = |pos: bool| -> String {
        let t: Vec<String> = terms
            .iter()
            .filter(|t| (t.1 > 0) == pos)
            .map(|&(v, k)| term_text(k, &names[v]))
            .collect();
        t.join(" + ")
    };
    let (l, r) = (side(true), side(false));
    match (l.is_empty(), r.is_empty()) {
        (false, true) => format!("{l} == {k}"),
        (true, false) => format!("{r} == {}", -k),
        (false, false) if k > 0 => format!("{l} == {r} + {k}"),
        (false, false) if k == 0 => format!("{l} == {r}"),
        (false, false) => format!("{l} + {} == {r}", -k),
        (true, true) => (if k == 0 { "1" } else { "0" }).to_string(),
    }
}

/// Display order of a clause's literals: by first variable, modulus first,
/// then shorter sums, lower bounds before upper bounds.
fn literal_order(l: &(Literal, bool)) -> (usize, u8, usize, bool, i64) {
    match &l.0 {
        Literal::Modulus { var, m, r } => (*var, 0, 1, l.1, m * 1000 + r),
        Literal::Octagon { terms, c } => {
            let first = terms.iter().map(|t| t.0).min().unwrap_or(0);
            let lower = l.1 == terms.first().is_some_and(|t| t.1 > 0);
            (first, 1, terms.len(), !lower, *c)
        }
    }
}

impl Literal {
    pub fn eval(&self, p: &[i64]) -> bool {
        match self {
            Literal::Octagon { terms, c } => octagon_sum(terms, p) <= *c as i128,
            Literal::Modulus { var, m, r } => *m > 0 && p[*var].rem_euclid(*m) == *r,
        }
    }

    /// Exact over the integers.
    pub fn encode(&self, vars: &[Int]) -> Bool {
        match self {
            Literal::Octagon { terms, c } => {
                let mut sum = Int::from_i64(0);
                for &(v, k) in terms {
                    sum = match k {
                        1 => sum + &vars[v],
                        -1 => sum - &vars[v],
                        _ => sum + &vars[v] * Int::from_i64(k),
                    };
                }
                sum.le(Int::from_i64(*c))
            }
            Literal::Modulus { var, m, r } => {
                vars[*var].modulo(Int::from_i64(*m)).eq(Int::from_i64(*r))
            }
        }
    }

    /// C syntax. Modulus literals with `r != 0` are written so that they are
    /// right for negative values too; see [`Literal::display_vars`].
    pub fn display(&self, names: &[String]) -> String {
        self.show(names, None, false)
    }

    /// C syntax, using the var ranges: `x % m == r` when `x` is never negative.
    pub fn display_vars(&self, vars: &[Var]) -> String {
        let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
        self.show(&names, Some(vars), false)
    }

    fn show(&self, names: &[String], vars: Option<&[Var]>, negated: bool) -> String {
        match self {
            Literal::Octagon { terms, c } => {
                if negated {
                    let flipped: Vec<(usize, i64)> = terms.iter().map(|&(v, k)| (v, -k)).collect();
                    display_le(&flipped, -(*c as i128) - 1, names)
                } else {
                    display_le(terms, *c as i128, names)
                }
            }
            Literal::Modulus { var, m, r } => {
                let op = if negated { "!=" } else { "==" };
                let x = &names[*var];
                let nonneg = vars.is_some_and(|vs| vs[*var].min >= 0);
                if *r == 0 || nonneg {
                    format!("{x} % {m} {op} {r}")
                } else if (*m as u64).is_power_of_two() {
                    format!("({x} & {}) {op} {r}", m - 1)
                } else {
                    format!("({x} % {m} + {m}) % {m} {op} {r}")
                }
            }
        }
    }

    /// Number of variables and weight for "prefer simple literals".
    fn cost(&self) -> u32 {
        match self {
            Literal::Octagon { terms, .. } => terms.len() as u32,
            Literal::Modulus { .. } => 2,
        }
    }
}

impl Clause {
    pub fn eval(&self, p: &[i64]) -> bool {
        self.0.iter().all(|(l, neg)| l.eval(p) != *neg)
    }

    pub fn encode(&self, vars: &[Int]) -> Bool {
        let lits: Vec<Bool> = self
            .0
            .iter()
            .map(|(l, neg)| {
                let e = l.encode(vars);
                if *neg {
                    e.not()
                } else {
                    e
                }
            })
            .collect();
        if lits.is_empty() {
            Bool::from_bool(true)
        } else {
            Bool::and(&lits)
        }
    }

    pub fn display(&self, names: &[String]) -> String {
        self.show(names, None)
    }

    /// [`Clause::display`] using the var ranges (simpler modulus forms).
    pub fn display_vars(&self, vars: &[Var]) -> String {
        let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
        self.show(&names, Some(vars))
    }

    /// A lower and an upper bound on the same sum that meet print as `==`.
    fn show(&self, names: &[String], vars: Option<&[Var]>) -> String {
        if self.0.is_empty() {
            return "true".to_string();
        }
        // Octagon literals as (terms with a positive first coefficient, is a
        // lower bound, bound).
        let norm: Vec<Option<Bound>> = self
            .0
            .iter()
            .map(|(l, neg)| match l {
                Literal::Octagon { terms, c } if !terms.is_empty() => {
                    let (t, c, neg) = if terms[0].1 < 0 {
                        let t = terms.iter().map(|&(v, k)| (v, -k)).collect();
                        (t, -(*c as i128) - 1, !neg)
                    } else {
                        (terms.clone(), *c as i128, *neg)
                    };
                    Some(if neg { (t, true, c + 1) } else { (t, false, c) })
                }
                _ => None,
            })
            .collect();
        let n = self.0.len();
        let mut used = vec![false; n];
        let mut parts = Vec::new();
        for i in 0..n {
            if used[i] {
                continue;
            }
            if let Some((t, lower, b)) = &norm[i] {
                let twin = (i + 1..n).find(|&j| {
                    !used[j]
                        && norm[j]
                            .as_ref()
                            .is_some_and(|(t2, l2, b2)| t2 == t && l2 != lower && b2 == b)
                });
                if let Some(j) = twin {
                    used[j] = true;
                    parts.push(display_eq(t, *b, names));
                    continue;
                }
            }
            parts.push(self.0[i].0.show(names, vars, self.0[i].1));
        }
        parts.join(" && ")
    }
}

/// A precondition found for another target of the same kernel, over
/// named vars: tried before synthesis (see [`synthesize_with`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub names: Vec<String>,
    pub dnf: Dnf,
}

impl Hint {
    /// The DNF over `vars` (matched by name); `None` when it uses a var
    /// `vars` does not have.
    fn remap(&self, vars: &[Var]) -> Option<Dnf> {
        let index: Vec<Option<usize>> = self
            .names
            .iter()
            .map(|n| vars.iter().position(|v| &v.name == n))
            .collect();
        let at = |i: usize| index.get(i).copied().flatten();
        let lit = |l: &Literal| -> Option<Literal> {
            Some(match l {
                Literal::Octagon { terms, c } => Literal::Octagon {
                    terms: terms
                        .iter()
                        .map(|&(v, k)| Some((at(v)?, k)))
                        .collect::<Option<Vec<_>>>()?,
                    c: *c,
                },
                Literal::Modulus { var, m, r } => Literal::Modulus {
                    var: at(*var)?,
                    m: *m,
                    r: *r,
                },
            })
        };
        let clauses = self
            .dnf
            .0
            .iter()
            .map(|c| {
                c.0.iter()
                    .map(|(l, neg)| Some((lit(l)?, *neg)))
                    .collect::<Option<Vec<_>>>()
                    .map(Clause)
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Dnf(clauses))
    }
}

impl Dnf {
    pub fn eval(&self, p: &[i64]) -> bool {
        self.0.iter().any(|c| c.eval(p))
    }

    pub fn encode(&self, vars: &[Int]) -> Bool {
        let cs: Vec<Bool> = self.0.iter().map(|c| c.encode(vars)).collect();
        if cs.is_empty() {
            Bool::from_bool(false)
        } else {
            Bool::or(&cs)
        }
    }

    /// C syntax: `a <= b && x % 4 == 0 || ...`; conjunctions inside a
    /// disjunction get parentheses (as `-Wparentheses` asks).
    pub fn display(&self, names: &[String]) -> String {
        self.show(names, None)
    }

    /// [`Dnf::display`] using the var ranges (simpler modulus forms).
    pub fn display_vars(&self, vars: &[Var]) -> String {
        let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
        self.show(&names, Some(vars))
    }

    fn show(&self, names: &[String], vars: Option<&[Var]>) -> String {
        match self.0.len() {
            0 => "false".to_string(),
            1 => self.0[0].show(names, vars),
            _ => {
                let parts: Vec<String> = self
                    .0
                    .iter()
                    .map(|c| {
                        if c.0.len() > 1 {
                            format!("({})", c.show(names, vars))
                        } else {
                            c.show(names, vars)
                        }
                    })
                    .collect();
                parts.join(" || ")
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Tuning constants.

/// Random samples drawn at the start (plus boundary combinations).
const RANDOM_SAMPLES: usize = 1500;
/// Spec-false samples tried as pair partners in literal discovery.
const MAX_PAIRS: usize = 400;
/// The paper's literal-count threshold for modulus detection.
const LITERAL_THRESHOLD: usize = 100;
/// Parallel single-variable lines that trigger modulus detection on a var
/// (checked again whenever a line is added).
const LINE_THRESHOLD: usize = 6;
/// Largest modulus tried.
const MAX_MODULUS: i64 = 64;
const MAX_MOD_LITERALS_PER_VAR: usize = 4;
const MAX_CLAUSES: usize = 6;
const MAX_CLAUSE_LITERALS: usize = 12;
/// A clause after the first must newly cover this share of the spec-true
/// samples per literal (the result is shown to users: no slivers).
const MIN_GAIN_PERCENT: usize = 2;
/// Seeds Z3 proposes once every sampled true point is covered.
const MAX_SMT_SEEDS: usize = 4;
/// Consecutive seeds without a clause before giving up.
const MAX_SEED_FAILURES: usize = 12;
const MAX_LOOSEN_ROUNDS: usize = 5;
/// Sample-only generalizations refuted by Z3 before proving step by step.
const GENERALIZE_ROUNDS: usize = 3;

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u128) -> u128 {
        if n <= 1 {
            0
        } else {
            (((self.next() as u128) << 64) | self.next() as u128) % n
        }
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let n = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + self.below(n) as i128) as i64
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

enum Check {
    Sat(Vec<i64>),
    Unsat,
    Unknown,
}

/// Z3 state: the variables, `ranges ∧ domain`, and `¬spec`.
struct Smt {
    vars: Vec<Int>,
    base: Vec<Bool>,
    spec: Bool,
}

/// Z3's effort on one query is heavy-tailed: an attempt that spends more
/// than this many resource units is restarted with another random seed (up
/// to `RESTARTS` times, each with twice the units, the last one with all
/// that is left).
const FIRST_ATTEMPT: u64 = 300_000;
const RESTARTS: u32 = 3;

impl Smt {
    fn check(&self, meter: &mut Meter, extra: &[Bool]) -> Check {
        let mut slice = FIRST_ATTEMPT;
        for attempt in 0..=RESTARTS {
            if meter.is_exhausted() {
                return Check::Unknown;
            }
            let last = attempt == RESTARTS || meter.left() <= slice * 2;
            let cap = if last { None } else { Some(slice) };
            match self.attempt(meter, cap, attempt, extra) {
                Some(r) => return r,
                None if last => return Check::Unknown,
                None => slice *= 2,
            }
        }
        Check::Unknown
    }

    /// One solver run; `None` when it gave up (resources or incompleteness).
    fn attempt(
        &self,
        meter: &mut Meter,
        cap: Option<u64>,
        seed: u32,
        extra: &[Bool],
    ) -> Option<Check> {
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32("random_seed", seed);
        solver.set_params(&params);
        for b in self.base.iter().chain(extra) {
            solver.assert(b);
        }
        let spent = meter.target_spent();
        let t = Instant::now();
        let r = meter.check(&solver, cap);
        if std::env::var_os("LANES_CEGIS_DEBUG").is_some() {
            eprintln!(
                "  z3 {r:?} in {} units, {:?} (seed {seed})",
                meter.target_spent() - spent,
                t.elapsed()
            );
        }
        match r {
            SatResult::Unsat => Some(Check::Unsat),
            SatResult::Unknown => None,
            SatResult::Sat => {
                let Some(model) = solver.get_model() else {
                    return Some(Check::Unknown);
                };
                let mut p = Vec::with_capacity(self.vars.len());
                for v in &self.vars {
                    match model.eval(v, true).and_then(|x| x.as_i64()) {
                        Some(x) => p.push(x),
                        None => return Some(Check::Unknown),
                    }
                }
                Some(Check::Sat(p))
            }
        }
    }
}

/// A clause under construction: literal indices and negate flags.
type Lits = Vec<(usize, bool)>;

struct Synth<'a, 'm> {
    spec: &'a dyn Spec,
    vars: Vec<Var>,
    n: usize,
    /// The domain's lattice per var (`x ≡ offset mod stride`), from samples.
    stride: Vec<i64>,
    offset: Vec<i64>,
    rng: Rng,
    meter: &'m mut Meter,
    stats: Stats,
    smt: Smt,
    pos: Vec<Vec<i64>>,
    neg: Vec<Vec<i64>>,
    seen: FxHashSet<Vec<i64>>,
    lits: Vec<Literal>,
    lit_set: FxHashSet<Literal>,
    /// Per var: single-var line count at the last DETECT_MODULUS attempt
    /// (`usize::MAX` once it succeeded).
    line_checked: Vec<usize>,
    /// Per var: a modulus pattern (lattice units: period, two line residues)
    /// whose boundary lines discovery no longer adds.
    explained: Vec<Option<(i128, i128, i128)>>,
    /// Literal discovery is running (the `explained` filter is active).
    discovering: bool,
    /// Indices of spec-true samples the DNF does not cover yet.
    fresh: Vec<usize>,
    /// Literal discovery restricted to a residue class `(var, m, r)`.
    class: Option<(usize, i64, i64)>,
    literal_time: Duration,
    hints: &'a [Hint],
}

/// Synthesizes a DNF `p` with `p ⇒ spec` on the box (and domain), proven by
/// Z3 clause by clause, within what `meter` has left for the target.
pub fn synthesize(spec: &dyn Spec, meter: &mut Meter) -> (Outcome, Stats) {
    synthesize_with(spec, meter, &[])
}

/// [`synthesize`], trying `hints` first: after sampling, a hint that holds
/// on some spec-true sample and on no spec-false one, and whose clauses Z3
/// proves, is the result. The accesses of one kernel often need the same
/// condition (BitonicSort's six, FastWalshTransform's four), and one
/// condition for several targets lets one fast path cover them all; one
/// proof per clause replaces literal discovery and clause search. A
/// weaker condition that synthesis might have found for this target alone
/// is the price.
pub fn synthesize_with(spec: &dyn Spec, meter: &mut Meter, hints: &[Hint]) -> (Outcome, Stats) {
    let start = Instant::now();
    let vars: Vec<Var> = spec.vars().to_vec();
    if vars
        .iter()
        .any(|v| v.lo > v.hi || v.min > v.lo || v.hi > v.max)
    {
        return (Outcome::NotFound, Stats::default());
    }
    let zvars: Vec<Int> = vars
        .iter()
        .enumerate()
        .map(|(i, v)| Int::new_const(format!("{}!{i}", v.name)))
        .collect();
    let Some(enc) = spec.encode(&zvars) else {
        return (Outcome::NotFound, Stats::default());
    };
    let mut base: Vec<Bool> = vars
        .iter()
        .zip(&zvars)
        .flat_map(|(v, z)| [z.ge(Int::from_i64(v.min)), z.le(Int::from_i64(v.max))])
        .collect();
    if let Some(d) = spec.encode_domain(&zvars) {
        base.push(d);
    }
    let n = vars.len();
    let mut s = Synth {
        spec,
        vars,
        n,
        stride: vec![1; n],
        offset: vec![0; n],
        rng: Rng(0x5eed_cafe_f00d_0001),
        meter,
        stats: Stats::default(),
        smt: Smt {
            vars: zvars,
            base,
            spec: enc.not(),
        },
        pos: Vec::new(),
        neg: Vec::new(),
        seen: FxHashSet::default(),
        lits: Vec::new(),
        lit_set: FxHashSet::default(),
        line_checked: vec![0; n],
        explained: vec![None; n],
        discovering: false,
        class: None,
        fresh: Vec::new(),
        literal_time: Duration::ZERO,
        hints,
    };
    let outcome = s.run();
    let total = start.elapsed();
    s.stats.literal_ms = s.literal_time.as_secs_f64() * 1e3;
    s.stats.clause_ms = (total.saturating_sub(s.literal_time)).as_secs_f64() * 1e3;
    s.stats.literals = s.lits.len() as u32;
    (outcome, s.stats)
}

impl Synth<'_, '_> {
    fn expired(&mut self) -> bool {
        if self.meter.is_exhausted() {
            self.stats.timed_out = true;
        }
        self.stats.timed_out
    }

    fn holds(&mut self, p: &[i64]) -> bool {
        self.stats.samples = self.stats.samples.saturating_add(1);
        self.meter.charge(budget::SAMPLE_STEP);
        self.spec.holds(p)
    }

    fn in_box(&self, p: &[i64]) -> bool {
        p.iter()
            .zip(&self.vars)
            .all(|(x, v)| v.lo <= *x && *x <= v.hi)
    }

    fn in_domain(&self, p: &[i64]) -> bool {
        self.in_box(p) && self.in_class(p) && self.spec.domain(p)
    }

    /// Adds a sample point (in the domain) to the spec-true or spec-false set.
    fn add_point(&mut self, p: Vec<i64>) {
        if self.in_domain(&p) && !self.seen.contains(&p) {
            self.seen.insert(p.clone());
            if self.holds(&p) {
                self.pos.push(p);
            } else {
                self.neg.push(p);
            }
        }
    }

    fn smt_clause(&mut self, extra: &[Bool]) -> Check {
        self.stats.clause_queries += 1;
        let r = self.smt.check(self.meter, extra);
        if matches!(r, Check::Unknown) && self.meter.is_exhausted() {
            self.stats.timed_out = true;
        }
        r
    }

    fn run(&mut self) -> Outcome {
        let t = Instant::now();
        self.detect_strides();
        self.initial_samples();
        if self.pos.is_empty() {
            // Sampling missed the spec: ask Z3 for one point where it holds.
            self.stats.literal_queries += 1;
            let spec = self.smt.spec.not();
            match self.smt.check(self.meter, &[spec]) {
                // The encoding may over-approximate the program (abstract
                // terms), so a model is only a candidate: evaluate it.
                Check::Sat(p) if self.holds(&p) => {
                    self.seen.insert(p.clone());
                    self.pos.push(p);
                }
                Check::Sat(_) | Check::Unsat => {
                    self.literal_time += t.elapsed();
                    return Outcome::NotFound;
                }
                Check::Unknown => {
                    self.literal_time += t.elapsed();
                    self.stats.timed_out = self.meter.is_exhausted();
                    return if self.stats.timed_out {
                        Outcome::Timeout
                    } else {
                        Outcome::NotFound
                    };
                }
            }
        }
        if let Some(d) = self.try_hints() {
            self.literal_time += t.elapsed();
            return Outcome::Found(d);
        }
        let classes = self.probe_classes();
        let max = self.spec.max_clauses().max(1);
        if classes.len() < max {
            self.find_literals();
        }
        self.literal_time += t.elapsed();
        if std::env::var_os("LANES_CEGIS_DEBUG").is_some() {
            let names: Vec<String> = self.vars.iter().map(|v| v.name.clone()).collect();
            eprintln!(
                "cegis: {} pos, {} neg samples; {} literals after {:?}:",
                self.pos.len(),
                self.neg.len(),
                self.lits.len(),
                t.elapsed()
            );
            for l in self.lits.iter().take(24) {
                eprintln!("  {}", l.display(&names));
            }
        }
        let dnf = self.build_dnf(classes);
        if !dnf.is_empty() {
            let clauses = dnf
                .into_iter()
                .map(|c| {
                    let mut lits: Vec<(Literal, bool)> = c
                        .into_iter()
                        .map(|(i, neg)| (self.lits[i].clone(), neg))
                        .collect();
                    lits.sort_by_key(literal_order);
                    Clause(lits)
                })
                .collect();
            Outcome::Found(Dnf(clauses))
        } else if self.stats.timed_out {
            Outcome::Timeout
        } else {
            Outcome::NotFound
        }
    }

    // -- sampling ---------------------------------------------------------

    /// The domain's lattice per var: the gcd of differences of domain samples.
    fn detect_strides(&mut self) {
        let mut found: Vec<Vec<i64>> = Vec::new();
        let ranges: Vec<(i64, i64)> = self.vars.iter().map(|v| (v.lo, v.hi)).collect();
        for _ in 0..4000 {
            if found.len() >= 64 || self.expired() {
                break;
            }
            let p: Vec<i64> = ranges
                .iter()
                .map(|&(lo, hi)| self.rng.range(lo, hi))
                .collect();
            if self.spec.domain(&p) {
                found.push(p);
            }
        }
        if found.len() < 8 {
            return;
        }
        for v in 0..self.n {
            let g = found
                .iter()
                .fold(0i128, |g, p| gcd(g, p[v] as i128 - found[0][v] as i128));
            if (2..=1 << 20).contains(&g) {
                self.stride[v] = g as i64;
                self.offset[v] = (found[0][v] as i128).rem_euclid(g) as i64;
            }
        }
    }

    /// `x` moved onto the domain lattice of var `v` and into its range.
    fn snap(&self, v: usize, x: i64) -> i64 {
        let (s, o) = (self.stride[v] as i128, self.offset[v] as i128);
        let (lo, hi) = (self.vars[v].lo as i128, self.vars[v].hi as i128);
        let mut y = o + (x as i128 - o).div_euclid(s) * s;
        if y < lo {
            y += s;
        }
        if y > hi {
            y = x as i128;
        }
        y.clamp(lo, hi) as i64
    }

    fn interesting(&self, v: usize) -> Vec<i64> {
        let (lo, hi) = (self.vars[v].lo as i128, self.vars[v].hi as i128);
        let mid = (lo + hi).div_euclid(2);
        let mut c: Vec<i128> = vec![lo, lo + 1, lo + 2, hi, hi - 1, hi - 2, mid, mid + 1];
        c.extend(-8..=8);
        for k in 2..=20 {
            let p = 1i128 << k;
            c.extend([p - 1, p, p + 1, -p]);
        }
        let mut out: Vec<i64> = c
            .into_iter()
            .filter(|x| lo <= *x && *x <= hi)
            .map(|x| self.snap(v, x as i64))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn initial_samples(&mut self) {
        let interesting: Vec<Vec<i64>> = (0..self.n).map(|v| self.interesting(v)).collect();
        // Boundary combinations: lo, hi, 0 and the middle of every var.
        if self.n <= 3 {
            let corners: Vec<Vec<i64>> = (0..self.n)
                .map(|v| {
                    let var = &self.vars[v];
                    let mid = ((var.lo as i128 + var.hi as i128).div_euclid(2)) as i64;
                    let mut c = vec![var.lo, var.hi, 0i64.clamp(var.lo, var.hi), mid];
                    c = c.into_iter().map(|x| self.snap(v, x)).collect();
                    c.dedup();
                    c
                })
                .collect();
            let mut pts: Vec<Vec<i64>> = vec![vec![]];
            for c in &corners {
                pts = pts
                    .into_iter()
                    .flat_map(|p| {
                        c.iter().map(move |x| {
                            let mut q = p.clone();
                            q.push(*x);
                            q
                        })
                    })
                    .collect();
            }
            for p in pts {
                self.add_point(p);
            }
        }
        let mut tries = 0;
        let want = self.seen.len() + RANDOM_SAMPLES;
        while self.seen.len() < want && tries < 3 * RANDOM_SAMPLES && !self.expired() {
            tries += 1;
            let p: Vec<i64> = (0..self.n)
                .map(|v| {
                    let (lo, hi) = (self.vars[v].lo, self.vars[v].hi);
                    let x = match self.rng.next() % 4 {
                        0 | 1 => self.rng.range(lo, hi),
                        2 => interesting[v][self.rng.below(interesting[v].len() as u128) as usize],
                        _ => {
                            let b = interesting[v]
                                [self.rng.below(interesting[v].len() as u128) as usize];
                            (b as i128 + self.rng.range(-16, 16) as i128)
                                .clamp(lo as i128, hi as i128) as i64
                        }
                    };
                    self.snap(v, x)
                })
                .collect();
            self.add_point(p);
        }
    }

    // -- literal discovery ----------------------------------------------

    /// Adds a literal (canonical octagon form: first coefficient +1).
    /// Returns its index.
    fn add_literal(&mut self, l: Literal) -> Option<usize> {
        match &l {
            Literal::Modulus { var, m, r } => {
                // Trivial or empty on the domain's lattice: useless.
                let (s, o) = (self.stride[*var] as i128, self.offset[*var] as i128);
                let g = gcd(*m as i128, s);
                if s % *m as i128 == 0 || (*r as i128 - o) % g != 0 {
                    return None;
                }
            }
            Literal::Octagon { terms, c } => {
                if self.class.is_none() && terms.len() == 1 && self.explained_line(terms[0].0, *c) {
                    return None;
                }
            }
        }
        if self.lit_set.insert(l.clone()) {
            self.lits.push(l);
            Some(self.lits.len() - 1)
        } else {
            self.lits.iter().position(|x| *x == l)
        }
    }

    /// During discovery on the full lattice: whether the line `v <= c` lies
    /// on a residue-class boundary of a modulus pattern found for `v`.
    fn explained_line(&self, v: usize, c: i64) -> bool {
        let Some((m, b1, b2)) = self.explained[v] else {
            return false;
        };
        if !self.discovering {
            return false;
        }
        let u = (c as i128 - self.offset[v] as i128).div_euclid(self.stride[v] as i128);
        let r = u.rem_euclid(m);
        r == b1 || r == b2
    }

    /// Records a modulus pattern of `v` (lattice units: period `m`, line
    /// residues `b1`, `b2`) and drops the lines it explains but the outermost.
    fn explain(&mut self, v: usize, m: i128, b1: i128, b2: i128) {
        if self.explained[v].is_some() {
            return;
        }
        self.explained[v] = Some((m, b1, b2));
        let mut units: Vec<(usize, i128)> = Vec::new();
        for (i, l) in self.lits.iter().enumerate() {
            if let Literal::Octagon { terms, c } = l {
                if terms.len() == 1 && terms[0].0 == v && self.explained_line(v, *c) {
                    units.push((
                        i,
                        (*c as i128 - self.offset[v] as i128).div_euclid(self.stride[v] as i128),
                    ));
                }
            }
        }
        let (Some(umin), Some(umax)) = (
            units.iter().map(|x| x.1).min(),
            units.iter().map(|x| x.1).max(),
        ) else {
            return;
        };
        let drop: FxHashSet<usize> = units
            .iter()
            .filter(|x| x.1 != umin && x.1 != umax)
            .map(|x| x.0)
            .collect();
        let mut i = 0;
        self.lits.retain(|_| {
            i += 1;
            !drop.contains(&(i - 1))
        });
        self.lit_set = self.lits.iter().cloned().collect();
    }

    /// `sum(terms) <= c` canonicalised; `None` if it does not fit the grammar.
    fn octagon(terms: &[(usize, i64)], c: i128) -> Option<Literal> {
        let mut t: Vec<(usize, i64)> = terms.iter().copied().filter(|x| x.1 != 0).collect();
        t.sort_unstable();
        if t.is_empty() || t.len() > 2 || t.windows(2).any(|w| w[0].0 == w[1].0) {
            return None;
        }
        let (t, c) = if t[0].1 < 0 {
            (t.iter().map(|&(v, k)| (v, -k)).collect(), -c - 1)
        } else {
            (t, c)
        };
        let c = i64::try_from(c).ok()?;
        Some(Literal::Octagon { terms: t, c })
    }

    fn separated(&self, p: &[i64], q: &[i64]) -> bool {
        self.lits.iter().any(|l| l.eval(p) != l.eval(q))
    }

    fn find_literals(&mut self) {
        self.discovering = true;
        self.modulus_from_samples();
        self.edge_scan();
        self.pair_loop(MAX_PAIRS);
        if self.lits.len() > LITERAL_THRESHOLD {
            self.modulus_from_lines(true);
        }
        // The paper's recursion into a modulus literal's residue class: edges
        // on the sub-lattice `v ≡ r (mod m)`, stepping `m` in `v`.
        let classes: Vec<(usize, i64, i64)> = self
            .lits
            .iter()
            .filter_map(|l| match *l {
                Literal::Modulus { var, m, r } => Some((var, m, r)),
                _ => None,
            })
            .take(MAX_MOD_LITERALS_PER_VAR)
            .collect();
        for (v, m, r) in classes {
            let (stride, offset) = (self.stride[v], self.offset[v]);
            self.stride[v] = m;
            self.offset[v] = r;
            self.class = Some((v, m, r));
            self.pair_loop(MAX_PAIRS / 4);
            self.class = None;
            self.stride[v] = stride;
            self.offset[v] = offset;
        }
        self.discovering = false;
    }

    /// Lines at the border points among the samples (every sample is
    /// checked for edges). A line produced by more border samples ranks
    /// first; only confirmed lines are kept, at most `LITERAL_THRESHOLD`.
    fn edge_scan(&mut self) {
        // Literal -> (support, confirmed, first seen).
        let mut found: rustc_hash::FxHashMap<Literal, (usize, bool, usize)> =
            rustc_hash::FxHashMap::default();
        let k = self.pos.len().max(self.neg.len());
        let mut order = 0;
        for i in 0..k {
            for x in [self.pos.get(i).cloned(), self.neg.get(i).cloned()]
                .into_iter()
                .flatten()
            {
                if self.expired() {
                    return;
                }
                for (terms, c) in self.candidates(&x) {
                    let Some(l) = Self::octagon(&terms, c) else {
                        continue;
                    };
                    if self.lit_set.contains(&l) {
                        continue;
                    }
                    order += 1;
                    let e = found.entry(l.clone()).or_insert((0, false, order));
                    e.0 += 1;
                    if !e.1 && self.confirmed(&x, &terms) {
                        found.get_mut(&l).unwrap().1 = true;
                    }
                }
            }
        }
        let mut ranked: Vec<(Literal, (usize, bool, usize))> =
            found.into_iter().filter(|x| x.1 .1).collect();
        ranked.sort_by_key(|x| (std::cmp::Reverse(x.1 .0), x.1 .2));
        let mut added = 0;
        for (l, _) in ranked {
            if added >= LITERAL_THRESHOLD {
                break;
            }
            if self.add_literal(l).is_some() {
                added += 1;
                self.modulus_from_lines(false);
            }
        }
    }

    /// Pairs of a spec-false sample and a nearby spec-true one (within the
    /// current residue class, if any) that no literal separates yet get a
    /// literal from a border point between them.
    fn pair_loop(&mut self, max_pairs: usize) {
        let pos: Vec<usize> = (0..self.pos.len())
            .filter(|&i| self.in_class(&self.pos[i]))
            .collect();
        let mut order: Vec<usize> = (0..self.neg.len())
            .filter(|&i| self.in_class(&self.neg[i]))
            .collect();
        if pos.is_empty() {
            return;
        }
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i as u128 + 1) as usize;
            order.swap(i, j);
        }
        order.truncate(max_pairs);
        for qi in order {
            if self.expired() || self.lits.len() > 2 * LITERAL_THRESHOLD {
                break;
            }
            let q = self.neg[qi].clone();
            let p = self.partner(&q, &pos);
            if !self.separated(&p, &q) {
                self.refine(&p, &q);
                self.modulus_from_lines(false);
            }
        }
    }

    fn in_class(&self, p: &[i64]) -> bool {
        self.class.is_none_or(|(v, m, r)| p[v].rem_euclid(m) == r)
    }

    /// The nearest of a few random spec-true samples (indices `pos`).
    fn partner(&mut self, q: &[i64], pos: &[usize]) -> Vec<i64> {
        let mut best: Option<(i128, usize)> = None;
        for _ in 0..16 {
            let i = pos[self.rng.below(pos.len() as u128) as usize];
            let d: i128 = self.pos[i]
                .iter()
                .zip(q)
                .zip(&self.vars)
                .map(|((a, b), v)| {
                    let w = (v.hi as i128 - v.lo as i128).max(1);
                    ((*a as i128 - *b as i128).abs() << 20) / w
                })
                .sum();
            if best.is_none_or(|b| d < b.0) {
                best = Some((d, i));
            }
        }
        self.pos[best.unwrap().1].clone()
    }

    /// Bisects between `p` and `q` (spec differs) to two neighbouring
    /// points (one lattice step in var `v`) where the spec differs.
    fn border_pair(&mut self, p: &[i64], q: &[i64]) -> Option<(Vec<i64>, Vec<i64>, usize)> {
        let n = self.n;
        let unit = |s: &Self, x: &[i64]| -> Vec<i128> {
            (0..n)
                .map(|v| (x[v] as i128 - s.offset[v] as i128).div_euclid(s.stride[v] as i128))
                .collect()
        };
        let (up, uq) = (unit(self, p), unit(self, q));
        let k_max: i128 = (0..n).map(|v| (uq[v] - up[v]).abs()).max().unwrap_or(0);
        if k_max == 0 {
            return None;
        }
        let at = |s: &Self, k: i128| -> Vec<i64> {
            (0..n)
                .map(|v| {
                    let d = uq[v] - up[v];
                    // round(d * k / k_max); |d|, k <= k_max <= 2^64.
                    let step = match (2 * d).checked_mul(k) {
                        Some(x) => (x + k_max).div_euclid(2 * k_max),
                        None => (d as f64 * (k as f64 / k_max as f64)).round() as i128,
                    };
                    let u = up[v] + step;
                    (s.offset[v] as i128 + u * s.stride[v] as i128) as i64
                })
                .collect()
        };
        let sp = self.holds(p);
        let (mut lo, mut hi) = (0i128, k_max);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let x = at(self, mid);
            if self.holds(&x) == sp {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (a, b) = (at(self, lo), at(self, hi));
        let mut cur = a;
        let mut s_cur = sp;
        for v in 0..n {
            if cur[v] != b[v] {
                let mut nxt = cur.clone();
                nxt[v] = b[v];
                let s_nxt = self.holds(&nxt);
                if s_nxt != s_cur {
                    return Some((cur, nxt, v));
                }
                cur = nxt;
                s_cur = s_nxt;
            }
        }
        None
    }

    /// A neighbour of `x` one lattice step along var `v` (`dir` = ±1), if in
    /// the box and domain.
    fn step(&self, x: &[i64], v: usize, dir: i64) -> Option<Vec<i64>> {
        let mut y = x.to_vec();
        y[v] = y[v].checked_add(dir * self.stride[v])?;
        self.in_domain(&y).then_some(y)
    }

    /// Edge signature at `x`: +1 for an up edge, -1 for a down edge, 0 none.
    fn edges(&mut self, x: &[i64]) -> Vec<i64> {
        let s0 = self.holds(x);
        (0..self.n)
            .map(|v| {
                for dir in [1, -1] {
                    if let Some(y) = self.step(x, v, dir) {
                        if self.holds(&y) != s0 {
                            return dir;
                        }
                    }
                }
                0
            })
            .collect()
    }

    /// Whether the spec flips at `x` when crossing the line `terms` (in the
    /// direction of each coefficient).
    fn crosses(&mut self, x: &[i64], terms: &[(usize, i64)]) -> bool {
        let s0 = self.holds(x);
        for &(v, k) in terms {
            match self.step(x, v, k.signum()) {
                Some(y) if self.holds(&y) != s0 => {}
                _ => return false,
            }
        }
        true
    }

    /// A line through the border point `x` is confirmed by a neighbour along it.
    fn confirmed(&mut self, x: &[i64], terms: &[(usize, i64)]) -> bool {
        let mut dirs: Vec<Vec<i64>> = Vec::new();
        match terms {
            [(v, _)] => {
                for w in (0..self.n).filter(|w| w != v && self.vars[*w].lo < self.vars[*w].hi) {
                    let mut d = vec![0; self.n];
                    d[w] = self.stride[w];
                    dirs.push(d);
                }
                if dirs.is_empty() {
                    return true;
                }
            }
            [(v, a), (w, b)] => {
                let (sv, sw) = (self.stride[*v] as i128, self.stride[*w] as i128);
                let l = sv / gcd(sv, sw) * sw;
                let mut d = vec![0; self.n];
                d[*v] = l as i64;
                d[*w] = -a * b * l as i64;
                dirs.push(d);
            }
            _ => return false,
        }
        for d in dirs {
            for sign in [1i64, -1] {
                let y: Option<Vec<i64>> = x
                    .iter()
                    .zip(&d)
                    .map(|(a, b)| a.checked_add(sign * b))
                    .collect();
                if let Some(y) = y {
                    if self.in_domain(&y) && self.crosses(&y, terms) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Candidate lines at a border point `x`: the full edge normal (≤ 2
    /// vars), every single edge var, and pairs of edge vars.
    fn candidates(&mut self, x: &[i64]) -> Vec<(Vec<(usize, i64)>, i128)> {
        let e = self.edges(x);
        let ev: Vec<usize> = (0..self.n).filter(|v| e[*v] != 0).collect();
        let mut sets: Vec<Vec<usize>> = Vec::new();
        if ev.len() <= 2 && !ev.is_empty() {
            sets.push(ev.clone());
        }
        for (i, &v) in ev.iter().enumerate() {
            sets.push(vec![v]);
            if ev.len() > 2 {
                for &w in &ev[i + 1..] {
                    sets.push(vec![v, w]);
                }
            }
        }
        sets.dedup();
        sets.into_iter()
            .map(|s| {
                let terms: Vec<(usize, i64)> = s.iter().map(|&v| (v, e[v])).collect();
                let c = octagon_sum(&terms, x);
                (terms, c)
            })
            .collect()
    }

    /// Finds literals separating `p` and `q` (spec differs) from a border
    /// point between them. Returns whether one now separates them.
    fn refine(&mut self, p: &[i64], q: &[i64]) -> bool {
        let mut cands = Vec::new();
        let mut axis = None;
        if let Some((a, b, v)) = self.border_pair(p, q) {
            axis = Some((a.clone(), v));
            for x in [a, b] {
                for (terms, c) in self.candidates(&x) {
                    let ok = self.confirmed(&x, &terms);
                    cands.push((terms, c, ok));
                }
            }
        }
        let mut separates = false;
        let mut unconfirmed: Vec<Literal> = Vec::new();
        for (terms, c, ok) in cands {
            let Some(l) = Self::octagon(&terms, c) else {
                continue;
            };
            if ok {
                let sep = l.eval(p) != l.eval(q);
                separates |= self.add_literal(l).is_some() && sep;
            } else if l.eval(p) != l.eval(q) {
                unconfirmed.push(l);
            }
        }
        if separates {
            return true;
        }
        // Corner artifacts are kept only when nothing else separates the pair.
        unconfirmed.sort_by_key(|l| l.cost());
        for l in unconfirmed {
            if self.add_literal(l).is_some() {
                return true;
            }
        }
        // Last resort: an axis-parallel line between p and q.
        let v = match axis {
            Some((_, v)) if p[v] != q[v] => v,
            _ => match (0..self.n).find(|v| p[*v] != q[*v]) {
                Some(v) => v,
                None => return false,
            },
        };
        let c = p[v].min(q[v]) as i128;
        Self::octagon(&[(v, 1)], c).is_some_and(|l| self.add_literal(l).is_some())
    }

    /// A random point of the box and domain with `v ≡ r (mod m)` for
    /// every `(v, m, r)` of `class`.
    fn class_point(&mut self, class: &[(usize, i64, i64)]) -> Option<Vec<i64>> {
        let interesting: Vec<Vec<i64>> = (0..self.n).map(|v| self.interesting(v)).collect();
        for _ in 0..8 {
            let mut p: Vec<i64> = (0..self.n)
                .map(|v| {
                    let (lo, hi) = (self.vars[v].lo, self.vars[v].hi);
                    if self.rng.next().is_multiple_of(4) {
                        interesting[v][self.rng.below(interesting[v].len() as u128) as usize]
                    } else {
                        self.rng.range(lo, hi)
                    }
                })
                .collect();
            for &(v, m, r) in class {
                let (lo, hi) = (self.vars[v].lo as i128, self.vars[v].hi as i128);
                let x = p[v] as i128;
                let mut y = x - (x - r as i128).rem_euclid(m as i128);
                if y < lo {
                    y += m as i128;
                }
                if y > hi {
                    return None;
                }
                p[v] = y as i64;
            }
            if self.in_domain(&p) {
                return Some(p);
            }
        }
        None
    }

    /// Residue classes of the [`Spec::moduli`] (one var, or two with the
    /// second at residue 0) on which every sampled point satisfies the
    /// spec: their modulus literals are added and their points become the
    /// first seeds of the boolean structure (a periodic clause covers a
    /// share of every box, where a bound relating an id to a parameter
    /// covers a share that shrinks as the box grows).
    fn probe_classes(&mut self) -> Vec<Lits> {
        const K: usize = 48;
        let mut ms: Vec<i64> = self
            .spec
            .moduli()
            .into_iter()
            .filter(|m| (2..=MAX_MODULUS).contains(m))
            .collect();
        ms.sort_unstable();
        ms.dedup();
        if ms.is_empty() || self.neg.is_empty() {
            return Vec::new();
        }
        let vs: Vec<usize> = (0..self.n)
            .filter(|&v| self.vars[v].lo < self.vars[v].hi)
            .collect();
        let mut classes: Vec<Vec<(usize, i64, i64)>> = Vec::new();
        for &v in &vs {
            for &m in &ms {
                for r in 0..m {
                    classes.push(vec![(v, m, r)]);
                }
            }
        }
        for &v in &vs {
            for &w in &vs {
                if v == w {
                    continue;
                }
                for &m in &ms {
                    for &mw in &ms {
                        for r in 0..m {
                            classes.push(vec![(v, m, r), (w, mw, 0)]);
                        }
                    }
                }
            }
        }
        // Larger classes first: smaller moduli, residue 0.
        classes.sort_by_key(|c| {
            (
                c.iter().map(|x| x.1).product::<i64>(),
                c.iter().filter(|x| x.2 != 0).count(),
            )
        });
        let mut found: Vec<Vec<(usize, i64, i64)>> = Vec::new();
        let mut proven: Vec<Lits> = Vec::new();
        let mut seeds: Vec<Vec<i64>> = Vec::new();
        for class in classes {
            if found.len() >= 2 || self.expired() {
                break;
            }
            // A coarser class already found contains this one.
            let implied = found.iter().any(|f| {
                f.iter().all(|&(v, m, r)| {
                    class
                        .iter()
                        .any(|&(w, m2, r2)| w == v && m2 % m == 0 && r2.rem_euclid(m) == r)
                })
            });
            if implied {
                continue;
            }
            let mut pts = Vec::new();
            let mut ok = true;
            for _ in 0..K {
                let Some(p) = self.class_point(&class) else {
                    continue;
                };
                if !self.holds(&p) {
                    ok = false;
                    break;
                }
                pts.push(p);
            }
            if !ok || pts.len() < K / 2 {
                continue;
            }
            // Samples can be lucky where the spec mostly holds: Z3 decides.
            let lits: Option<Lits> = class
                .iter()
                .map(|&(v, m, r)| {
                    self.add_literal(Literal::Modulus { var: v, m, r })
                        .map(|i| (i, false))
                })
                .collect();
            let Some(lits) = lits else { continue };
            if let Check::Unsat = self.prove(&lits) {
                found.push(class);
                proven.push(lits);
                seeds.extend(pts);
            }
        }
        for p in &seeds {
            self.seen.insert(p.clone());
        }
        seeds.append(&mut self.pos);
        self.pos = seeds;
        proven
    }

    /// Modulus literals from a cheap periodicity test on the samples: all
    /// spec-true samples in one residue class of a var (gcd of their
    /// differences), or a residue class on which the spec always holds.
    fn modulus_from_samples(&mut self) {
        for v in 0..self.n {
            let (lo, hi) = (self.vars[v].lo as i128, self.vars[v].hi as i128);
            let width = hi - lo + 1;
            let stride = self.stride[v] as i128;
            let mut found: Vec<(i64, i64)> = Vec::new();
            // Necessary: every true sample has v ≡ r (mod g).
            let mut vals: Vec<i64> = self.pos.iter().map(|p| p[v]).collect();
            vals.sort_unstable();
            vals.dedup();
            if vals.len() >= 3 {
                let g = vals
                    .iter()
                    .fold(0i128, |g, x| gcd(g, *x as i128 - vals[0] as i128));
                if g >= 2 && g <= width / 2 && g % stride == 0 && g != stride {
                    let r = (vals[0] as i128).rem_euclid(g) as i64;
                    let g = g as i64;
                    if self.neg.iter().any(|q| q[v].rem_euclid(g) != r) {
                        found.push((g, r));
                    }
                }
            }
            // Sufficient: a class where every sample holds.
            let mut m = 2 * stride;
            while m <= (MAX_MODULUS as i128).max(2 * stride) && m <= width / 3 {
                let mi = m as i64;
                for r in 0..mi {
                    if found.len() >= MAX_MOD_LITERALS_PER_VAR {
                        break;
                    }
                    if found
                        .iter()
                        .any(|&(m2, r2)| mi % m2 == 0 && r.rem_euclid(m2) == r2)
                    {
                        continue;
                    }
                    let in_class = |p: &Vec<i64>| p[v].rem_euclid(mi) == r;
                    if self.neg.iter().any(in_class) {
                        continue;
                    }
                    let mut cv: Vec<i64> = self
                        .pos
                        .iter()
                        .filter(|p| in_class(p))
                        .map(|p| p[v])
                        .collect();
                    if cv.len() < 6 {
                        continue;
                    }
                    cv.sort_unstable();
                    cv.dedup();
                    if cv.len() >= 3 && !self.neg.is_empty() {
                        found.push((mi, r));
                    }
                }
                m += stride;
            }
            for (m, r) in found {
                if self
                    .add_literal(Literal::Modulus { var: v, m, r })
                    .is_some()
                {
                    // Lines at the class boundaries, in lattice units.
                    let mu = m as i128 / stride;
                    let ru = (r as i128 - self.offset[v] as i128)
                        .div_euclid(stride)
                        .rem_euclid(mu);
                    self.explain(v, mu, (ru - 1).rem_euclid(mu), ru);
                }
            }
        }
    }

    /// The paper's DETECT_MODULUS: a var with many parallel lines `v <= c`
    /// whose constants fall in two residue classes `b1`, `b2` mod `m` (at
    /// least 3 lines each) gets modulus literals for the shorter run of
    /// residues between them; the lines it explains are dropped (except the
    /// outermost ones).
    fn modulus_from_lines(&mut self, force: bool) {
        if self.class.is_some() {
            return;
        }
        for v in 0..self.n {
            let last = self.line_checked[v];
            if last == usize::MAX {
                continue;
            }
            // Line constants in lattice units: `v <= c` is `v <= offset + u * stride`.
            let (stride, offset) = (self.stride[v] as i128, self.offset[v] as i128);
            let mut us: Vec<i128> = self
                .lits
                .iter()
                .filter_map(|l| match l {
                    Literal::Octagon { terms, c } if terms.len() == 1 && terms[0].0 == v => {
                        Some((*c as i128 - offset).div_euclid(stride))
                    }
                    _ => None,
                })
                .collect();
            us.sort_unstable();
            us.dedup();
            if us.len() < LINE_THRESHOLD || (us.len() <= last && !force) {
                continue;
            }
            self.line_checked[v] = us.len();
            for m in 3..=(MAX_MODULUS as i128 / stride) {
                // The two most frequent residues; a few other lines (the
                // ends of the pattern) are tolerated.
                let mut count: std::collections::BTreeMap<i128, usize> = Default::default();
                for u in &us {
                    *count.entry(u.rem_euclid(m)).or_default() += 1;
                }
                let mut top: Vec<(usize, i128)> = count.iter().map(|(r, c)| (*c, *r)).collect();
                top.sort_by_key(|x| (std::cmp::Reverse(x.0), x.1));
                if top.len() < 2 || top[1].0 < 3 {
                    continue;
                }
                let outliers = us.len() - top[0].0 - top[1].0;
                if outliers > (us.len() / 8).max(1) || (outliers > 0 && top.len() as i128 >= m) {
                    continue;
                }
                let (b1, b2) = (top[0].1.min(top[1].1), top[0].1.max(top[1].1));
                self.line_checked[v] = usize::MAX;
                // Residues in (b1, b2] and in (b2, b1] (cyclic).
                let first: Vec<i128> = (b1 + 1..=b2).collect();
                let second: Vec<i128> = (b2 + 1..b1 + 1 + m).map(|r| r % m).collect();
                let run = if first.len() <= second.len() {
                    first
                } else {
                    second
                };
                if run.len() > MAX_MOD_LITERALS_PER_VAR {
                    break;
                }
                let mx = m * stride;
                for r in run {
                    let (Ok(mm), Ok(rr)) = (
                        i64::try_from(mx),
                        i64::try_from((offset + r * stride).rem_euclid(mx)),
                    ) else {
                        continue;
                    };
                    self.add_literal(Literal::Modulus {
                        var: v,
                        m: mm,
                        r: rr,
                    });
                }
                self.explain(v, m, b1, b2);
                break;
            }
        }
    }

    // -- boolean structure ----------------------------------------------

    fn clause_true(&self, c: &Lits, p: &[i64]) -> bool {
        c.iter().all(|&(i, neg)| self.lits[i].eval(p) != neg)
    }

    fn encode_lits(&self, c: &Lits) -> Bool {
        let clause = Clause(
            c.iter()
                .map(|&(i, neg)| (self.lits[i].clone(), neg))
                .collect(),
        );
        clause.encode(&self.smt.vars)
    }

    /// The spec's lemmas for the moduli of the modulus literals of `cs`.
    fn lemmas(&self, cs: &[&Lits]) -> Vec<Bool> {
        let mut moduli: Vec<i64> = cs
            .iter()
            .flat_map(|c| c.iter())
            .filter_map(|&(i, _)| match self.lits[i] {
                Literal::Modulus { m, .. } => Some(m),
                _ => None,
            })
            .collect();
        moduli.sort_unstable();
        moduli.dedup();
        if moduli.is_empty() {
            return Vec::new();
        }
        self.spec
            .lemmas(&self.smt.vars, &moduli)
            .into_iter()
            .collect()
    }

    /// Z3: does `c` imply the spec? `Sat` gives a counterexample (added to
    /// the spec-false samples).
    fn prove(&mut self, c: &Lits) -> Check {
        let e = self.encode_lits(c);
        let spec = self.smt.spec.clone();
        let mut extra = vec![e, spec];
        extra.extend(self.lemmas(&[c]));
        let r = self.smt_clause(&extra);
        if let Check::Sat(q) = &r {
            if self.seen.insert(q.clone()) {
                self.neg.push(q.clone());
            } else if !self.neg.contains(q) {
                // A sample thought spec-true is a counterexample: keep it
                // as spec-false too (concrete `holds` disagrees with `encode`).
                self.neg.push(q.clone());
            }
        }
        r
    }

    /// The first hint that covers a spec-true sample, no spec-false one,
    /// and whose clauses are proven.
    fn try_hints(&mut self) -> Option<Dnf> {
        let hints = self.hints;
        'hint: for h in hints {
            let Some(dnf) = h.remap(&self.vars) else {
                continue;
            };
            if dnf.0.is_empty()
                || !self.pos.iter().any(|p| dnf.eval(p))
                || self.neg.iter().any(|p| dnf.eval(p))
            {
                continue;
            }
            for c in &dnf.0 {
                if self.expired() {
                    return None;
                }
                if !matches!(self.prove_clause(c), Check::Unsat) {
                    continue 'hint;
                }
            }
            self.stats.hinted = true;
            return Some(dnf);
        }
        None
    }

    /// Z3: does clause `c` (not made of `self.lits`) imply the spec?
    fn prove_clause(&mut self, c: &Clause) -> Check {
        let mut moduli: Vec<i64> =
            c.0.iter()
                .filter_map(|(l, _)| match l {
                    Literal::Modulus { m, .. } => Some(*m),
                    _ => None,
                })
                .collect();
        moduli.sort_unstable();
        moduli.dedup();
        let mut extra = vec![c.encode(&self.smt.vars), self.smt.spec.clone()];
        if !moduli.is_empty() {
            extra.extend(self.spec.lemmas(&self.smt.vars, &moduli));
        }
        let r = self.smt_clause(&extra);
        if let Check::Sat(q) = &r {
            if self.seen.insert(q.clone()) {
                self.neg.push(q.clone());
            }
        }
        r
    }

    /// `proven`: clauses proven already (periodic classes), made prime and
    /// taken first.
    fn build_dnf(&mut self, proven: Vec<Lits>) -> Vec<Lits> {
        let max_clauses = self.spec.max_clauses().max(1);
        let mut dnf: Vec<Lits> = Vec::new();
        for mut c in proven {
            if dnf.len() >= max_clauses || self.expired() {
                break;
            }
            self.drop_literals(&mut c);
            if !dnf.iter().any(|d| self.implies(&c, d)) {
                dnf.push(c);
            }
        }
        let mut skip: FxHashSet<Vec<i64>> = FxHashSet::default();
        let mut failures = 0;
        let mut smt_seeds = 0;
        let mut skipped_any = false;
        while dnf.len() < max_clauses && failures < MAX_SEED_FAILURES && !self.expired() {
            let seed = self
                .pos
                .iter()
                .find(|p| !skip.contains(*p) && !dnf.iter().any(|c| self.clause_true(c, p)))
                .cloned();
            let (seed, from_smt) = match seed {
                Some(s) => (s, false),
                None => {
                    if skipped_any || smt_seeds >= MAX_SMT_SEEDS {
                        break;
                    }
                    smt_seeds += 1;
                    // Query (31): a point where the spec holds and p does not.
                    let p = self.dnf_formula(&dnf);
                    let spec = self.smt.spec.not();
                    match self.smt_clause(&[spec, p.not()]) {
                        Check::Sat(s) if self.holds(&s) => {
                            self.seen.insert(s.clone());
                            self.pos.push(s.clone());
                            (s, true)
                        }
                        // A model of the abstraction, not of the spec.
                        Check::Sat(s) => {
                            if self.seen.insert(s.clone()) {
                                self.neg.push(s);
                            }
                            failures += 1;
                            continue;
                        }
                        Check::Unsat => {
                            self.stats.exact = true;
                            break;
                        }
                        Check::Unknown => break,
                    }
                }
            };
            // Required gain per literal of the clause (simple clauses first).
            let min_gain = if from_smt || dnf.is_empty() {
                0
            } else {
                (self.pos.len() * MIN_GAIN_PERCENT / 100).max(1)
            };
            let built = self.build_clause(&seed, min_gain, &dnf);
            let clause = match built {
                Built::Proven(c) => c,
                Built::LowGain(c) => {
                    for p in self.pos.iter().filter(|p| self.clause_true(&c, p)) {
                        skip.insert(p.clone());
                    }
                    skip.insert(seed);
                    skipped_any = true;
                    failures += 1;
                    continue;
                }
                Built::Failed => {
                    skip.insert(seed);
                    skipped_any = true;
                    failures += 1;
                    continue;
                }
            };
            let covered: Vec<usize> = (0..self.pos.len())
                .filter(|&i| self.clause_true(&clause, &self.pos[i]))
                .collect();
            // Proven: keep unless it fell well short of the estimate.
            if self.gain(&clause, &dnf) < (min_gain * clause.len() / 2).max(1) {
                for i in covered {
                    skip.insert(self.pos[i].clone());
                }
                skip.insert(seed);
                skipped_any = true;
                failures += 1;
                continue;
            }
            failures = 0;
            // Drop earlier clauses the new one subsumes.
            let mut keep = Vec::new();
            for old in std::mem::take(&mut dnf) {
                if self.implies(&old, &clause) {
                    continue;
                }
                keep.push(old);
            }
            dnf = keep;
            dnf.push(clause);
        }
        // Exactness, when the seed loop stopped early: no spec-true point
        // outside the DNF.
        if !self.stats.exact && !dnf.is_empty() && !self.expired() {
            let p = self.dnf_formula(&dnf);
            let spec = self.smt.spec.not();
            if let Check::Unsat = self.smt_clause(&[spec, p.not()]) {
                self.stats.exact = true;
            }
        }
        // Greedy choices are myopic: rebuild each clause against what the
        // other clauses miss, and keep the rebuild if it covers more.
        if !self.stats.exact && dnf.len() > 1 {
            for k in 0..dnf.len() {
                if self.expired() {
                    break;
                }
                let others: Vec<Lits> = dnf
                    .iter()
                    .enumerate()
                    .filter(|x| x.0 != k)
                    .map(|x| x.1.clone())
                    .collect();
                let old = self.gain(&dnf[k], &others);
                let Some(seed) = self
                    .pos
                    .iter()
                    .find(|p| {
                        self.clause_true(&dnf[k], p)
                            && !others.iter().any(|c| self.clause_true(c, p))
                    })
                    .cloned()
                else {
                    continue;
                };
                if let Built::Proven(c) = self.build_clause(&seed, 0, &others) {
                    if self.gain(&c, &others) > old {
                        dnf[k] = c;
                    }
                }
            }
        }
        if !self.stats.exact && !dnf.is_empty() && !self.expired() {
            let p = self.dnf_formula(&dnf);
            let spec = self.smt.spec.not();
            if let Check::Unsat = self.smt_clause(&[spec, p.not()]) {
                self.stats.exact = true;
            }
        }
        // Larger clauses (by sampled coverage) first.
        let cov = |s: &Self, c: &Lits| s.pos.iter().filter(|p| s.clause_true(c, p)).count();
        let mut keyed: Vec<(usize, Lits)> = dnf.into_iter().map(|c| (cov(self, &c), c)).collect();
        keyed.sort_by_key(|x| std::cmp::Reverse(x.0));
        let mut dnf: Vec<Lits> = keyed.into_iter().map(|x| x.1).collect();
        // Drop clauses the others imply together, smallest first.
        let mut k = dnf.len();
        while k > 0 && dnf.len() > 1 && !self.expired() {
            k -= 1;
            let others: Vec<Lits> = dnf
                .iter()
                .enumerate()
                .filter(|x| x.0 != k)
                .map(|x| x.1.clone())
                .collect();
            let needed = self.pos.iter().any(|p| {
                self.clause_true(&dnf[k], p) && !others.iter().any(|c| self.clause_true(c, p))
            });
            if needed {
                continue;
            }
            let ck = self.encode_lits(&dnf[k]);
            let rest: Vec<Bool> = others.iter().map(|c| self.encode_lits(c)).collect();
            self.stats.clause_queries += 1;
            if let Check::Unsat = self.smt.check(self.meter, &[ck, Bool::or(&rest).not()]) {
                dnf.remove(k);
            }
        }
        dnf
    }

    fn dnf_formula(&self, dnf: &[Lits]) -> Bool {
        let cs: Vec<Bool> = dnf.iter().map(|c| self.encode_lits(c)).collect();
        if cs.is_empty() {
            Bool::from_bool(false)
        } else {
            Bool::or(&cs)
        }
    }

    /// `a ⇒ b` on the box (samples first, then Z3).
    fn implies(&mut self, a: &Lits, b: &Lits) -> bool {
        if self
            .pos
            .iter()
            .chain(&self.neg)
            .any(|p| self.clause_true(a, p) && !self.clause_true(b, p))
        {
            return false;
        }
        let (ea, eb) = (self.encode_lits(a), self.encode_lits(b));
        self.stats.clause_queries += 1;
        let mut extra = vec![ea, eb.not()];
        extra.extend(self.lemmas(&[a, b]));
        matches!(self.smt.check(self.meter, &extra), Check::Unsat)
    }

    /// Greedy cover (concrete rejection): adds literals, oriented true at
    /// the seed (the negate flags of (29)), until no known spec-false sample
    /// satisfies the clause. Discovers a literal when none separates the
    /// seed from a spec-false sample.
    fn cover(&mut self, seed: &[i64], mut chosen: Lits) -> Option<Lits> {
        loop {
            let open: Vec<usize> = (0..self.neg.len())
                .filter(|&i| self.clause_true(&chosen, &self.neg[i]))
                .collect();
            if open.is_empty() {
                return Some(chosen);
            }
            if chosen.len() >= MAX_CLAUSE_LITERALS || self.expired() {
                return None;
            }
            let best = match self.best_literal(seed, &chosen, &open) {
                Some(b) => b,
                None => {
                    let q = self.neg[open[0]].clone();
                    let t = Instant::now();
                    let ok = self.refine(seed, &q);
                    self.literal_time += t.elapsed();
                    if !ok {
                        return None;
                    }
                    self.best_literal(seed, &chosen, &open)?
                }
            };
            chosen.push(best);
        }
    }

    /// Spec-true samples `c` covers that the DNF does not.
    fn gain(&self, c: &Lits, dnf: &[Lits]) -> usize {
        self.pos
            .iter()
            .filter(|p| self.clause_true(c, p) && !dnf.iter().any(|d| self.clause_true(d, p)))
            .count()
    }

    /// Queries (29)-(33) for one seed: a proven prime clause true at `seed`.
    /// First on samples only (cover, drop, loosen; a clause that would gain
    /// too little is rejected before any solver call), then Z3 checks it;
    /// a counterexample restarts with one more spec-false sample. After
    /// `GENERALIZE_ROUNDS` refutations, each drop and loosening is proven
    /// on its own. `min_gain`: spec-true samples the clause must newly
    /// cover per literal.
    fn build_clause(&mut self, seed: &[i64], min_gain: usize, dnf: &[Lits]) -> Built {
        self.fresh = (0..self.pos.len())
            .filter(|&i| !dnf.iter().any(|c| self.clause_true(c, &self.pos[i])))
            .collect();
        for _ in 0..GENERALIZE_ROUNDS {
            let Some(mut c) = self.cover(seed, Vec::new()) else {
                return Built::Failed;
            };
            self.generalize(&mut c);
            if self.gain(&c, dnf) < (min_gain * c.len()).max(1) {
                return Built::LowGain(c);
            }
            match self.prove(&c) {
                Check::Unsat => return Built::Proven(c),
                Check::Sat(_) => {}
                Check::Unknown => return Built::Failed,
            }
        }
        let mut chosen: Lits = Vec::new();
        loop {
            let Some(c) = self.cover(seed, chosen) else {
                return Built::Failed;
            };
            chosen = c;
            match self.prove(&chosen) {
                Check::Unsat => break,
                Check::Sat(_) => continue,
                Check::Unknown => return Built::Failed,
            }
        }
        self.drop_literals(&mut chosen);
        if self.loosen(&mut chosen) {
            self.drop_literals(&mut chosen);
        }
        Built::Proven(chosen)
    }

    /// Drop and loosen on samples only (no solver).
    fn generalize(&mut self, chosen: &mut Lits) {
        self.concrete_drop(chosen);
        for j in (0..chosen.len()).rev() {
            if let Some((target, at_edge)) = self.loosen_target(chosen, j) {
                if at_edge {
                    chosen.remove(j);
                } else if let Literal::Octagon { terms, .. } = &self.lits[chosen[j].0] {
                    let l = Literal::Octagon {
                        terms: terms.clone(),
                        c: target,
                    };
                    if let Some(idx) = self.add_literal(l) {
                        chosen[j].0 = idx;
                    }
                }
            }
        }
        self.concrete_drop(chosen);
    }

    /// Drops literals (last chosen first) that no known spec-false sample needs.
    fn concrete_drop(&self, chosen: &mut Lits) {
        let mut j = chosen.len();
        while j > 0 {
            j -= 1;
            let mut trial = chosen.clone();
            trial.remove(j);
            if !self.neg.iter().any(|q| self.clause_true(&trial, q)) {
                *chosen = trial;
            }
        }
    }

    /// Forced constant for octagon literal `j` of a clause: the loosest bound
    /// that still excludes the spec-false samples only it excludes, and
    /// whether that bound is the box edge (the literal is then redundant).
    /// `None`: no looser bound.
    fn loosen_target(&self, chosen: &Lits, j: usize) -> Option<(i64, bool)> {
        let (i, neg) = chosen[j];
        let Literal::Octagon { terms, c } = &self.lits[i] else {
            return None;
        };
        let bound = |hi: bool| -> i128 {
            terms
                .iter()
                .map(|&(v, k)| {
                    // The edge of the proof domain: a bound beyond it is redundant.
                    let x = if (k > 0) == hi {
                        self.vars[v].max
                    } else {
                        self.vars[v].min
                    };
                    k as i128 * x as i128
                })
                .sum()
        };
        let (smin, smax) = (bound(false), bound(true));
        let mut others = chosen.clone();
        others.remove(j);
        let blocking = self
            .neg
            .iter()
            .filter(|q| self.clause_true(&others, q))
            .map(|q| octagon_sum(terms, q));
        // Not negated: `sum <= c` must stay false on the blocking samples.
        let target = if !neg {
            blocking.map(|s| s - 1).min().unwrap_or(smax).min(smax)
        } else {
            blocking.max().unwrap_or(smin - 1).max(smin - 1)
        };
        let cur = *c as i128;
        if (neg && target >= cur) || (!neg && target <= cur) {
            return None;
        }
        let at_edge = if neg { target < smin } else { target >= smax };
        Some((i64::try_from(target).ok()?, at_edge))
    }

    /// The literal (oriented true at the seed) that excludes the most open
    /// spec-false samples; ties: more new spec-true samples kept, simpler.
    /// Besides the discovered literals, every octagon normal is a candidate
    /// (a template) with the loosest bound that still excludes the open
    /// spec-false samples beyond the seed.
    fn best_literal(
        &mut self,
        seed: &[i64],
        chosen: &Lits,
        open: &[usize],
    ) -> Option<(usize, bool)> {
        type Key = (usize, usize, std::cmp::Reverse<u32>);
        // Coverage counts spec-true samples the DNF misses and the clause keeps.
        let fresh: Vec<usize> = self
            .fresh
            .iter()
            .copied()
            .filter(|&p| self.clause_true(chosen, &self.pos[p]))
            .collect();
        let score = |s: &Self, l: &Literal| -> Option<(Key, bool)> {
            let neg = !l.eval(seed);
            let sep = open.iter().filter(|&&q| l.eval(&s.neg[q]) == neg).count();
            if sep == 0 {
                return None;
            }
            let cov = fresh.iter().filter(|&&p| l.eval(&s.pos[p]) != neg).count();
            Some(((sep, cov, std::cmp::Reverse(l.cost())), neg))
        };
        let mut best: Option<(Key, Literal, bool)> = None;
        for (i, l) in self.lits.iter().enumerate() {
            if chosen.iter().any(|c| c.0 == i) {
                continue;
            }
            if let Some((key, neg)) = score(self, l) {
                if best.as_ref().is_none_or(|b| key > b.0) {
                    best = Some((key, l.clone(), neg));
                }
            }
        }
        for terms in self.normals() {
            // Bounds as loose as possible while excluding the same open
            // spec-false samples as a bound tight at the seed would.
            let at = octagon_sum(&terms, seed);
            let sums: Vec<i128> = open
                .iter()
                .map(|&q| octagon_sum(&terms, &self.neg[q]))
                .collect();
            let above = sums
                .iter()
                .copied()
                .filter(|&x| x > at)
                .min()
                .map(|x| x - 1);
            let below = sums.iter().copied().filter(|&x| x < at).max();
            for c in [above, below].into_iter().flatten() {
                let Some(l) = Self::octagon(&terms, c) else {
                    continue;
                };
                if self.lit_set.contains(&l) {
                    continue;
                }
                if let Some((key, neg)) = score(self, &l) {
                    if best.as_ref().is_none_or(|b| key > b.0) {
                        best = Some((key, l, neg));
                    }
                }
            }
        }
        let (_, l, neg) = best?;
        Some((self.add_literal(l)?, neg))
    }

    /// Octagon normals (first coefficient +1) over the non-constant vars.
    fn normals(&self) -> Vec<Vec<(usize, i64)>> {
        let vs: Vec<usize> = (0..self.n)
            .filter(|&v| self.vars[v].lo < self.vars[v].hi)
            .collect();
        let mut out: Vec<Vec<(usize, i64)>> = vs.iter().map(|&v| vec![(v, 1)]).collect();
        for (i, &v) in vs.iter().enumerate() {
            for &w in &vs[i + 1..] {
                out.push(vec![(v, 1), (w, 1)]);
                out.push(vec![(v, 1), (w, -1)]);
            }
        }
        out
    }

    /// Prime implicant: drop literals (last chosen first) while Z3 still
    /// proves the clause; known spec-false samples reject a drop first.
    fn drop_literals(&mut self, chosen: &mut Lits) {
        let mut j = chosen.len();
        while j > 0 {
            j -= 1;
            if self.expired() {
                return;
            }
            let mut trial = chosen.clone();
            trial.remove(j);
            if self.neg.iter().any(|q| self.clause_true(&trial, q)) {
                continue;
            }
            if let Check::Unsat = self.prove(&trial) {
                *chosen = trial;
            }
        }
    }

    /// Forced constants with proofs: move each octagon bound to its
    /// [`Synth::loosen_target`] and keep the move when Z3 proves it (a
    /// counterexample tightens the target).
    fn loosen(&mut self, chosen: &mut Lits) -> bool {
        let mut changed = false;
        let mut j = chosen.len();
        while j > 0 {
            j -= 1;
            for _ in 0..MAX_LOOSEN_ROUNDS {
                if self.expired() {
                    return changed;
                }
                let Some((target, at_edge)) = self.loosen_target(chosen, j) else {
                    break;
                };
                let mut trial = chosen.clone();
                if at_edge {
                    trial.remove(j);
                } else if let Literal::Octagon { terms, .. } = &self.lits[chosen[j].0] {
                    let l = Literal::Octagon {
                        terms: terms.clone(),
                        c: target,
                    };
                    match self.add_literal(l) {
                        Some(idx) => trial[j].0 = idx,
                        None => break,
                    }
                }
                match self.prove(&trial) {
                    Check::Unsat => {
                        changed = true;
                        *chosen = trial;
                        break;
                    }
                    Check::Sat(_) => {}
                    Check::Unknown => return changed,
                }
            }
        }
        changed
    }
}

enum Built {
    Proven(Lits),
    /// Would cover too few new spec-true samples (checked on samples).
    LowGain(Lits),
    Failed,
}

#[cfg(test)]
mod tests {
    use super::budget::Budget;
    use super::*;

    type Holds = Box<dyn Fn(&[i64]) -> bool>;
    type Enc = Box<dyn Fn(&[Int]) -> Option<Bool>>;

    struct FnSpec {
        vars: Vec<Var>,
        holds: Holds,
        enc: Enc,
        domain: Option<(Holds, Enc)>,
    }

    impl Spec for FnSpec {
        fn vars(&self) -> &[Var] {
            &self.vars
        }
        fn holds(&self, p: &[i64]) -> bool {
            (self.holds)(p)
        }
        fn encode(&self, v: &[Int]) -> Option<Bool> {
            (self.enc)(v)
        }
        fn domain(&self, p: &[i64]) -> bool {
            self.domain.as_ref().is_none_or(|d| (d.0)(p))
        }
        fn encode_domain(&self, v: &[Int]) -> Option<Bool> {
            self.domain.as_ref().and_then(|d| (d.1)(v))
        }
    }

    fn spec(
        vars: Vec<Var>,
        holds: impl Fn(&[i64]) -> bool + 'static,
        enc: impl Fn(&[Int]) -> Option<Bool> + 'static,
    ) -> FnSpec {
        FnSpec {
            vars,
            holds: Box::new(holds),
            enc: Box::new(enc),
            domain: None,
        }
    }

    fn names(s: &FnSpec) -> Vec<String> {
        s.vars.iter().map(|v| v.name.clone()).collect()
    }

    /// Every point of the box (and domain).
    fn points(s: &FnSpec) -> Vec<Vec<i64>> {
        let mut pts: Vec<Vec<i64>> = vec![vec![]];
        for v in &s.vars {
            pts = pts
                .into_iter()
                .flat_map(|p| {
                    (v.lo..=v.hi).map(move |x| {
                        let mut q = p.clone();
                        q.push(x);
                        q
                    })
                })
                .collect();
        }
        pts.retain(|p| s.domain(p));
        pts
    }

    /// Synthesis within `units` resource units.
    fn within(s: &FnSpec, units: u64) -> (Outcome, Stats) {
        let budget = Budget {
            target: units,
            file: units,
            wall: budget::DEFAULT_WALL,
        };
        let mut meter = Meter::new(&budget);
        meter.begin_target();
        synthesize(s, &mut meter)
    }

    fn found(s: &FnSpec, units: u64) -> (Dnf, Stats) {
        let (o, st) = within(s, units);
        match o {
            Outcome::Found(d) => (d, st),
            other => panic!("expected Found, got {other:?} ({st:?})"),
        }
    }

    /// The DNF implies the spec on every point; returns (p-points, s-points).
    fn check_sound(s: &FnSpec, d: &Dnf, what: &str) -> (usize, usize) {
        let (mut np, mut ns) = (0, 0);
        for p in points(s) {
            let (a, b) = (d.eval(&p), s.holds(&p));
            assert!(
                !a || b,
                "{what}: {} holds at {p:?} but the spec does not",
                d.display(&names(s))
            );
            np += a as usize;
            ns += b as usize;
        }
        (np, ns)
    }

    /// Z3: the DNF is equivalent to the spec on the box.
    fn z3_equivalent(s: &FnSpec, d: &Dnf) -> bool {
        let zv: Vec<Int> = s
            .vars
            .iter()
            .map(|v| Int::new_const(v.name.as_str()))
            .collect();
        let solver = Solver::new();
        for (v, z) in s.vars.iter().zip(&zv) {
            solver.assert(z.ge(c(v.min)));
            solver.assert(z.le(c(v.max)));
        }
        if let Some(dom) = s.encode_domain(&zv) {
            solver.assert(dom);
        }
        solver.assert(d.encode(&zv).xor(s.encode(&zv).unwrap()));
        solver.check() == SatResult::Unsat
    }

    fn c(x: i64) -> Int {
        Int::from_i64(x)
    }

    #[test]
    fn interval() {
        let s = spec(
            vec![Var::new("x", -100, 100)],
            |p| 2 <= p[0] && p[0] <= 40,
            |v| Some(v[0].ge(c(2)) & v[0].le(c(40))),
        );
        let (d, st) = found(&s, 1_500_000);
        let (np, ns) = check_sound(&s, &d, "");
        assert_eq!(np, ns, "{}", d.display(&names(&s)));
        assert!(z3_equivalent(&s, &d));
        assert!(st.exact);
        assert_eq!(d.display(&names(&s)), "x >= 2 && x <= 40");
    }

    #[test]
    fn octagon() {
        let s = spec(
            vec![Var::new("x0", -100, 600), Var::new("n", 0, 1024)],
            |p| p[0] + 7 < p[1] && p[0] >= 3,
            |v| Some((&v[0] + c(7)).lt(&v[1]) & v[0].ge(c(3))),
        );
        let (d, _) = found(&s, 1_500_000);
        assert!(z3_equivalent(&s, &d), "{}", d.display(&names(&s)));
        let (np, ns) = check_sound(&s, &d, "");
        assert_eq!(np, ns);
        let text = d.display(&names(&s));
        assert_eq!(text, "x0 >= 3 && x0 + 8 <= n");
    }

    #[test]
    fn modulus() {
        let s = spec(
            vec![Var::new("t", -64, 1024)],
            |p| p[0] % 4 == 0 && p[0] > 0,
            |v| Some(v[0].modulo(c(4)).eq(c(0)) & v[0].gt(c(0))),
        );
        let (d, _) = found(&s, 1_500_000);
        let (np, ns) = check_sound(&s, &d, "");
        assert_eq!(np, ns, "{}", d.display(&names(&s)));
        assert!(z3_equivalent(&s, &d));
        assert!(d
            .0
            .iter()
            .flat_map(|c| &c.0)
            .any(|l| matches!(l.0, Literal::Modulus { m: 4, .. })));
        assert_eq!(d.display_vars(&s.vars), "t % 4 == 0 && t >= 1");
    }

    #[test]
    fn fast_walsh_block() {
        // All lanes x0..x0+3 of a group of 4 are in one block of size t.
        let mut s = spec(
            vec![Var::new("x0", 0, 512), Var::new("t", 1, 64)],
            |p| p[0] / p[1] == (p[0] + 3) / p[1],
            |v| Some(v[0].div(&v[1]).eq((&v[0] + c(3)).div(&v[1]))),
        );
        s.domain = Some((
            Box::new(|p: &[i64]| p[0] % 4 == 0),
            Box::new(|v: &[Int]| Some(v[0].modulo(c(4)).eq(c(0)))),
        ));
        // Z3 on this clause (a division by a variable) is heavy-tailed: with
        // 1.9M units one attempt in a few ran out; the restarts need room.
        let (d, _) = found(&s, 6_000_000);
        check_sound(&s, &d, "");
        for p in points(&s) {
            if p[1] % 4 == 0 && p[1] > 0 {
                assert!(d.eval(&p), "{} misses {p:?}", d.display(&names(&s)));
            }
        }
    }

    #[test]
    fn a_proven_hint_is_the_result_and_others_are_ignored() {
        // (x0 + t) % 4 == 0 on groups with x0 % 4 == 0: `t % 4 == 0`.
        let mut s = spec(
            vec![Var::new("t", 0, 64), Var::new("x0", 0, 512)],
            |p| (p[0] + p[1]) % 4 == 0,
            |v| Some((&v[0] + &v[1]).modulo(c(4)).eq(c(0))),
        );
        s.domain = Some((
            Box::new(|p: &[i64]| p[1] % 4 == 0),
            Box::new(|v: &[Int]| Some(v[1].modulo(c(4)).eq(c(0)))),
        ));
        let mut meter = Meter::new(&Budget {
            target: 2_000_000,
            file: 2_000_000,
            wall: budget::DEFAULT_WALL,
        });
        meter.begin_target();
        // Found for another target whose vars came in the other order.
        let modulus = |var, m| Clause(vec![(Literal::Modulus { var, m, r: 0 }, false)]);
        let hint = |names: &[&str], m| Hint {
            names: names.iter().map(|n| n.to_string()).collect(),
            dnf: Dnf(vec![modulus(1, m)]),
        };
        let (o, st) = synthesize_with(&s, &mut meter, &[hint(&["x0", "t"], 4)]);
        assert_eq!(o, Outcome::Found(Dnf(vec![modulus(0, 4)])));
        assert!(st.hinted);
        assert_eq!(st.clause_queries, 1, "{st:?}");
        // A hint that holds where the spec does not (t = 2), and one over
        // a var this spec lacks: synthesis runs and still finds t % 4.
        meter.begin_target();
        let (o, st) = synthesize_with(
            &s,
            &mut meter,
            &[hint(&["x0", "t"], 2), hint(&["x0", "n"], 4)],
        );
        assert!(!st.hinted);
        match o {
            Outcome::Found(d) => {
                check_sound(&s, &d, "");
            }
            other => panic!("expected Found, got {other:?}"),
        }
    }

    #[test]
    fn impossible_and_trivial() {
        let f = spec(
            vec![Var::new("x", -10, 10), Var::new("y", 0, 5)],
            |_| false,
            |_| Some(Bool::from_bool(false)),
        );
        assert_eq!(within(&f, 500_000).0, Outcome::NotFound);
        let t = spec(
            vec![Var::new("x", -10, 10), Var::new("y", 0, 5)],
            |_| true,
            |_| Some(Bool::from_bool(true)),
        );
        let (d, st) = found(&t, 500_000);
        assert_eq!(d.display(&names(&t)), "true");
        assert!(st.exact);
        let none = spec(vec![Var::new("x", 0, 1)], |_| true, |_| None);
        assert_eq!(within(&none, 500_000).0, Outcome::NotFound);
    }

    #[test]
    fn budget_is_respected_and_the_cut_off_is_deterministic() {
        // The proofs need modulus reasoning; a budget that covers sampling
        // but few queries stops synthesis at the same place every time.
        let make = || {
            spec(
                vec![
                    Var::new("x", -1000, 1000).with_domain(-(1 << 40), 1 << 40),
                    Var::new("y", -1000, 1000).with_domain(-(1 << 40), 1 << 40),
                ],
                |p| p[0] + p[1] < 17 && p[0].rem_euclid(7) == 3,
                |v| Some((&v[0] + &v[1]).lt(c(17)) & v[0].modulo(c(7)).eq(c(3))),
            )
        };
        let units = 40_000;
        // Each run on a fresh thread, so on a fresh Z3 context.
        let run = move || {
            std::thread::spawn(move || {
                let s = make();
                let budget = Budget {
                    target: units,
                    file: units,
                    wall: budget::DEFAULT_WALL,
                };
                let mut meter = Meter::new(&budget);
                meter.begin_target();
                let (o, st) = synthesize(&s, &mut meter);
                if let Outcome::Found(d) = &o {
                    check_sound(&s, d, "cut-off");
                }
                (o, st.samples, st.clause_queries, meter.target_spent())
            })
            .join()
            .unwrap()
        };
        let (o, samples, queries, spent) = run();
        // Nothing is charged beyond the budget but the last step's overshoot
        // (one sample, or Z3 noticing its limit).
        assert!(spent < units + FIRST_ATTEMPT, "spent {spent}");
        assert_eq!(run(), (o, samples, queries, spent));
    }

    #[test]
    fn extreme_ranges() {
        let s = spec(
            vec![
                Var::new("x", i64::MIN, i64::MAX),
                Var::new("y", -(1 << 40), 1 << 40),
            ],
            |p| p[0] >= 5 && p[1] <= p[0],
            |v| Some(v[0].ge(c(5)) & v[1].le(&v[0])),
        );
        let (d, _) = found(&s, 1_500_000);
        assert!(z3_equivalent(&s, &d), "{}", d.display(&names(&s)));
        assert_eq!(d.display(&names(&s)), "x >= 5 && y <= x");
    }

    #[test]
    fn soundness_random_specs() {
        let vars = vec![Var::new("a", -12, 12), Var::new("b", -12, 12)];
        let mut rng = Rng(42);
        let mut exact = 0;
        let rounds = 16;
        for round in 0..rounds {
            let k = 1 + rng.below(3) as usize;
            let mut parts: Vec<(Literal, bool)> = Vec::new();
            for _ in 0..k {
                let l = if rng.below(4) == 0 {
                    let m = 2 + rng.below(3) as i64;
                    Literal::Modulus {
                        var: rng.below(2) as usize,
                        m,
                        r: rng.below(m as u128) as i64,
                    }
                } else {
                    let sgn = |r: &mut Rng| if r.below(2) == 0 { 1 } else { -1 };
                    let terms = if rng.below(2) == 0 {
                        vec![(rng.below(2) as usize, sgn(&mut rng))]
                    } else {
                        vec![(0, sgn(&mut rng)), (1, sgn(&mut rng))]
                    };
                    Literal::Octagon {
                        terms,
                        c: rng.range(-10, 10),
                    }
                };
                parts.push((l, rng.below(2) == 0));
            }
            let ops: Vec<bool> = (0..k).map(|_| rng.below(2) == 0).collect(); // true = and
            let shown: Vec<String> = parts
                .iter()
                .map(|x| {
                    format!(
                        "{}{}",
                        if x.1 { "!" } else { "" },
                        x.0.display(&["a".into(), "b".into()])
                    )
                })
                .collect::<Vec<_>>();
            let shown = format!("{shown:?} ops {ops:?}");
            let eval = {
                let (parts, ops) = (parts.clone(), ops.clone());
                move |p: &[i64]| {
                    let mut acc = parts[0].0.eval(p) != parts[0].1;
                    for (part, and) in parts.iter().zip(&ops).skip(1) {
                        let x = part.0.eval(p) != part.1;
                        acc = if *and { acc && x } else { acc || x };
                    }
                    acc
                }
            };
            let enc = move |v: &[Int]| {
                let lit = |i: usize| {
                    let e = parts[i].0.encode(v);
                    if parts[i].1 {
                        e.not()
                    } else {
                        e
                    }
                };
                let mut acc = lit(0);
                for (i, and) in ops.iter().enumerate().skip(1) {
                    acc = if *and { acc & lit(i) } else { acc | lit(i) };
                }
                Some(acc)
            };
            let s = spec(vars.clone(), eval, enc);
            let (o, _) = within(&s, 400_000);
            if let Outcome::Found(d) = o {
                let (np, ns) = check_sound(&s, &d, &shown);
                exact += (np == ns) as usize;
            } else {
                assert!(
                    points(&s).iter().all(|p| !s.holds(p)) || o == Outcome::Timeout,
                    "round {round} ({shown}): {o:?}"
                );
            }
        }
        // Not all: a clause for a sliver of a few points is not worth showing.
        assert!(exact >= rounds * 3 / 4, "only {exact} of {rounds} exact");
    }
}
