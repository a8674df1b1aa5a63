//! Semantic types of OpenCL C as lanes compiles it (64-bit targets:
//! `size_t` is `ulong`, pointers are 8 bytes).

use std::fmt;

pub use crate::ast::AddressSpace;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
}

impl Scalar {
    pub const ALL: [Scalar; 12] = [
        Scalar::Bool,
        Scalar::Char,
        Scalar::UChar,
        Scalar::Short,
        Scalar::UShort,
        Scalar::Int,
        Scalar::UInt,
        Scalar::Long,
        Scalar::ULong,
        Scalar::Half,
        Scalar::Float,
        Scalar::Double,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            Scalar::Half => "half",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    pub fn from_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Size in bytes (`bool` is stored as one byte).
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort | Scalar::Half => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::Double => 8,
        }
    }

    pub fn is_integer(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Half | Scalar::Float | Scalar::Double)
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Char | Scalar::Short | Scalar::Int | Scalar::Long
        ) || self.is_float()
    }

    /// C's integer conversion rank (bool lowest); floats rank above all integers.
    pub fn rank(self) -> u8 {
        match self {
            Scalar::Bool => 0,
            Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt => 3,
            Scalar::Long | Scalar::ULong => 4,
            Scalar::Half => 5,
            Scalar::Float => 6,
            Scalar::Double => 7,
        }
    }

    /// The unsigned integer type of the same size.
    pub fn to_unsigned(self) -> Scalar {
        match self {
            Scalar::Char => Scalar::UChar,
            Scalar::Short => Scalar::UShort,
            Scalar::Int => Scalar::UInt,
            Scalar::Long => Scalar::ULong,
            s => s,
        }
    }

    /// The signed integer type of the same size (for vector comparison results:
    /// `float4 < float4` is `int4`).
    pub fn to_signed_integer(self) -> Scalar {
        match self.size() {
            1 => Scalar::Char,
            2 => Scalar::Short,
            4 => Scalar::Int,
            _ => Scalar::Long,
        }
    }
}

/// Index of a struct definition in the checked unit's struct table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// Opaque OpenCL types that can be named but not compiled yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opaque {
    Image,
    Sampler,
    Event,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Scalar(Scalar),
    /// Element type and component count (2, 3, 4, 8 or 16).
    Vector(Scalar, u8),
    Pointer(Box<Pointer>),
    /// Element type and length.
    Array(Box<Type>, u64),
    Struct(StructId),
    Opaque(Opaque, &'static str),
    /// The type of an expression that already failed to check; it is
    /// compatible with everything so one mistake is reported once.
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pointer {
    pub pointee: Type,
    pub space: AddressSpace,
    /// The pointee is `const` (always true for `__constant`).
    pub pointee_const: bool,
}

impl Type {
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);
    pub const INT: Type = Type::Scalar(Scalar::Int);
    pub const UINT: Type = Type::Scalar(Scalar::UInt);
    pub const LONG: Type = Type::Scalar(Scalar::Long);
    pub const ULONG: Type = Type::Scalar(Scalar::ULong);
    pub const FLOAT: Type = Type::Scalar(Scalar::Float);
    pub const DOUBLE: Type = Type::Scalar(Scalar::Double);
    /// `size_t` on the 64-bit targets lanes supports.
    pub const SIZE_T: Type = Type::Scalar(Scalar::ULong);

    pub fn pointer(pointee: Type, space: AddressSpace, pointee_const: bool) -> Type {
        Type::Pointer(Box::new(Pointer {
            pointee,
            space,
            pointee_const,
        }))
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }

    pub fn is_void(&self) -> bool {
        matches!(self, Type::Void)
    }

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The element type of a scalar or vector.
    pub fn element(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) => Some(*s),
            _ => None,
        }
    }

    /// Component count of a vector, 1 for a scalar.
    pub fn width(&self) -> Option<u8> {
        match self {
            Type::Scalar(_) => Some(1),
            Type::Vector(_, n) => Some(*n),
            _ => None,
        }
    }

    pub fn is_vector(&self) -> bool {
        matches!(self, Type::Vector(..))
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer(_))
    }

    pub fn is_arithmetic(&self) -> bool {
        matches!(self, Type::Scalar(_) | Type::Vector(..))
    }

    pub fn is_integer(&self) -> bool {
        self.element().is_some_and(Scalar::is_integer)
    }

    pub fn is_float(&self) -> bool {
        self.element().is_some_and(Scalar::is_float)
    }

    /// Scalars (including bool) and pointers: what a condition may be.
    pub fn is_scalar_condition(&self) -> bool {
        matches!(self, Type::Scalar(_) | Type::Pointer(_))
    }

    pub fn pointee(&self) -> Option<&Pointer> {
        match self {
            Type::Pointer(p) => Some(p),
            _ => None,
        }
    }
}

/// Vector type names: `float4` -> (Float, 4).
pub fn parse_vector_name(name: &str) -> Option<(Scalar, u8)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let (base, n) = name.split_at(name.len() - digits);
    let n: u8 = n.parse().ok()?;
    if !matches!(n, 2 | 3 | 4 | 8 | 16) {
        return None;
    }
    let s = Scalar::from_name(base)?;
    (s != Scalar::Bool).then_some((s, n))
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Scalar(s) => f.write_str(s.name()),
            Type::Vector(s, n) => write!(f, "{}{}", s.name(), n),
            Type::Pointer(p) => {
                let space = match p.space {
                    AddressSpace::Private => "",
                    s => s.keyword(),
                };
                let c = if p.pointee_const && p.space != AddressSpace::Constant {
                    "const "
                } else {
                    ""
                };
                if space.is_empty() {
                    write!(f, "{c}{} *", p.pointee)
                } else {
                    write!(f, "{space} {c}{} *", p.pointee)
                }
            }
            Type::Array(t, n) => write!(f, "{t}[{n}]"),
            Type::Struct(id) => write!(f, "struct #{}", id.0),
            Type::Opaque(_, name) => f.write_str(name),
            Type::Error => f.write_str("<error>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_names() {
        assert_eq!(parse_vector_name("float4"), Some((Scalar::Float, 4)));
        assert_eq!(parse_vector_name("uchar16"), Some((Scalar::UChar, 16)));
        assert_eq!(parse_vector_name("int5"), None);
        assert_eq!(parse_vector_name("bool2"), None);
        assert_eq!(parse_vector_name("float"), None);
    }

    #[test]
    fn display() {
        let p = Type::pointer(Type::FLOAT, AddressSpace::Global, true);
        assert_eq!(p.to_string(), "__global const float *");
        assert_eq!(Type::Vector(Scalar::Int, 8).to_string(), "int8");
    }
}
