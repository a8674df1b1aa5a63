//! Vector shapes: the stride/alignment lattice and its abstract transformers
//! (Moll 2021, ch. 10; notes/rv-thesis-part2.md §4).
//!
//! A [`Shape`] says what the W lane values of one SSA value look like in one
//! SIMD group. This module is pure: the divergence analysis walks the IR and
//! calls one transformer per instruction ([`binary`], [`compare`], [`cast`],
//! [`select`], [`math`], [`ptr_add`], [`fneg`]).
//!
//! # The model (an assumption every transformer makes)
//!
//! Shapes describe lane values as **mathematical integers**: the value of an
//! integer lane is its signed (two's-complement) interpretation, and an
//! integer operation whose exact result would wrap around within one SIMD
//! group is outside the model. For signed arithmetic this is what C already
//! says (signed overflow is undefined behaviour). For unsigned arithmetic the
//! model assumes that the operands of unsigned operations (`udiv`, `urem`,
//! `lshr`, unsigned comparisons and min/max, `zext`) are non-negative as
//! signed values, so that both interpretations agree: for work-item ids and
//! sizes this means global sizes below 2^31 for 32-bit values and below 2^63
//! for 64-bit values. Code that relies on an unsigned wrap inside one SIMD
//! group (`x - 1 < n` with `x == 0` on one lane as a bounds check) can be
//! misclassified; this is the price of precise strides through `size_t`
//! arithmetic. Constant folding (both operands constant) follows the exact
//! IR semantics and needs no assumption.
//!
//! Integers and pointers use the stride/alignment lattice; floats and
//! booleans (`i1`) use the basic uniform/varying lattice ([`Shape::basic`]):
//! transformers with a float or boolean result return `uniform()`,
//! `varying()` or `Bottom` (only a select between two equal constants
//! returns that constant's shape).
//!
//! The lattice order is the inclusion of concretizations for W ≥ 2 lanes
//! (with one lane every value is uniform and strides carry no information).
//! Operands whose shape is [`Shape::Bottom`] (not yet reached by the analysis)
//! give `Bottom`, except where the result is decided anyway (`x * 0`,
//! `x & 0`, a select between two equal constants, ...).
//!
//! Operand constants ([`Operand::constant`]) are the sign-extended value of
//! the constant at its type's width ([`crate::ir::Const::as_signed`]);
//! transformers that know the type re-normalize them, so a zero-extended
//! value works there too.

use std::fmt;

use crate::ir::{sign_extend, truncate, BinOp, CastOp, CmpPred, MathFn, Ty};

pub mod affine;
#[cfg(test)]
mod tests;

/// A vector shape: what the W lane values of one SSA value look like (thesis ch. 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// No information yet (not yet reached by the analysis).
    Bottom,
    /// Lane t holds `align*k + stride*t` for one integer k (align 0: lane 0 holds 0). Uniform = stride 0.
    Strided { stride: i64, align: u64 },
    /// Every lane an independent multiple of `align` (>= 1).
    Varying { align: u64 },
}

impl Shape {
    /// Any value that is the same on every lane: `Strided{0, 1}`.
    pub fn uniform() -> Shape {
        Shape::Strided {
            stride: 0,
            align: 1,
        }
    }

    /// The shape of the integer constant `c`: `Strided{0, |c|}` (the zero
    /// vector for 0).
    pub fn constant(c: i64) -> Shape {
        Shape::Strided {
            stride: 0,
            align: c.unsigned_abs(),
        }
    }

    /// The zero vector, `Strided{0, 0}`.
    pub fn zero() -> Shape {
        Shape::constant(0)
    }

    /// The top element: independent lanes, nothing known, `Varying{1}`.
    pub fn varying() -> Shape {
        Shape::Varying { align: 1 }
    }

    /// Independent lanes, each a multiple of `align`. `align == 0` says every
    /// lane is 0, which is the zero vector.
    pub fn varying_aligned(align: u64) -> Shape {
        if align == 0 {
            Shape::zero()
        } else {
            Shape::Varying { align }
        }
    }

    /// `Strided{stride, 1}`: lane t holds `k + stride*t`.
    pub fn strided(stride: i64) -> Shape {
        Shape::Strided { stride, align: 1 }
    }

    pub fn is_bottom(self) -> bool {
        self == Shape::Bottom
    }

    /// Strided with stride 0 (any alignment).
    pub fn is_uniform(self) -> bool {
        matches!(self, Shape::Strided { stride: 0, .. })
    }

    /// `Varying{..}`.
    pub fn is_varying(self) -> bool {
        matches!(self, Shape::Varying { .. })
    }

    pub fn stride(self) -> Option<i64> {
        match self {
            Shape::Strided { stride, .. } => Some(stride),
            _ => None,
        }
    }

    /// The alignment: of lane 0 for strided shapes, of every lane for
    /// varying ones.
    pub fn align(self) -> Option<u64> {
        match self.normalized() {
            Shape::Strided { align, .. } | Shape::Varying { align } => Some(align),
            Shape::Bottom => None,
        }
    }

    /// The thesis' `threadalign` (Fig. 10.8): the largest number every lane
    /// is a multiple of (`gcd(stride, align)` for strided shapes; 0 when
    /// every lane is 0). `None` for `Bottom`.
    pub fn lane_align(self) -> Option<u64> {
        match self.normalized() {
            Shape::Strided { stride, align } => Some(gcd(stride.unsigned_abs(), align)),
            Shape::Varying { align } => Some(align),
            Shape::Bottom => None,
        }
    }

    /// `Varying{0}` breaks the invariant (`align >= 1`); read it as the top
    /// element rather than as "every lane is 0".
    pub fn normalized(self) -> Shape {
        match self {
            Shape::Varying { align: 0 } => Shape::varying(),
            s => s,
        }
    }

    /// Least upper bound in the order of Fig. 10.6.
    pub fn join(self, other: Shape) -> Shape {
        use Shape::*;
        match (self.normalized(), other.normalized()) {
            (Bottom, x) | (x, Bottom) => x,
            (
                Strided {
                    stride: s,
                    align: a,
                },
                Strided {
                    stride: t,
                    align: b,
                },
            ) if s == t => Strided {
                stride: s,
                align: gcd(a, b),
            },
            // Different strides, or a varying side: only the common lane
            // alignment survives. It is >= 1 because one stride is non-zero
            // or one side is varying.
            (x, y) => Varying {
                align: gcd(lane_align(x), lane_align(y)).max(1),
            },
        }
    }

