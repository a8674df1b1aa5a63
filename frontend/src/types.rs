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

/// Opaque OpenCL types: values the program passes around but cannot look
/// into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opaque {
    Image(ImageDim, ImageAccess),
    Sampler,
    Event,
    Other,
}

/// The image types of OpenCL C 1.2 and 2.0 (without the MSAA ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    D1,
    D1Buffer,
    D1Array,
    D2,
    D2Array,
    D3,
    D2Depth,
    D2ArrayDepth,
}

impl ImageDim {
    pub const ALL: [ImageDim; 8] = [
        ImageDim::D1,
        ImageDim::D1Buffer,
        ImageDim::D1Array,
        ImageDim::D2,
        ImageDim::D2Array,
        ImageDim::D3,
        ImageDim::D2Depth,
        ImageDim::D2ArrayDepth,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ImageDim::D1 => "image1d_t",
            ImageDim::D1Buffer => "image1d_buffer_t",
            ImageDim::D1Array => "image1d_array_t",
            ImageDim::D2 => "image2d_t",
            ImageDim::D2Array => "image2d_array_t",
            ImageDim::D3 => "image3d_t",
            ImageDim::D2Depth => "image2d_depth_t",
            ImageDim::D2ArrayDepth => "image2d_array_depth_t",
        }
    }

    pub fn from_name(name: &str) -> Option<ImageDim> {
        ImageDim::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Components of an integer coordinate: `int`, `int2` or `int4` (the
    /// array index of an image array is the last used component).
    pub fn coord_width(self) -> u8 {
        match self {
            ImageDim::D1 | ImageDim::D1Buffer => 1,
            ImageDim::D1Array | ImageDim::D2 | ImageDim::D2Depth => 2,
            ImageDim::D2Array | ImageDim::D3 | ImageDim::D2ArrayDepth => 4,
        }
    }

    /// Coordinate components that address pixels (x, y, z), the array
    /// index excluded.
    pub fn spatial(self) -> u8 {
        match self {
            ImageDim::D1 | ImageDim::D1Buffer | ImageDim::D1Array => 1,
            ImageDim::D2 | ImageDim::D2Depth | ImageDim::D2Array | ImageDim::D2ArrayDepth => 2,
            ImageDim::D3 => 3,
        }
    }

    pub fn is_array(self) -> bool {
        matches!(
            self,
            ImageDim::D1Array | ImageDim::D2Array | ImageDim::D2ArrayDepth
        )
    }

    pub fn is_depth(self) -> bool {
        matches!(self, ImageDim::D2Depth | ImageDim::D2ArrayDepth)
    }
}

/// An image's access qualifier (`__read_only` unless written).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ImageAccess {
    #[default]
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

impl ImageAccess {
    pub fn keyword(self) -> &'static str {
        match self {
            ImageAccess::ReadOnly => "__read_only",
            ImageAccess::WriteOnly => "__write_only",
            ImageAccess::ReadWrite => "__read_write",
        }
    }

    pub fn from_keyword(text: &str) -> Option<ImageAccess> {
        match text.trim_start_matches("__") {
            "read_only" => Some(ImageAccess::ReadOnly),
            "write_only" => Some(ImageAccess::WriteOnly),
            "read_write" => Some(ImageAccess::ReadWrite),
            _ => None,
        }
    }

    pub fn can_read(self) -> bool {
        self != ImageAccess::WriteOnly
    }

    pub fn can_write(self) -> bool {
        self != ImageAccess::ReadOnly
    }
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

    /// An image or a sampler: the types that only exist as function
    /// parameters or (samplers) constants.
    pub fn is_image_or_sampler(&self) -> bool {
        matches!(self, Type::Opaque(Opaque::Image(..) | Opaque::Sampler, _))
    }

    pub fn image(&self) -> Option<(ImageDim, ImageAccess)> {
        match self {
            Type::Opaque(Opaque::Image(d, a), _) => Some((*d, *a)),
            _ => None,
        }
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
            Type::Opaque(Opaque::Image(dim, access), _) => {
                write!(f, "{} {}", access.keyword(), dim.name())
            }
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
