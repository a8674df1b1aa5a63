//! Image built-ins: a read becomes one [`InstKind::ImageRead`] per channel
//! (four, or one for a depth image) with the same operands, a write one
//! [`InstKind::ImageWrite`], a query one [`InstKind::ImageQuery`]
//! (`get_image_dim` one per component, the fourth of a 3-D image 0).
//! Samplers are their `CLK_*` bits, an `i32`.

use lanes_frontend::hir::Expr;
use lanes_frontend::image::{ImageFn, ImageQuery};
use lanes_frontend::types::{ImageDim, Scalar};

use super::expr::esrc;
use super::{Lowerer, Vals};
use crate::ir::{ImageElem, InstKind, Ty, ValueId};

fn image_elem(s: Scalar) -> ImageElem {
    match s {
        Scalar::Float => ImageElem::Float,
        Scalar::UInt => ImageElem::UInt,
        _ => ImageElem::Int,
    }
}

impl Lowerer<'_> {
    pub(super) fn image_builtin(&mut self, e: &Expr, f: ImageFn, args: &[Expr]) -> Vals {
        let src = esrc(e);
        // Arguments left to right, as every other call.
        let vals: Vec<Vals> = args.iter().map(|a| self.rvalue(a)).collect();
        let Some((dim, _)) = args.first().and_then(|a| a.ty.image()) else {
            return self.bad_image_call(e);
        };
        let image = self.first(&vals[0], Ty::Image);
        match f {
            ImageFn::Read { elem, sampled } => {
                let (sampler, coord) = match (sampled, vals.get(1), vals.get(2), args.last()) {
                    (true, Some(s), Some(c), Some(a)) => (Some(self.first(s, Ty::I32)), (c, a)),
                    (false, Some(c), None, Some(a)) => (None, (c, a)),
                    _ => return self.bad_image_call(e),
                };
                let coords = self.coords(coord.0, coord.1.ty.is_float(), dim);
                let ty = match elem {
                    Scalar::Float => Ty::F32,
                    _ => Ty::I32,
                };
                let channels = if dim.is_depth() { 1 } else { 4 };
                (0..channels)
                    .map(|component| {
                        let kind = InstKind::ImageRead {
                            image,
                            sampler,
                            coords: coords.clone(),
                            elem: image_elem(elem),
                            component,
                        };
                        self.emit(kind, ty, src)
                    })
                    .collect()
            }
            ImageFn::Write { elem } => {
                let (Some(c), Some(v)) = (vals.get(1), vals.get(2)) else {
                    return self.bad_image_call(e);
                };
                let coords = self.coords(c, false, dim);
                let kind = InstKind::ImageWrite {
                    image,
                    coords,
                    values: v.clone(),
                    elem: image_elem(elem),
                };
                self.emit_void(kind, src);
                Vec::new()
            }
            ImageFn::Query(ImageQuery::Dim) => {
                let mut out: Vals = [ImageQuery::Width, ImageQuery::Height]
                    .into_iter()
                    .map(|query| self.emit(InstKind::ImageQuery { query, image }, Ty::I32, src))
                    .collect();
                if dim == ImageDim::D3 {
                    let query = ImageQuery::Depth;
                    out.push(self.emit(InstKind::ImageQuery { query, image }, Ty::I32, src));
                    out.push(self.const_int(0, Ty::I32));
                }
                out
            }
            ImageFn::Query(query) => {
                let ty = if query == ImageQuery::ArraySize {
                    Ty::I64
                } else {
                    Ty::I32
                };
                vec![self.emit(InstKind::ImageQuery { query, image }, ty, src)]
            }
        }
    }

    /// The coordinate components of a read or write (the type checker
    /// made them `int`s, or `float`s for sampled reads).
    fn coords(&mut self, vals: &[ValueId], float: bool, dim: ImageDim) -> Vec<ValueId> {
        let ty = if float { Ty::F32 } else { Ty::I32 };
        (0..usize::from(dim.coord_width()))
            .map(|i| self.at(vals, i, ty))
            .collect()
    }

    fn bad_image_call(&mut self, e: &Expr) -> Vals {
        self.error(
            e.span,
            "internal error: an image built-in with unexpected arguments",
        );
        self.undef_vals(&e.ty, e.span)
    }
}
