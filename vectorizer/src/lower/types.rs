//! HIR types as IR values: register types, scalar leaves of aggregates, and
//! the bytes of `__constant` initializers.

use lanes_frontend::ast::AddressSpace;
use lanes_frontend::hir::{self, ConstInit, ConstValue};
use lanes_frontend::types::{Opaque, Scalar, Type};

use crate::ir::Ty;

/// More scalar leaves than this in one aggregate value are refused (a copy
/// is one load and one store per leaf).
pub(crate) const MAX_LEAVES: usize = 1 << 16;
/// Struct and array nesting deeper than this is refused.
const MAX_TYPE_DEPTH: u32 = 256;

/// The register type of a scalar (`bool` is `i1`); `None` for `half`.
pub(crate) fn scalar_ty(s: Scalar) -> Option<Ty> {
    Some(match s {
        Scalar::Bool => Ty::I1,
        Scalar::Char | Scalar::UChar => Ty::I8,
        Scalar::Short | Scalar::UShort => Ty::I16,
        Scalar::Int | Scalar::UInt => Ty::I32,
        Scalar::Long | Scalar::ULong => Ty::I64,
        Scalar::Float => Ty::F32,
        Scalar::Double => Ty::F64,
        Scalar::Half => return None,
    })
}

/// A scalar piece of a value: an arithmetic scalar or a pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LeafTy {
    Scalar(Scalar),
    Ptr(AddressSpace),
    /// An image handle (parameters and their copies only).
    Image,
}

impl LeafTy {
    /// The type in registers (`i1` for `bool`).
    pub fn reg(self) -> Ty {
        match self {
            LeafTy::Scalar(s) => scalar_ty(s).unwrap_or(Ty::I16),
            LeafTy::Ptr(space) => Ty::Ptr(space),
            LeafTy::Image => Ty::Image,
        }
    }

    /// The type in memory (`i8` for `bool`).
    pub fn mem(self) -> Ty {
        match self {
            LeafTy::Scalar(Scalar::Bool) => Ty::I8,
            other => other.reg(),
        }
    }

    pub fn size(self) -> u64 {
        self.mem().bytes()
    }

    pub fn is_bool(self) -> bool {
        self == LeafTy::Scalar(Scalar::Bool)
    }
}

/// The component types of a value kept in registers: scalars, vectors
/// (one per component) and pointers. `None` for aggregates, `void` and
/// types the vectorizer does not support (`half`).
pub(crate) fn reg_comps(ty: &Type) -> Option<Vec<LeafTy>> {
    match ty {
        Type::Scalar(s) => {
            scalar_ty(*s)?;
            Some(vec![LeafTy::Scalar(*s)])
        }
        Type::Vector(s, n) => {
            scalar_ty(*s)?;
            Some(vec![LeafTy::Scalar(*s); *n as usize])
        }
        Type::Pointer(p) => Some(vec![LeafTy::Ptr(p.space)]),
        Type::Opaque(Opaque::Event, _) => Some(vec![EVENT]),
        Type::Opaque(Opaque::Sampler, _) => Some(vec![SAMPLER]),
        Type::Opaque(Opaque::Image(..), _) => Some(vec![LeafTy::Image]),
        _ => None,
    }
}

/// An `event_t` (of `async_work_group_copy`) is a handle kept as a 64-bit
/// integer: the lowered copy completes before it returns one.
const EVENT: LeafTy = LeafTy::Scalar(Scalar::ULong);

/// A `sampler_t` is its `CLK_*` bits, as clang's sampler initializers.
const SAMPLER: LeafTy = LeafTy::Scalar(Scalar::UInt);

/// True for the types of variables kept in SSA form (unless their address
/// is taken).
pub(crate) fn is_register_type(ty: &Type) -> bool {
    reg_comps(ty).is_some()
}

/// The scalar leaves of a value of type `ty` (byte offset, leaf type), in
/// offset order: components of vectors (a 3-vector has 3 leaves), elements
/// of arrays, fields of structs. An error message for types without a
/// layout or with too many leaves.
pub(crate) fn leaves(unit: &hir::Unit, ty: &Type) -> Result<Vec<(u64, LeafTy)>, String> {
    let mut out = Vec::new();
    collect_leaves(unit, ty, 0, 0, &mut out)?;
    Ok(out)
}