    /// The lattice order: `self ⊑ other` iff every lane vector `self`
    /// describes is also described by `other` (for W >= 2).
    pub fn leq(self, other: Shape) -> bool {
        use Shape::*;
        match (self.normalized(), other.normalized()) {
            (Bottom, _) => true,
            (_, Bottom) => false,
            (
                Strided {
                    stride: s,
                    align: a,
                },
                Strided {
                    stride: t,
                    align: b,
                },
            ) => s == t && divides(b, a),
            (Strided { stride, align }, Varying { align: b }) => {
                divides(b, gcd(stride.unsigned_abs(), align))
            }
            (Varying { .. }, Strided { .. }) => false,
            (Varying { align: a }, Varying { align: b }) => divides(b, a),
        }
    }

    /// The basic u/v lattice used for floats and booleans: uniform() or varying().
    pub fn basic(self) -> Shape {
        match self {
            Shape::Bottom => Shape::Bottom,
            s if s.is_uniform() => Shape::uniform(),
            _ => Shape::varying(),
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.normalized() {
            Shape::Bottom => f.write_str("⊥"),
            Shape::Strided {
                stride: 0,
                align: 1,
            } => f.write_str("uniform"),
            Shape::Strided { stride: 0, align } => write!(f, "uniform (align {align})"),
            Shape::Strided { stride, align: 1 } => write!(f, "strided({stride})"),
            Shape::Strided { stride, align } => write!(f, "strided({stride}, align {align})"),
            Shape::Varying { align: 1 } => f.write_str("varying"),
            Shape::Varying { align } => write!(f, "varying (align {align})"),
        }
    }
}

impl std::str::FromStr for Shape {
    type Err = String;

    /// The text [`fmt::Display`] writes (`uniform`, `strided(4, align 4)`,
    /// `varying (align 2)`, `⊥`).
    fn from_str(text: &str) -> Result<Shape, String> {
        let bad = || {
            format!("expected a shape (`uniform`, `strided(S)`, `varying`, ...), found `{text}`")
        };
        let num = |s: &str| s.trim().parse::<u64>().map_err(|_| bad());
        let t = text.trim();
        if t == "⊥" {
            return Ok(Shape::Bottom);
        }
        // `uniform (align A)`, `varying (align A)`.
        let (head, align) = match t.split_once(" (align ") {
            Some((h, rest)) => (h, Some(num(rest.strip_suffix(')').ok_or_else(bad)?)?)),
            None => (t, None),
        };
        match head {
            "uniform" => Ok(Shape::Strided {
                stride: 0,
                align: align.unwrap_or(1),
            }),
            "varying" => Ok(Shape::Varying {
                align: align.unwrap_or(1),
            }),
            _ if align.is_none() => {
                let inner = head
                    .strip_prefix("strided(")
                    .and_then(|r| r.strip_suffix(')'))
                    .ok_or_else(bad)?;
                let (stride, align) = match inner.split_once(", align ") {
                    Some((s, a)) => (s, num(a)?),
                    None => (inner, 1),
                };
                let stride = stride.trim().parse::<i64>().map_err(|_| bad())?;
                Ok(Shape::Strided { stride, align })
            }
            _ => Err(bad()),
        }
    }
}

/// An operand of a transfer function: its shape and, if it is a compile-time constant, its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    pub shape: Shape,
    pub constant: Option<i64>,
}

impl Operand {
    /// A non-constant operand of the given shape.
    pub fn new(shape: Shape) -> Operand {
        Operand {
            shape,
            constant: None,
        }
    }

    /// The integer constant `c` (sign-extended from its type's width).
    pub fn constant(c: i64) -> Operand {
        Operand {
            shape: Shape::constant(c),
            constant: Some(c),
        }
    }
}

impl From<Shape> for Operand {
    fn from(shape: Shape) -> Operand {
        Operand::new(shape)
    }
}

/// True when `lanes` is one of the vectors `shape` describes (its
/// concretization γ, Fig. 10.4, over mathematical integers).
pub fn in_gamma(shape: Shape, lanes: &[i64]) -> bool {
    let partial: Vec<Option<i64>> = lanes.iter().map(|&v| Some(v)).collect();
    in_gamma_partial(shape, &partial)
}

/// Like [`in_gamma`], with some lanes unconstrained (`None`: inactive, or
/// undefined such as a division by zero): true when some vector of γ(shape)
/// agrees with every `Some` lane.
pub fn in_gamma_partial(shape: Shape, lanes: &[Option<i64>]) -> bool {
    match shape.normalized() {
        Shape::Bottom => false,
        Shape::Varying { align } => lanes
            .iter()
            .flatten()
            .all(|&v| i128::from(v) % i128::from(align) == 0),
        Shape::Strided { stride, align } => {
            let s = i128::from(stride);
            let Some((t0, v0)) = lanes
                .iter()
                .enumerate()
                .find_map(|(t, v)| v.map(|v| (t as i128, i128::from(v))))
            else {
                return true;
            };
            let base = v0 - s * t0;
            let aligned = if align == 0 {
                base == 0
            } else {
                base % i128::from(align) == 0
            };
            aligned
                && lanes.iter().enumerate().all(|(t, v)| match v {
                    Some(v) => i128::from(*v) == base + s * t as i128,
                    None => true,
                })
        }
    }
}

