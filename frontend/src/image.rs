//! The image built-ins of OpenCL C 1.2 and 2.0: `read_image{f,i,ui}`,
//! `write_image{f,i,ui}` and the `get_image_*` queries. Their overloads
//! depend on the image type, its access qualifier and whether a sampler is
//! passed, so they are checked by rule (`sema::image`), as clang's
//! `opencl-c.h` declares them (the MSAA, mipmap and `half` forms excepted).

use crate::types::Scalar;

/// An image built-in, as resolved by the type checker. The HIR call's
/// arguments are those of the source, converted: the image, the sampler
/// (sampled reads only), the coordinate, and the colour (writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageFn {
    /// `read_imagef` (`elem` `Float`), `read_imagei` (`Int`), `read_imageui`
    /// (`UInt`); `sampled` when a sampler is passed.
    Read {
        elem: Scalar,
        sampled: bool,
    },
    /// `write_imagef`/`write_imagei`/`write_imageui`.
    Write {
        elem: Scalar,
    },
    Query(ImageQuery),
}

/// `get_image_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum ImageQuery {
    Width,
    Height,
    Depth,
    /// `int2` (width, height) or, for 3-D images, `int4` (width, height,
    /// depth, 0).
    Dim,
    /// `size_t`.
    ArraySize,
    ChannelDataType,
    ChannelOrder,
}

impl ImageQuery {
    pub fn name(self) -> &'static str {
        match self {
            ImageQuery::Width => "get_image_width",
            ImageQuery::Height => "get_image_height",
            ImageQuery::Depth => "get_image_depth",
            ImageQuery::Dim => "get_image_dim",
            ImageQuery::ArraySize => "get_image_array_size",
            ImageQuery::ChannelDataType => "get_image_channel_data_type",
            ImageQuery::ChannelOrder => "get_image_channel_order",
        }
    }
}

/// The element type a read or write suffix names: `f`, `i`, `ui`.
fn suffix_elem(s: &str) -> Option<Scalar> {
    match s {
        "f" => Some(Scalar::Float),
        "i" => Some(Scalar::Int),
        "ui" => Some(Scalar::UInt),
        _ => None,
    }
}

/// The image built-in of a name. A read's `sampled` is decided from the
/// arguments by the checker; this returns it false.
pub fn parse(name: &str) -> Option<ImageFn> {
    if let Some(s) = name.strip_prefix("read_image") {
        return Some(ImageFn::Read {
            elem: suffix_elem(s)?,
            sampled: false,
        });
    }
    if let Some(s) = name.strip_prefix("write_image") {
        return Some(ImageFn::Write {
            elem: suffix_elem(s)?,
        });
    }
    Some(ImageFn::Query(match name {
        "get_image_width" => ImageQuery::Width,
        "get_image_height" => ImageQuery::Height,
        "get_image_depth" => ImageQuery::Depth,
        "get_image_dim" => ImageQuery::Dim,
        "get_image_array_size" => ImageQuery::ArraySize,
        "get_image_channel_data_type" => ImageQuery::ChannelDataType,
        "get_image_channel_order" => ImageQuery::ChannelOrder,
        _ => return None,
    }))
}

/// The bits of a sampler value (`CLK_NORMALIZED_COORDS_*`,
/// `CLK_ADDRESS_*`, `CLK_FILTER_*`, as clang's `opencl-c-base.h` defines
/// them).
pub mod sampler {
    pub const NORMALIZED_COORDS: u32 = 0x1;
    pub const ADDRESS_MASK: u32 = 0xe;
    pub const ADDRESS_NONE: u32 = 0;
    pub const ADDRESS_CLAMP_TO_EDGE: u32 = 2;
    pub const ADDRESS_CLAMP: u32 = 4;
    pub const ADDRESS_REPEAT: u32 = 6;
    pub const ADDRESS_MIRRORED_REPEAT: u32 = 8;
    pub const FILTER_NEAREST: u32 = 0x10;
    pub const FILTER_LINEAR: u32 = 0x20;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            parse("read_imageui"),
            Some(ImageFn::Read {
                elem: Scalar::UInt,
                sampled: false
            })
        );
        assert_eq!(
            parse("write_imagef"),
            Some(ImageFn::Write {
                elem: Scalar::Float
            })
        );
        assert_eq!(
            parse("get_image_dim"),
            Some(ImageFn::Query(ImageQuery::Dim))
        );
        assert_eq!(parse("read_imageh"), None);
        assert_eq!(parse("read_image"), None);
        assert_eq!(parse("get_image_size"), None);
    }
}