fn collect_leaves(
    unit: &hir::Unit,
    ty: &Type,
    base: u64,
    depth: u32,
    out: &mut Vec<(u64, LeafTy)>,
) -> Result<(), String> {
    if depth > MAX_TYPE_DEPTH {
        return Err(format!(
            "types nested more than {MAX_TYPE_DEPTH} levels deep are not supported by the vectorizer"
        ));
    }
    let too_many = || {
        format!(
            "values of type `{}` have more than {MAX_LEAVES} scalars; copying them by value is not supported by the vectorizer",
            unit.type_name(ty)
        )
    };
    match ty {
        Type::Scalar(Scalar::Half) | Type::Vector(Scalar::Half, _) => {
            Err("`half` values are not supported by the vectorizer yet".into())
        }
        Type::Scalar(s) => {
            out.push((base, LeafTy::Scalar(*s)));
            Ok(())
        }
        Type::Vector(s, n) => {
            let size = u64::from(s.size());
            for c in 0..u64::from(*n) {
                out.push((base + c * size, LeafTy::Scalar(*s)));
            }
            Ok(())
        }
        Type::Pointer(p) => {
            out.push((base, LeafTy::Ptr(p.space)));
            Ok(())
        }
        Type::Opaque(Opaque::Event, _) => {
            out.push((base, EVENT));
            Ok(())
        }
        Type::Opaque(Opaque::Sampler, _) => {
            out.push((base, SAMPLER));
            Ok(())
        }
        Type::Opaque(Opaque::Image(..), _) => {
            out.push((base, LeafTy::Image));
            Ok(())
        }
        Type::Array(elem, n) => {
            let size = unit
                .size_of(elem)
                .ok_or_else(|| format!("`{}` has no size", unit.type_name(elem)))?;
            let mut one = Vec::new();
            collect_leaves(unit, elem, 0, depth + 1, &mut one)?;
            let total = (one.len() as u64).saturating_mul(*n);
            if total > MAX_LEAVES as u64 {
                return Err(too_many());
            }
            for i in 0..*n {
                for &(off, leaf) in &one {
                    out.push((base + i * size + off, leaf));
                }
            }
            Ok(())
        }
        Type::Struct(id) => {
            let def = unit
                .structs
                .get(id.0 as usize)
                .filter(|d| d.complete)
                .ok_or_else(|| format!("`{}` is an incomplete type", unit.type_name(ty)))?;
            if def.is_union {
                return union_leaves(unit, def, base, depth, out);
            }
            for field in &def.fields {
                collect_leaves(unit, &field.ty, base + field.offset, depth + 1, out)?;
                if out.len() > MAX_LEAVES {
                    return Err(too_many());
                }
            }
            Ok(())
        }
        Type::Void => Ok(()),
        Type::Opaque(_, name) => Err(format!(
            "values of type `{name}` are not supported by the vectorizer"
        )),
        Type::Error => Err("an expression of this type did not type-check".into()),
    }
}

/// A union is copied as its bytes, in the widest integers its size and
/// alignment allow: its members overlap, so copying them one by one would
/// store some bytes twice, and a `bool` member would clip the byte it shares
/// with a wider one. Pointers cannot be moved through integers in the IR.
fn union_leaves(
    unit: &hir::Unit,
    def: &hir::StructDef,
    base: u64,
    depth: u32,
    out: &mut Vec<(u64, LeafTy)>,
) -> Result<(), String> {
    for field in &def.fields {
        let mut inner = Vec::new();
        collect_leaves(unit, &field.ty, 0, depth + 1, &mut inner)?;
        if inner.iter().any(|(_, l)| matches!(l, LeafTy::Ptr(_))) {
            return Err(format!(
                "unions with pointer members (`{}`) are not supported by the vectorizer",
                field.name
            ));
        }
    }
    let chunk = [Scalar::ULong, Scalar::UInt, Scalar::UShort, Scalar::UChar]
        .into_iter()
        .find(|s| {
            let n = u64::from(s.size());
            def.size.is_multiple_of(n) && def.align.is_multiple_of(n)
        })
        .unwrap_or(Scalar::UChar);
    let n = u64::from(chunk.size());
    if def.size / n > MAX_LEAVES as u64 {
        return Err(format!(
            "values of type `{} {}` are too large to copy by value in the vectorizer",
            def.keyword(),
            def.name
        ));
    }
    for i in 0..def.size / n {
        out.push((base + i * n, LeafTy::Scalar(chunk)));
    }
    Ok(())
}

