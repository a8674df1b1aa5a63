//! Type checking of the image built-ins ([`crate::image`]) and of sampler
//! values. The rules are those of clang's `opencl-c.h` declarations: a
//! sampler read needs a `__read_only` image, a read without a sampler
//! takes integer coordinates and a readable image, a write needs a
//! `__write_only` or `__read_write` image; the coordinate has one
//! component per image dimension (`int4`/`float4` for 3-D images and 2-D
//! arrays); depth images hold one `float`.

use super::conv::ConvCtx;
use super::Checker;
use crate::ast;
use crate::builtins::{BuiltinCall, BuiltinFn};
use crate::diag::{Code, Diagnostic};
use crate::hir::{ConvertKind, Expr, ExprKind};
use crate::image::{self, ImageFn, ImageQuery};
use crate::source::Span;
use crate::types::{ImageAccess, ImageDim, Opaque, Scalar, Type};

/// The sampler type.
pub(crate) const SAMPLER: Type = Type::Opaque(Opaque::Sampler, "sampler_t");

/// Why no overload matches (a note under the error).
type Why = String;

impl Checker<'_> {
    /// A call of an image built-in; `None` when `name` is not one.
    pub(super) fn image_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        node: ast::NodeId,
    ) -> Option<Expr> {
        let f = image::parse(name)?;
        let args: Vec<Expr> = args.iter().map(|a| self.value(a)).collect();
        if args.iter().any(Expr::is_error) {
            return Some(Expr::error(span, node));
        }
        let counts: &[usize] = match f {
            ImageFn::Read { .. } => &[2, 3],
            ImageFn::Write { .. } => &[3],
            ImageFn::Query(_) => &[1],
        };
        if !counts.contains(&args.len()) {
            let want = match counts {
                [2, 3] => "2 or 3 arguments",
                [3] => "3 arguments",
                _ => "1 argument",
            };
            let msg = format!(
                "function `{name}` takes {want} but {} {} given",
                args.len(),
                if args.len() == 1 { "was" } else { "were" }
            );
            self.error(Code::ArgCount, span, msg);
            return Some(Expr::error(span, node));
        }
        let types = self.arg_types(&args);
        let checked = match f {
            ImageFn::Read { elem, .. } => self.image_read(elem, args),
            ImageFn::Write { elem } => self.image_write(elem, args),
            ImageFn::Query(q) => self.image_query(q, args),
        };
        let (func, args, ret) = match checked {
            Ok(c) => c,
            Err(why) => {
                let msg =
                    format!("no matching overload of `{name}` for arguments of type ({types})");
                let d = Diagnostic::new(Code::NoOverload, span, msg)
                    .with_label(format!("`{name}` called here"))
                    .with_note(why);
                self.report(d);
                return Some(Expr::error(span, node));
            }
        };
        let call = BuiltinCall {
            func: BuiltinFn::Image(func),
            params: args.iter().map(|a| a.ty.clone()).collect(),
            ret: ret.clone(),
        };
        Some(self.mk(
            ExprKind::Builtin {
                call: Box::new(call),
                args,
            },
            ret,
            span,
            node,
        ))
    }

    /// The image operand: its dimensionality and access qualifier.
    fn image_operand(&self, a: &Expr) -> Result<(ImageDim, ImageAccess), Why> {
        a.ty.image().ok_or_else(|| {
            format!(
                "the first argument must be an image, not `{}`",
                self.tn(&a.ty)
            )
        })
    }

    fn image_read(
        &mut self,
        elem: Scalar,
        mut args: Vec<Expr>,
    ) -> Result<(ImageFn, Vec<Expr>, Type), Why> {
        let (dim, access) = self.image_operand(&args[0])?;
        let sampled = args.len() == 3;
        if dim.is_depth() && elem != Scalar::Float {
            return Err(format!(
                "depth images (`{}`) are read with `read_imagef`",
                dim.name()
            ));
        }
        match access {
            ImageAccess::WriteOnly => {
                return Err(format!(
                    "the image is `__write_only`: it can only be written (`{}` is `__read_only` unless qualified)",
                    dim.name()
                ))
            }
            ImageAccess::ReadWrite if sampled => {
                return Err(
                    "a `__read_write` image is read without a sampler, with integer coordinates"
                        .into(),
                )
            }
            _ => {}
        }
        if sampled && dim == ImageDim::D1Buffer {
            return Err("an `image1d_buffer_t` is read without a sampler".into());
        }
        let coord = args.pop().expect("two or three arguments");
        let coord = self.image_coord(dim, coord, sampled)?;
        if sampled {
            let s = args.pop().expect("three arguments");
            let s = self.sampler_operand(s)?;
            args.push(s);
        }
        args.push(coord);
        let ret = if dim.is_depth() {
            Type::Scalar(Scalar::Float)
        } else {
            Type::Vector(elem, 4)
        };
        Ok((ImageFn::Read { elem, sampled }, args, ret))
    }

    fn image_write(
        &mut self,
        elem: Scalar,
        mut args: Vec<Expr>,
    ) -> Result<(ImageFn, Vec<Expr>, Type), Why> {
        let (dim, access) = self.image_operand(&args[0])?;
        if !access.can_write() {
            return Err(format!(
                "the image is `__read_only` (`{}` is `__read_only` unless qualified): it cannot be written",
                dim.name()
            ));
        }
        if dim.is_depth() && elem != Scalar::Float {
            return Err(format!(
                "depth images (`{}`) are written with `write_imagef`",
                dim.name()
            ));
        }
        let colour = args.pop().expect("three arguments");
        let coord = args.pop().expect("three arguments");
        let coord = self.image_coord(dim, coord, false)?;
        let colour = if dim.is_depth() {
            match colour.ty {
                Type::Scalar(s) if s != Scalar::Bool => {
                    self.convert_elements(colour, Scalar::Float)
                }
                _ => {
                    return Err(format!(
                        "the depth written is a `float`, not `{}`",
                        self.tn(&colour.ty)
                    ))
                }
            }
        } else if colour.ty == Type::Vector(elem, 4) {
            colour
        } else if matches!(colour.ty, Type::Scalar(s) if s != Scalar::Bool) {
            // A scalar colour is every channel, as in clang.
            self.assign_convert(colour, &Type::Vector(elem, 4), ConvCtx::Pass)
        } else {
            return Err(format!(
                "the colour written is a `{}`, not `{}`",
                Type::Vector(elem, 4),
                self.tn(&colour.ty)
            ));
        };
        args.push(coord);
        args.push(colour);
        Ok((ImageFn::Write { elem }, args, Type::Void))
    }

    fn image_query(
        &mut self,
        q: ImageQuery,
        args: Vec<Expr>,
    ) -> Result<(ImageFn, Vec<Expr>, Type), Why> {
        let (dim, _) = self.image_operand(&args[0])?;
        let one_d = matches!(dim, ImageDim::D1 | ImageDim::D1Buffer | ImageDim::D1Array);
        let ok = match q {
            ImageQuery::Height | ImageQuery::Dim => !one_d,
            ImageQuery::Depth => dim == ImageDim::D3,
            ImageQuery::ArraySize => dim.is_array(),
            ImageQuery::Width | ImageQuery::ChannelDataType | ImageQuery::ChannelOrder => true,
        };
        if !ok {
            return Err(format!(
                "`{}` has no {}",
                dim.name(),
                match q {
                    ImageQuery::Height => "height",
                    ImageQuery::Depth => "depth",
                    ImageQuery::Dim => "2-D or 3-D dimensions",
                    _ => "array size",
                }
            ));
        }
        let ret = match q {
            ImageQuery::Dim if dim == ImageDim::D3 => Type::Vector(Scalar::Int, 4),
            ImageQuery::Dim => Type::Vector(Scalar::Int, 2),
            ImageQuery::ArraySize => Type::SIZE_T,
            _ => Type::INT,
        };
        Ok((ImageFn::Query(q), args, ret))
    }

    /// The coordinate of a read or write: `int`/`int2`/`int4` after the
    /// image's dimensions, or the `float` vector of the same width for
    /// sampled reads. A scalar integer narrower than `int` is promoted.
    fn image_coord(&mut self, dim: ImageDim, c: Expr, float_ok: bool) -> Result<Expr, Why> {
        let n = dim.coord_width();
        let ok = match &c.ty {
            Type::Vector(s, m) if *m == n => *s == Scalar::Int || (float_ok && *s == Scalar::Float),
            Type::Scalar(s) if n == 1 => match s {
                Scalar::Int => true,
                Scalar::Float => float_ok,
                s if s.rank() < Scalar::Int.rank() => {
                    return Ok(self.convert_elements(c, Scalar::Int));
                }
                _ => false,
            },
            _ => false,
        };
        if ok {
            return Ok(c);
        }
        let int = if n == 1 {
            "int".to_string()
        } else {
            format!("int{n}")
        };
        let want = if float_ok {
            let float = if n == 1 {
                "float".to_string()
            } else {
                format!("float{n}")
            };
            format!("`{int}` or `{float}`")
        } else {
            format!("`{int}`")
        };
        let mut why = format!(
            "the coordinate of an `{}` is {want}, not `{}`",
            dim.name(),
            self.tn(&c.ty)
        );
        if !float_ok && c.ty.is_float() {
            why.push_str(" (float coordinates need a sampler)");
        }
        Err(why)
    }

    /// The sampler operand of a read: a `sampler_t`, or an integer
    /// constant, which clang also accepts there.
    fn sampler_operand(&mut self, s: Expr) -> Result<Expr, Why> {
        if s.ty == SAMPLER {
            return Ok(s);
        }
        if s.ty.is_integer() && s.ty.scalar().is_some() && self.eval(&s).is_some() {
            return Ok(self.to_sampler(s));
        }
        Err(format!(
            "the second argument of a sampled read is a `sampler_t`, not `{}`",
            self.tn(&s.ty)
        ))
    }

    /// An integer converted to a sampler (`CLK_*` bits).
    pub(crate) fn to_sampler(&self, e: Expr) -> Expr {
        let e = self.convert_elements(e, Scalar::UInt);
        self.wrap(ConvertKind::IntToSampler, e, SAMPLER)
    }
}
