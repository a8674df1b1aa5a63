//! Vector IR from its text ([`super::print`]): the function through
//! [`crate::ir::parse`], the SIMD width from the `; vector IR of ..., W = N`
//! line, each value's shape from its annotation and each block's mask from
//! its `; mask %N[, may be empty]` comment.

use crate::ir::parse::{parse_functions, ParseError, Parsed, Pos};
use crate::ir::{ValueDef, ValueId};
use crate::shape::Shape;

use super::VectorFunction;

/// Every kernel of a text `lanes build --emit vir` printed.
pub fn parse(text: &str) -> Result<Vec<VectorFunction>, ParseError> {
    parse_functions(text)?
        .into_iter()
        .map(from_parsed)
        .collect()
}

fn from_parsed(p: Parsed) -> Result<VectorFunction, ParseError> {
    let width = p
        .preamble
        .iter()
        .find_map(|(text, at)| {
            let rest = text.strip_prefix("vector IR of ")?;
            let (_, w) = rest.rsplit_once(", W = ")?;
            Some(
                w.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|w| w.is_power_of_two())
                    .ok_or_else(|| at.error(format!("expected a SIMD width, found `{w}`"))),
            )
        })
        .ok_or_else(|| {
            p.pos
                .error("expected `; vector IR of `NAME`, W = N` before `kernel`")
        })??;
    let f = &p.func;
    let mut shapes = vec![Shape::Bottom; f.values.len()];
    for (i, v) in f.values.iter().enumerate() {
        let id = ValueId(i as u32);
        shapes[i] = match (&v.def, p.annotations.values.get(&id)) {
            (ValueDef::Const(c), _) => crate::divergence::const_shape(*c),
            (ValueDef::Global(_) | ValueDef::Local(_), _) => Shape::uniform(),
            (_, Some((text, at))) => text.parse::<Shape>().map_err(|m| at.error(m))?,
            (ValueDef::Param(_), None) => Shape::uniform(),
            (ValueDef::Inst(inst), None) => {
                let at = p.inst_pos[inst.index()];
                return Err(at.error(format!("%{i} has no shape (` : uniform`, ...)")));
            }
        };
    }
    let mut block_mask = Vec::new();
    let mut mask_nonempty = Vec::new();
    for b in f.block_ids() {
        let Some((text, at)) = p.annotations.blocks.get(&b) else {
            let label = f.block(b).label.clone();
            return Err(p
                .pos
                .error(format!("block bb{}.{label} has no mask (`; mask %N`)", b.0)));
        };
        let (mask, nonempty) = mask_of(text, *at)?;
        if f.values
            .get(mask.index())
            .is_none_or(|v| v.ty != crate::ir::Ty::I1)
        {
            return Err(at.error(format!("the mask %{} is not an `i1` value", mask.0)));
        }
        block_mask.push(mask);
        mask_nonempty.push(nonempty);
    }
    Ok(VectorFunction {
        func: p.func,
        width,
        shapes,
        block_mask,
        mask_nonempty,
    })
}

/// `mask %N` or `mask %N, may be empty`.
fn mask_of(text: &str, at: Pos) -> Result<(ValueId, bool), ParseError> {
    let bad = || {
        at.error(format!(
            "expected `mask %N[, may be empty]`, found `{text}`"
        ))
    };
    let rest = text.strip_prefix("mask %").ok_or_else(bad)?;
    let (num, nonempty) = match rest.split_once(", may be empty") {
        Some((n, "")) => (n, false),
        Some(_) => return Err(bad()),
        None => (rest, true),
    };
    let n = num.parse::<u32>().map_err(|_| bad())?;
    Ok((ValueId(n), nonempty))
}