/// The bytes of a `__constant` variable of type `ty` initialized with
/// `init`, little-endian, in the OpenCL layout (`unit.size_of`).
pub(crate) fn const_bytes(
    unit: &hir::Unit,
    ty: &Type,
    init: Option<&ConstInit>,
) -> Result<Vec<u8>, String> {
    let size = unit
        .size_of(ty)
        .ok_or_else(|| format!("`{}` has no size", unit.type_name(ty)))?;
    let size = usize::try_from(size)
        .ok()
        .filter(|&s| s <= 1 << 28)
        .ok_or_else(|| "the `__constant` variable is too large".to_string())?;
    let mut bytes = vec![0u8; size];
    if let Some(init) = init {
        write_init(unit, ty, init, 0, &mut bytes, 0)?;
    }
    Ok(bytes)
}

fn write_init(
    unit: &hir::Unit,
    ty: &Type,
    init: &ConstInit,
    at: usize,
    out: &mut [u8],
    depth: u32,
) -> Result<(), String> {
    if depth > MAX_TYPE_DEPTH {
        return Err("the initializer is nested too deeply".into());
    }
    match (ty, init) {
        (_, ConstInit::Zero) => Ok(()),
        (Type::Scalar(s), ConstInit::Scalar(v)) => write_scalar(*s, *v, at, out),
        (Type::Scalar(s), ConstInit::Vector(vs)) => match vs.first() {
            Some(v) => write_scalar(*s, *v, at, out),
            None => Ok(()),
        },
        (Type::Vector(s, n), ConstInit::Vector(vs)) => {
            let size = s.size() as usize;
            for (c, v) in vs.iter().take(*n as usize).enumerate() {
                write_scalar(*s, *v, at + c * size, out)?;
            }
            Ok(())
        }
        (Type::Vector(s, n), ConstInit::Scalar(v)) => {
            let size = s.size() as usize;
            for c in 0..*n as usize {
                write_scalar(*s, *v, at + c * size, out)?;
            }
            Ok(())
        }
        (Type::Array(elem, n), ConstInit::Array(items)) => {
            let size = unit.size_of(elem).unwrap_or(0) as usize;
            for (i, item) in items.iter().take(*n as usize).enumerate() {
                write_init(unit, elem, item, at + i * size, out, depth + 1)?;
            }
            Ok(())
        }
        (Type::Struct(id), ConstInit::Struct(items)) => {
            let Some(def) = unit.structs.get(id.0 as usize) else {
                return Err("the initializer's struct is unknown".into());
            };
            for (field, item) in def.fields.iter().zip(items) {
                write_init(
                    unit,
                    &field.ty,
                    item,
                    at + field.offset as usize,
                    out,
                    depth + 1,
                )?;
            }
            Ok(())
        }
        (Type::Pointer(_), ConstInit::Scalar(v)) if v.is_zero() => Ok(()),
        _ => Err(format!(
            "the initializer does not match the type `{}`",
            unit.type_name(ty)
        )),
    }
}

fn write_scalar(s: Scalar, v: ConstValue, at: usize, out: &mut [u8]) -> Result<(), String> {
    let size = s.size() as usize;
    let bits: u64 = match s {
        Scalar::Float => (const_as_f64(v) as f32).to_bits() as u64,
        Scalar::Double => const_as_f64(v).to_bits(),
        Scalar::Half => return Err("`half` values are not supported by the vectorizer yet".into()),
        Scalar::Bool => u64::from(!v.is_zero()),
        _ => match v {
            ConstValue::Int(x, _) => x,
            // C's conversion of a float constant to an integer type.
            ConstValue::Float(x, _) => {
                if s.is_signed() {
                    x as i64 as u64
                } else {
                    x as u64
                }
            }
        },
    };
    let Some(dst) = out.get_mut(at..at + size) else {
        return Err("the initializer does not fit its variable".into());
    };
    dst.copy_from_slice(&bits.to_le_bytes()[..size]);
    Ok(())
}

fn const_as_f64(v: ConstValue) -> f64 {
    match v {
        ConstValue::Float(x, _) => x,
        ConstValue::Int(x, s) => {
            if s.is_signed() {
                x as i64 as f64
            } else {
                x as f64
            }
        }
    }
}