// ---------------------------------------------------------------------------
// Integer helpers.

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn gcd128(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `d | n`, where only 0 is a multiple of 0.
// `u64::is_multiple_of` needs Rust 1.87; the workspace supports 1.85.
#[allow(clippy::manual_is_multiple_of)]
fn divides(d: u64, n: u64) -> bool {
    if d == 0 {
        n == 0
    } else {
        n % d == 0
    }
}

/// `threadalign` of a non-bottom shape (0: every lane is 0).
fn lane_align(s: Shape) -> u64 {
    s.lane_align().unwrap_or(1)
}

/// Number of trailing zero bits every lane is known to have (64: every lane is 0).
fn lane_tz(s: Shape) -> u32 {
    lane_align(s).trailing_zeros()
}

/// Trailing zeros of an alignment (64 for 0, which only 0 is a multiple of).
fn align_tz(a: u64) -> u32 {
    a.trailing_zeros()
}

/// Bits needed for a non-negative value (`c < 2^bit_len(c)`).
fn bit_len(c: i64) -> u32 {
    64 - c.leading_zeros()
}

/// Independent lanes that are multiples of `2^tz` (the zero vector for 64).
fn varying_pow2(tz: u32) -> Shape {
    if tz >= 64 {
        Shape::zero()
    } else {
        Shape::Varying { align: 1 << tz }
    }
}

/// A uniform value that is a multiple of `2^tz` (the zero vector for 64).
fn uniform_pow2(tz: u32) -> Shape {
    if tz >= 64 {
        Shape::zero()
    } else {
        Shape::Strided {
            stride: 0,
            align: 1 << tz,
        }
    }
}

/// Re-reads a constant at the width of its type (sign-extended).
fn norm_const(c: i64, ty: Ty) -> i64 {
    let bits = ty.bits();
    if (1..64).contains(&bits) {
        sign_extend(truncate(c as u64, bits), bits)
    } else {
        c
    }
}

/// Types whose values use the stride/alignment lattice.
fn is_sa_type(ty: Ty) -> bool {
    matches!(ty, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::Ptr(_))
}

/// An operand with its constant folded into the shape: a constant always
/// has the shape of its value, and the zero vector is the constant 0.
#[derive(Clone, Copy, Debug)]
struct Opd {
    shape: Shape,
    /// The value on every lane, when known.
    c: Option<i64>,
    /// A compile-time constant, whose shape never changes during the
    /// analysis (a zero *shape* may still grow).
    fixed: bool,
}

impl Opd {
    fn new(op: Operand, ty: Option<Ty>) -> Opd {
        let c = op.constant.map(|c| ty.map_or(c, |ty| norm_const(c, ty)));
        match c {
            Some(c) => Opd {
                shape: Shape::constant(c),
                c: Some(c),
                fixed: true,
            },
            None => {
                let shape = op.shape.normalized();
                let c = (shape == Shape::zero()).then_some(0);
                Opd {
                    shape,
                    c,
                    fixed: false,
                }
            }
        }
    }

    fn is_bottom(self) -> bool {
        self.shape == Shape::Bottom
    }

    /// The value of a compile-time constant.
    fn fixed_value(self) -> Option<i64> {
        self.c.filter(|_| self.fixed)
    }
}

/// The transformer of the basic lattice ([DA-UARITH]/[DA-DARITH], Fig. 6.6):
/// uniform when every operand is, varying otherwise, `Bottom` while an
/// operand is unknown.
fn generic(shapes: &[Shape]) -> Shape {
    if shapes.iter().any(|s| s.is_bottom()) {
        Shape::Bottom
    } else if shapes.iter().all(|s| s.is_uniform()) {
        Shape::uniform()
    } else {
        Shape::varying()
    }
}

// ---------------------------------------------------------------------------
// Arithmetic on non-bottom shapes of the stride/alignment lattice.

fn add(x: Shape, y: Shape) -> Shape {
    match (x, y) {
        (
            Shape::Strided {
                stride: s,
                align: a,
            },
            Shape::Strided {
                stride: t,
                align: b,
            },
        ) => match s.checked_add(t) {
            Some(st) => Shape::Strided {
                stride: st,
                align: gcd(a, b),
            },
            None => Shape::varying_aligned(gcd(lane_align(x), lane_align(y))),
        },
        // Every lane is a sum of two multiples of the lane alignments.
        _ => Shape::varying_aligned(gcd(lane_align(x), lane_align(y))),
    }
}

fn neg(x: Shape) -> Shape {
    match x {
        Shape::Strided { stride, align } => match stride.checked_neg() {
            Some(s) => Shape::Strided { stride: s, align },
            None => Shape::varying_aligned(lane_align(x)),
        },
        other => other,
    }
}

fn sub(x: Shape, y: Shape) -> Shape {
    add(x, neg(y))
}

/// `~x == -x - 1`.
fn not(x: Shape) -> Shape {
    add(neg(x), Shape::constant(-1))
}

fn mul_const(x: Shape, c: i64) -> Shape {
    let cu = c.unsigned_abs();
    match x {
        Shape::Strided { stride, align } => {
            match (stride.checked_mul(c), align.checked_mul(cu)) {
                (Some(s), Some(a)) => Shape::Strided {
                    stride: s,
                    align: a,
                },
                // Out of the i64 model; the lane alignment still holds.
                _ => Shape::varying_aligned(lane_align(x)),
            }
        }
        Shape::Varying { align } => match align.checked_mul(cu) {
            Some(a) => Shape::varying_aligned(a),
            None => Shape::Varying { align },
        },
        Shape::Bottom => Shape::Bottom,
    }
}

fn mul(x: Opd, y: Opd) -> Shape {
    if let Some(c) = y.c {
        return mul_const(x.shape, c);
    }
    if let Some(c) = x.c {
        return mul_const(y.shape, c);
    }
    match (x.shape, y.shape) {
        (
            Shape::Strided {
                stride: 0,
                align: a,
            },
            Shape::Strided {
                stride: 0,
                align: b,
            },
        ) => Shape::Strided {
            stride: 0,
            align: a.checked_mul(b).unwrap_or(a),
        },
        // threadalign(x) * threadalign(y) divides every lane product.
        (xs, ys) => {
            let (a, b) = (lane_align(xs), lane_align(ys));
            Shape::varying_aligned(a.checked_mul(b).unwrap_or(a))
        }
    }
}

/// True when the lanes `a*k + s*t` (t < w) never cross a multiple of `d`
/// between lane 0 and lane w-1, for any k: lane 0 is `r (mod d)` with `r`
/// a multiple of `g = gcd(a, d)`, at most `d - g`, so `s*(w-1) < g`
/// suffices (and is needed, for r = d - g).
fn no_crossing(stride: i128, align: i128, d: i128, w: Option<u32>) -> bool {
    let Some(w) = w else { return false };
    let g = if align == 0 { d } else { gcd128(align, d) };
    stride >= 0 && stride * i128::from(w.max(1) - 1) < g
}

/// Floor division by a positive constant `d` (the semantics of `ashr`, and
/// of `udiv`/`lshr` on the non-negative values of the model). Adding an
/// exact multiple of `d` commutes with floor division, so a stride that `d`
/// divides survives even when the alignment does not. With the width known,
/// lanes that stay between two multiples of `d` divide to one value (the
/// thesis' Fig. 10.7: `i / 4` is uniform for `i: (1, 4)` when W divides 4).
fn floor_div(x: Shape, d: i128, w: Option<u32>) -> Shape {
    if d <= 0 {
        return Shape::varying();
    }
    match x {
        Shape::Strided { stride, align } => {
            let s = i128::from(stride);
            let a = i128::from(align);
            let new_align = if a % d == 0 { a / d } else { 1 };
            let new_stride = if s % d == 0 {
                s / d
            } else if no_crossing(s, a, d, w) {
                0
            } else {
                return Shape::varying();
            };
            match (i64::try_from(new_stride), u64::try_from(new_align)) {
                (Ok(stride), Ok(align)) => Shape::Strided { stride, align },
                _ => Shape::varying(),
            }
        }
        Shape::Varying { align } => {
            let a = i128::from(align);
            if a % d == 0 {
                Shape::varying_aligned(u64::try_from(a / d).unwrap_or(1))
            } else {
                Shape::varying()
            }
        }
        Shape::Bottom => Shape::Bottom,
    }
}

/// Euclidean remainder by a positive constant `d` (`urem` on the
/// non-negative values of the model, and `and` with the mask `d - 1` for a
/// power of two `d` on any value).
fn floor_mod(x: Shape, d: i128, w: Option<u32>) -> Shape {
    if d <= 0 {
        return Shape::varying();
    }
    let to_u64 = |v: i128| u64::try_from(v).unwrap_or(1);
    let la = i128::from(lane_align(x));
    if la % d == 0 {
        // Every lane is a multiple of d (la == 0: every lane is 0).
        return Shape::zero();
    }
    match x {
        Shape::Strided { stride, align } => {
            let s = i128::from(stride);
            let a = i128::from(align);
            // Lane 0 is a*k; its remainder is a multiple of gcd(a, d), and
            // 0 when d divides a.
            let lane0_align = if a % d == 0 { 0 } else { gcd128(a, d) };
            if s % d == 0 {
                // The lanes differ by multiples of d: one remainder.
                Shape::Strided {
                    stride: 0,
                    align: to_u64(lane0_align),
                }
            } else if no_crossing(s, a, d, w) {
                // No lane wraps past a multiple of d: r + s*t.
                Shape::Strided {
                    stride,
                    align: to_u64(lane0_align),
                }
            } else {
                Shape::varying_aligned(to_u64(gcd128(la, d)))
            }
        }
        Shape::Varying { .. } => Shape::varying_aligned(to_u64(gcd128(la, d))),
        Shape::Bottom => Shape::Bottom,
    }
}

/// Truncating division by a non-zero constant (`sdiv`): exact only when `c`
/// divides every lane, because rounding toward zero does not commute with
/// adding multiples of `c` across a sign change.
fn trunc_div(x: Shape, c: i64) -> Shape {
    let cu = c.unsigned_abs();
    match x {
        Shape::Strided { stride, align } => {
            if stride.wrapping_rem(c) == 0 && align % cu == 0 {
                match stride.checked_div(c) {
                    Some(s) => Shape::Strided {
                        stride: s,
                        align: align / cu,
                    },
                    None => generic(&[x]),
                }
            } else {
                generic(&[x])
            }
        }
        Shape::Varying { align } if align % cu == 0 => Shape::varying_aligned(align / cu),
        _ => generic(&[x]),
    }
}

fn div(x: Opd, y: Opd, signed: bool, w: Option<u32>) -> Shape {
    if x.c == Some(0) {
        return Shape::zero();
    }
    match y.c {
        // Division by 0 is undefined: any shape is sound; stay generic.
        Some(0) | None => generic(&[x.shape, y.shape]),
        Some(c) if signed => trunc_div(x.shape, c),
        // An unsigned divisor >= 2^(N-1) is outside the model.
        Some(c) if c < 0 => generic(&[x.shape, y.shape]),
        Some(c) => floor_div(x.shape, i128::from(c), w),
    }
}

fn rem(x: Opd, y: Opd, signed: bool, w: Option<u32>) -> Shape {
    if x.c == Some(0) {
        return Shape::zero();
    }
    match y.c {
        Some(c) if !signed && c > 0 => floor_mod(x.shape, i128::from(c), w),
        Some(c) if signed && c != 0 => {
            let cu = c.unsigned_abs();
            let g = lane_align(x.shape);
            if divides(cu, g) {
                // Every lane is a multiple of c.
                return Shape::zero();
            }
            match x.shape {
                // x - c*q: a multiple of gcd(align, c).
                Shape::Strided { stride: 0, align } => Shape::Strided {
                    stride: 0,
                    align: gcd(align, cu),
                },
                s => Shape::varying_aligned(gcd(lane_align(s), cu)),
            }
        }
        _ => {
            if x.is_bottom() || y.is_bottom() {
                return Shape::Bottom;
            }
            let g = gcd(lane_align(x.shape), lane_align(y.shape));
            if x.shape.is_uniform() && y.shape.is_uniform() {
                Shape::Strided {
                    stride: 0,
                    align: g,
                }
            } else {
                Shape::varying_aligned(g)
            }
        }
    }
}

/// A constant shift amount as the hardware and OpenCL see it (modulo the
/// width; LLVM calls larger amounts poison, for which anything is sound).
fn shift_amount(c: i64, ty: Ty) -> u32 {
    let bits = i64::from(ty.bits().max(1));
    c.rem_euclid(bits) as u32
}

fn shl(x: Opd, y: Opd, ty: Ty) -> Shape {
    if x.c == Some(0) {
        return Shape::zero();
    }
    match y.c {
        Some(c) => {
            let j = shift_amount(c, ty);
            if j <= 62 {
                mul_const(x.shape, 1i64 << j)
            } else {
                generic(&[x.shape])
            }
        }
        // x * 2^y with y >= 0: the lanes stay multiples of x's.
        None => match (x.shape, y.shape) {
            (Shape::Strided { stride: 0, align }, s) if s.is_uniform() => {
                Shape::Strided { stride: 0, align }
            }
            (xs, _) => Shape::varying_aligned(lane_align(xs)),
        },
    }
}

fn shr(x: Opd, y: Opd, ty: Ty, w: Option<u32>) -> Shape {
    if x.c == Some(0) {
        return Shape::zero();
    }
    match y.c {
        Some(c) => {
            let j = shift_amount(c, ty);
            if j == 0 {
                x.shape
            } else if j <= 62 {
                floor_div(x.shape, 1i128 << j, w)
            } else {
                generic(&[x.shape])
            }
        }
        None => generic(&[x.shape, y.shape]),
    }
}

/// `x & c` on the stride/alignment lattice.
fn and_const(x: Shape, c: i64, w: Option<u32>) -> Shape {
    if c == 0 {
        return Shape::zero();
    }
    if c == -1 {
        return x;
    }
    let z = lane_tz(x);
    if z >= 64 {
        return Shape::zero();
    }
    // c keeps every bit a lane may have set: x & c == x.
    if c | (1u64 << z).wrapping_sub(1) as i64 == -1 {
        return x;
    }
    // c == -2^j clears the low j bits: x & c == (x >> j) << j.
    let j = c.trailing_zeros();
    if c < 0 && (1..=62).contains(&j) && c >> j == -1 {
        return mul_const(floor_div(x, 1i128 << j, w), 1i64 << j);
    }
    // c == 2^m - 1 keeps the low m bits: x & c == x mod 2^m (Euclidean, in
    // two's complement).
    if c > 0 && c & c.wrapping_add(1) == 0 {
        return floor_mod(x, i128::from(c) + 1, w);
    }
    // Low bits of a non-negative mask: uniform when the lanes differ by
    // multiples of 2^bit_len(c), because then their low bits agree.
    if let Shape::Strided { stride, align } = x {
        if stride == 0 || (c >= 0 && stride.trailing_zeros() >= bit_len(c)) {
            let z0 = align_tz(align).max(c.trailing_zeros());
            return if c >= 0 && z0 >= bit_len(c) {
                Shape::zero()
            } else {
                uniform_pow2(z0)
            };
        }
    }
    let zz = z.max(c.trailing_zeros());
    if c >= 0 && zz >= bit_len(c) {
        Shape::zero()
    } else {
        varying_pow2(zz)
    }
}

fn bit_and(x: Opd, y: Opd, w: Option<u32>) -> Shape {
    if let Some(c) = y.c {
        return and_const(x.shape, c, w);
    }
    if let Some(c) = x.c {
        return and_const(y.shape, c, w);
    }
    let tz = lane_tz(x.shape).max(lane_tz(y.shape));
    match (x.shape, y.shape) {
        (
            Shape::Strided {
                stride: 0,
                align: a,
            },
            Shape::Strided {
                stride: 0,
                align: b,
            },
        ) => uniform_pow2(align_tz(a).max(align_tz(b))),
        _ => varying_pow2(tz),
    }
}

/// `x | y` and `x ^ y` without a constant: both uniform stays uniform, and
/// bits that are zero in both operands stay zero.
fn or_xor_var(x: Shape, y: Shape) -> Shape {
    match (x, y) {
        (
            Shape::Strided {
                stride: 0,
                align: a,
            },
            Shape::Strided {
                stride: 0,
                align: b,
            },
        ) => uniform_pow2(align_tz(a).min(align_tz(b))),
        _ => varying_pow2(lane_tz(x).min(lane_tz(y))),
    }
}

fn bit_or(x: Opd, y: Opd, w: Option<u32>) -> Shape {
    let (x, c) = match (x.c, y.c) {
        (_, Some(c)) => (x.shape, c),
        (Some(c), None) => (y.shape, c),
        (None, None) => return or_xor_var(x.shape, y.shape),
    };
    // x | c == (x & ~c) + c, the two summands having no bit in common. When
    // c only has bits that are zero in every lane this is the thesis' "or
    // behaves like add" (Fig. 10.5c).
    add(and_const(x, !c, w), Shape::constant(c))
}

fn bit_xor(x: Opd, y: Opd, w: Option<u32>) -> Shape {
    let (x, c) = match (x.c, y.c) {
        (_, Some(c)) => (x.shape, c),
        (Some(c), None) => (y.shape, c),
        (None, None) => return or_xor_var(x.shape, y.shape),
    };
    match c {
        0 => x,
        -1 => not(x),
        // x ^ c == (x & ~c) + (~x & c), again without common bits.
        _ => add(and_const(x, !c, w), and_const(not(x), c, w)),
    }
}

/// Exact constant folding with the IR's semantics at the type's width.
/// `None` when the operation is undefined (division by zero, overflow of
/// `sdiv`), where any result is sound.
fn fold_binary(op: BinOp, a: i64, b: i64, ty: Ty) -> Option<i64> {
    let bits = ty.bits().clamp(1, 64);
    let ua = truncate(a as u64, bits);
    let ub = truncate(b as u64, bits);
    let sh = shift_amount(b, ty);
    let r: u64 = match op {
        BinOp::Add => a.wrapping_add(b) as u64,
        BinOp::Sub => a.wrapping_sub(b) as u64,
        BinOp::Mul => a.wrapping_mul(b) as u64,
        BinOp::SDiv => a.checked_div(b)? as u64,
        BinOp::SRem => a.checked_rem(b)? as u64,
        BinOp::UDiv => ua.checked_div(ub)?,
        BinOp::URem => ua.checked_rem(ub)?,
        BinOp::Shl => (a as u64).checked_shl(sh)?,
        BinOp::LShr => ua.checked_shr(sh)?,
        BinOp::AShr => a.checked_shr(sh)? as u64,
        BinOp::And => (a & b) as u64,
        BinOp::Or => (a | b) as u64,
        BinOp::Xor => (a ^ b) as u64,
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => return None,
    };
    Some(sign_extend(truncate(r, bits), bits))
}

/// A result decided by one operand alone, for when the other is `Bottom`.
/// Only compile-time constants decide: a zero shape may still grow, and the
/// result must grow with it (monotonicity).
fn decided(op: BinOp, x: Opd, y: Opd) -> Option<Shape> {
    let either = |c: i64| x.fixed_value() == Some(c) || y.fixed_value() == Some(c);
    match op {
        BinOp::Mul | BinOp::And if either(0) => Some(Shape::zero()),
        BinOp::Or if either(-1) => Some(Shape::constant(-1)),
        BinOp::Shl
        | BinOp::LShr
        | BinOp::AShr
        | BinOp::SDiv
        | BinOp::UDiv
        | BinOp::SRem
        | BinOp::URem
            if x.fixed_value() == Some(0) =>
        {
            Some(Shape::zero())
        }
        _ => None,
    }
}

/// Booleans and floats: the basic lattice, plus `and false` / `or true`.
fn basic_binary(op: BinOp, lhs: Operand, rhs: Operand, ty: Ty) -> Shape {
    if ty == Ty::I1 {
        let bit = |o: Operand| o.constant.map(|c| c & 1);
        let decided = match op {
            BinOp::And => bit(lhs) == Some(0) || bit(rhs) == Some(0),
            BinOp::Or => bit(lhs) == Some(1) || bit(rhs) == Some(1),
            _ => false,
        };
        if decided {
            return Shape::uniform();
        }
    }
    generic(&[lhs.shape.basic(), rhs.shape.basic()])
}

/// Integer and float arithmetic, shifts and bit operations (`ty` is the
/// result type, which is also the operands' type). Valid for every width.
pub fn binary(op: BinOp, lhs: Operand, rhs: Operand, ty: Ty) -> Shape {
    binary_impl(op, lhs, rhs, ty, None)
}

/// [`binary`] for SIMD groups of `width` lanes: additionally proves
/// division, remainder and masks uniform or strided when no lane crosses a
/// multiple of the divisor (`(4*l + tid) / 4` is uniform at W = 4 for
/// `tid: (1, 0)`). Never less precise than [`binary`].
pub fn binary_w(op: BinOp, lhs: Operand, rhs: Operand, ty: Ty, width: u32) -> Shape {
    binary_impl(op, lhs, rhs, ty, Some(width.max(1)))
}

fn binary_impl(op: BinOp, lhs: Operand, rhs: Operand, ty: Ty, w: Option<u32>) -> Shape {
    if op.is_float() || !is_sa_type(ty) {
        return basic_binary(op, lhs, rhs, ty);
    }
    let x = Opd::new(lhs, Some(ty));
    let y = Opd::new(rhs, Some(ty));
    if let (Some(a), Some(b)) = (x.c, y.c) {
        // Undefined (a division by zero): the general rules below answer.
        if let Some(r) = fold_binary(op, a, b, ty) {
            return Shape::constant(r);
        }
    }
    if x.is_bottom() || y.is_bottom() {
        return decided(op, x, y).unwrap_or(Shape::Bottom);
    }
    match op {
        BinOp::Add => add(x.shape, y.shape),
        BinOp::Sub => sub(x.shape, y.shape),
        BinOp::Mul => mul(x, y),
        BinOp::SDiv => div(x, y, true, w),
        BinOp::UDiv => div(x, y, false, w),
        BinOp::SRem => rem(x, y, true, w),
        BinOp::URem => rem(x, y, false, w),
        BinOp::Shl => shl(x, y, ty),
        BinOp::LShr | BinOp::AShr => shr(x, y, ty, w),
        BinOp::And => bit_and(x, y, w),
        BinOp::Or => bit_or(x, y, w),
        BinOp::Xor => bit_xor(x, y, w),
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => {
            generic(&[x.shape, y.shape])
        }
    }
}

/// `base + offset` in bytes.
pub fn ptr_add(base: Operand, offset: Operand) -> Shape {
    let x = Opd::new(base, None);
    let y = Opd::new(offset, None);
    if let (Some(a), Some(b)) = (x.c, y.c) {
        return Shape::constant(a.wrapping_add(b));
    }
    if x.is_bottom() || y.is_bottom() {
        return Shape::Bottom;
    }
    add(x.shape, y.shape)
}

/// Float negation (basic lattice).
pub fn fneg(value: Shape) -> Shape {
    value.basic()
}

// ---------------------------------------------------------------------------
// Comparisons.

/// Lane t of an operand is `g*m + delta*t + off` for some integer m (m = 0
/// when g = 0). Strided shapes and constants have this form; the difference
/// of two such operands has it too.
#[derive(Clone, Copy, Debug)]
struct Affine {
    g: i128,
    delta: i128,
    off: i128,
}

impl Affine {
    fn of(x: Opd) -> Option<Affine> {
        if let Some(c) = x.c {
            return Some(Affine {
                g: 0,
                delta: 0,
                off: i128::from(c),
            });
        }
        match x.shape {
            Shape::Strided { stride, align } => Some(Affine {
                g: i128::from(align),
                delta: i128::from(stride),
                off: 0,
            }),
            _ => None,
        }
    }

    fn minus(self, o: Affine) -> Affine {
        Affine {
            g: gcd128(self.g, o.g),
            delta: self.delta - o.delta,
            off: self.off - o.off,
        }
    }

    /// Can lane `t` be 0?
    fn zero_possible_at(self, t: i128) -> bool {
        let v = self.off + self.delta * t;
        if self.g == 0 {
            v == 0
        } else {
            v % self.g == 0
        }
    }
}

/// Widths beyond this are answered conservatively (SIMD widths are <= 64).
const MAX_LANES: u32 = 4096;

/// Is `d_t == 0` the same on every lane, for every m?
fn eq_uniform(d: Affine, w: u32) -> bool {
    if d.delta == 0 {
        return true;
    }
    if w > MAX_LANES {
        return false;
    }
    // delta != 0: at most one lane is 0; uniform iff no lane can be.
    !(0..i128::from(w)).any(|t| d.zero_possible_at(t))
}

/// Is `d_t >= theta` the same on every lane, for every m?
fn ge_uniform(d: Affine, theta: i128, w: u32) -> bool {
    if d.delta == 0 {
        return true;
    }
    let span = d.delta.abs() * i128::from(w - 1);
    if d.g == 0 {
        // One exact vector, linear in t: compare the end lanes.
        let first = d.off >= theta;
        let last = d.off + d.delta * i128::from(w - 1) >= theta;
        return first == last;
    }
    // Lane 0 ranges over b ≡ off (mod g). The lanes cross theta iff b lies
    // in [lo, hi] (Fig. 10.13: the two lines do not cross).
    let (lo, hi) = if d.delta > 0 {
        (theta - span, theta - 1)
    } else {
        (theta, theta + span - 1)
    };
    let first_b = lo + (d.off - lo).rem_euclid(d.g);
    first_b > hi
}

/// Integer and float comparisons; `width` is W. The result is a boolean:
/// `uniform()` or `varying()` (or `Bottom` while an operand is unknown).
///
/// Integer comparisons are decided on the difference `d = lhs - rhs`: when
/// it is the same on every lane, so is the comparison (`x < x + 1` with any
/// stride); otherwise the sign of `d` (or its being zero) must be the same
/// on every lane for every concretization. The check is exact for strided
/// and constant operands: `d_t = g*m + off + delta*t` crosses the threshold
/// (0 for `>=`/`<`, 1 for `>`/`<=`) between two lanes for some m iff a
/// value `≡ off (mod g)` lies in an interval of length `|delta|*(W-1)`.
/// With `off = 0` and threshold 0 this is the thesis' `icmp sge` rule
/// `(max(s,s') - min(s,s'))*(W-1) < gcd(a,a')`; the strict direction needs
/// one more (`4*l + tid > 36*k` at W = 4 is varying: lane 0 is false when
/// `4*l == 36*k`). Unsigned predicates use the same rules on the
/// non-negative values of the model.
pub fn compare(pred: CmpPred, lhs: Operand, rhs: Operand, width: u32) -> Shape {
    if pred.is_float() {
        return generic(&[lhs.shape.basic(), rhs.shape.basic()]);
    }
    let x = Opd::new(lhs, None);
    let y = Opd::new(rhs, None);
    if x.c.is_some() && y.c.is_some() {
        return Shape::uniform();
    }
    if x.is_bottom() || y.is_bottom() {
        return Shape::Bottom;
    }
    let w = width.max(1);
    if w == 1 || (x.shape.is_uniform() && y.shape.is_uniform()) {
        return Shape::uniform();
    }
    let uniform = match (Affine::of(x), Affine::of(y)) {
        (Some(a), Some(b)) => {
            let d = a.minus(b);
            match pred {
                CmpPred::Eq | CmpPred::Ne => eq_uniform(d, w),
                // x >= y  <=>  d >= 0;  x > y  <=>  d >= 1; the others are
                // negations of these, which does not change uniformity.
                CmpPred::Sge | CmpPred::Uge | CmpPred::Slt | CmpPred::Ult => ge_uniform(d, 0, w),
                CmpPred::Sgt | CmpPred::Ugt | CmpPred::Sle | CmpPred::Ule => ge_uniform(d, 1, w),
                _ => false,
            }
        }
        // A varying operand: only (in)equality with a constant that is not a
        // multiple of the lanes' alignment is decided the same way on all
        // lanes (it never holds).
        _ => match (pred, x.c, y.c) {
            (CmpPred::Eq | CmpPred::Ne, Some(c), None) => {
                !divides(lane_align(y.shape), c.unsigned_abs())
            }
            (CmpPred::Eq | CmpPred::Ne, None, Some(c)) => {
                !divides(lane_align(x.shape), c.unsigned_abs())
            }
            _ => false,
        },
    };
    if uniform {
        Shape::uniform()
    } else {
        Shape::varying()
    }
}

// ---------------------------------------------------------------------------
// Select, casts, math.

/// `cond ? then : els`. A uniform condition picks the same operand on every
/// lane (the join); a varying one mixes them lane by lane, keeping only the
/// common lane alignment.
pub fn select(cond: Shape, then: Operand, els: Operand) -> Shape {
    let t = Opd::new(then, None);
    let e = Opd::new(els, None);
    if let (Some(a), Some(b)) = (t.fixed_value(), e.fixed_value()) {
        if a == b {
            return Shape::constant(a);
        }
    }
    let cond = cond.normalized().basic();
    if cond.is_bottom() {
        return Shape::Bottom;
    }
    if cond.is_uniform() {
        return t.shape.join(e.shape);
    }
    // A varying condition mixes the arms lane by lane. An arm that is ⊥
    // (undef, or not reached yet) constrains nothing, but the other arm's
    // lanes still differ from each other: varying, not ⊥ (monotone: any
    // value for the ⊥ arm gives a varying result at most this aligned).
    match (t.is_bottom(), e.is_bottom()) {
        (true, true) => Shape::Bottom,
        (true, false) => Shape::varying_aligned(lane_align(e.shape)),
        (false, true) => Shape::varying_aligned(lane_align(t.shape)),
        (false, false) => Shape::varying_aligned(gcd(lane_align(t.shape), lane_align(e.shape))),
    }
}

/// Exact value of a cast of an integer constant, `None` when a float is
/// involved.
fn fold_cast(op: CastOp, c: i64, from: Ty, to: Ty) -> Option<i64> {
    if !(from.is_int() || from.is_ptr()) || !(to.is_int() || to.is_ptr()) {
        return None;
    }
    let c = norm_const(c, from);
    let r = match op {
        CastOp::ZExt => {
            let bits = from.bits();
            if bits >= 64 {
                c
            } else {
                truncate(c as u64, bits) as i64
            }
        }
        CastOp::SExt => c,
        _ => c,
    };
    Some(norm_const(r, to))
}

/// Conversions. Integer-to-integer and pointer casts keep the shape (the
/// value does not change in the model: `trunc` of a value that fits, `zext`
/// of a non-negative one); anything through a float or a boolean goes
/// through the basic lattice.
pub fn cast(op: CastOp, value: Operand, from: Ty, to: Ty) -> Shape {
    let to_sa = is_sa_type(to);
    if let Some(c) = value.constant {
        return match fold_cast(op, c, from, to) {
            Some(r) if to_sa => Shape::constant(r),
            _ => Shape::uniform(),
        };
    }
    let s = value.shape.normalized();
    if s.is_bottom() {
        return Shape::Bottom;
    }
    if !to_sa || !is_sa_type(from) {
        // u <-> (0, 1), v <-> 1 (§10.2.1).
        return s.basic();
    }
    match op {
        CastOp::Trunc
        | CastOp::ZExt
        | CastOp::SExt
        | CastOp::Bitcast
        | CastOp::PtrToInt
        | CastOp::IntToPtr
        | CastOp::PtrCast => s,
        _ => s.basic(),
    }
}

fn min_max(func: MathFn, x: Opd, y: Opd, ty: Ty) -> Shape {
    if let (Some(a), Some(b)) = (x.c, y.c) {
        let bits = ty.bits().clamp(1, 64);
        let (ua, ub) = (truncate(a as u64, bits), truncate(b as u64, bits));
        let r = match func {
            MathFn::SMin => a.min(b),
            MathFn::SMax => a.max(b),
            MathFn::UMin => sign_extend(ua.min(ub), bits),
            _ => sign_extend(ua.max(ub), bits),
        };
        return Shape::constant(r);
    }
    if x.is_bottom() || y.is_bottom() {
        return Shape::Bottom;
    }
    match (x.shape, y.shape) {
        // Same stride: the difference is lane-independent, so every lane
        // picks the same side.
        (
            Shape::Strided {
                stride: s,
                align: a,
            },
            Shape::Strided {
                stride: t,
                align: b,
            },
        ) if s == t => Shape::Strided {
            stride: s,
            align: gcd(a, b),
        },
        // Lane t holds s*t and s'*t exactly: t >= 0 picks the same stride
        // on every lane.
        (
            Shape::Strided {
                stride: s,
                align: 0,
            },
            Shape::Strided {
                stride: t,
                align: 0,
            },
        ) => {
            let pick_min = matches!(func, MathFn::SMin | MathFn::UMin);
            Shape::Strided {
                stride: if pick_min { s.min(t) } else { s.max(t) },
                align: 0,
            }
        }
        // Each lane is one of the two.
        (xs, ys) => Shape::varying_aligned(gcd(lane_align(xs), lane_align(ys))),
    }
}

fn iabs(x: Opd) -> Shape {
    if let Some(c) = x.c {
        return Shape::constant(c.wrapping_abs());
    }
    match x.shape {
        Shape::Bottom => Shape::Bottom,
        s @ Shape::Strided { stride: 0, .. } => s,
        // Lane t holds exactly s*t, all of one sign.
        Shape::Strided { stride, align: 0 } => match stride.checked_abs() {
            Some(s) => Shape::Strided {
                stride: s,
                align: 0,
            },
            None => Shape::varying_aligned(stride.unsigned_abs()),
        },
        s => Shape::varying_aligned(lane_align(s)),
    }
}

/// Element-wise math builtins (`ty` is the result type).
pub fn math(func: MathFn, args: &[Operand], ty: Ty) -> Shape {
    let int = is_sa_type(ty) && func.is_integer();
    match (func, args) {
        (MathFn::SMin | MathFn::SMax | MathFn::UMin | MathFn::UMax, [a, b]) if int => {
            min_max(func, Opd::new(*a, Some(ty)), Opd::new(*b, Some(ty)), ty)
        }
        (MathFn::IAbs, [a]) if int => iabs(Opd::new(*a, Some(ty))),
        _ => {
            if args.iter().all(|a| a.constant.is_some()) {
                return Shape::uniform();
            }
            let shapes: Vec<Shape> = args.iter().map(|a| a.shape.normalized()).collect();
            generic(&shapes)
        }
    }
}

/// A clamp of lanes that rise by one: `x = smin(smax(s, lo), hi)` (either
/// order, or one of the two) with `s` of shape stride 1 and uniform
/// bounds. Its shape is varying, but in a SIMD group whose `s` lies inside
/// `[lo, hi]` from lane 0 to lane W-1 the clamp moves no lane and `x`'s
/// lanes rise by one too: the code generator then loads `in[... + x]`
/// with one packed load (`codegen/src/emit/clamped.rs`), and the report
/// says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitClamp {
    pub s: crate::ir::ValueId,
    pub lo: Option<crate::ir::ValueId>,
    pub hi: Option<crate::ir::ValueId>,
}

/// The clamp `x` is (see [`UnitClamp`]), given each value's shape.
pub fn unit_clamp(
    f: &crate::ir::Function,
    shape: &impl Fn(crate::ir::ValueId) -> Shape,
    x: crate::ir::ValueId,
) -> Option<UnitClamp> {
    use crate::ir::InstKind;
    let uniform = |v| {
        let s = shape(v);
        s.is_bottom() || s.is_uniform()
    };
    let mut c = UnitClamp {
        s: x,
        lo: None,
        hi: None,
    };
    let mut at = x;
    for _ in 0..2 {
        let Some(d) = f.def_inst(at) else { break };
        let InstKind::Math { func, ref args } = f.inst(d).kind else {
            break;
        };
        let [a, b] = args[..] else { break };
        let (inner, bound) = match (uniform(a), uniform(b)) {
            (false, true) => (a, b),
            (true, false) => (b, a),
            _ => return None,
        };
        match func {
            MathFn::SMax if c.lo.is_none() => c.lo = Some(bound),
            MathFn::SMin if c.hi.is_none() => c.hi = Some(bound),
            _ => break,
        }
        at = inner;
    }
    c.s = at;
    let unit = matches!(shape(at), Shape::Strided { stride: 1, .. });
    (unit && (c.lo.is_some() || c.hi.is_some()) && f.ty(at).is_int()).then_some(c)
}

/// The clamped index of the address `ptr`: `ptr` is uniform terms plus
/// `factor` bytes per unit of `x`, a [`UnitClamp`], through pointer
/// offsets, additions and subtractions of uniform values, multiplications
/// and shifts by constants and sign extensions (OpenCL C's signed
/// arithmetic does not wrap). Returns `x`, its clamp and `factor`; the
/// access is one element per lane inside the clamp when `factor` is the
/// element's size. The report and the code generator both decide with it.
pub fn clamped_index(
    f: &crate::ir::Function,
    shape: impl Fn(crate::ir::ValueId) -> Shape,
    ptr: crate::ir::ValueId,
) -> Option<(crate::ir::ValueId, UnitClamp, i64)> {
    use crate::ir::{Const, InstKind};
    let uniform = |v| {
        let s = shape(v);
        s.is_bottom() || s.is_uniform()
    };
    let konst = |v| match f.as_const(v) {
        Some(Const::Int(k, t)) if t.is_int() => Some(sign_extend(k, t.bits())),
        _ => None,
    };
    let (mut v, mut factor) = (ptr, 1i64);
    for _ in 0..16 {
        if let Some(c) = unit_clamp(f, &shape, v) {
            return Some((v, c, factor));
        }
        v = match f.inst(f.def_inst(v)?).kind {
            InstKind::PtrAdd { base, offset } if uniform(base) => offset,
            InstKind::Bin {
                op: BinOp::Add,
                lhs,
                rhs,
            } if uniform(lhs) => rhs,
            InstKind::Bin {
                op: BinOp::Add | BinOp::Sub,
                lhs,
                rhs,
            } if uniform(rhs) => lhs,
            InstKind::Bin {
                op: BinOp::Mul,
                lhs,
                rhs,
            } => {
                let (x, k) = match (konst(lhs), konst(rhs)) {
                    (_, Some(k)) => (lhs, k),
                    (Some(k), _) => (rhs, k),
                    _ => return None,
                };
                factor = factor.checked_mul(k)?;
                x
            }
            InstKind::Bin {
                op: BinOp::Shl,
                lhs,
                rhs,
            } => {
                let k = konst(rhs).filter(|k| (0..32).contains(k))?;
                factor = factor.checked_mul(1 << k)?;
                lhs
            }
            InstKind::Cast {
                op: CastOp::SExt,
                value,
            } => value,
            _ => return None,
        };
    }
    None
}
