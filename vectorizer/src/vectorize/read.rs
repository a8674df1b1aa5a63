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
            let w_at = Pos {
                column: at.column + (text.len() - w.len()) as u32,
                ..*at
            };
            Some(
                w.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|w| w.is_power_of_two())
                    .ok_or_else(|| w_at.error(format!("expected a SIMD width, found `{w}`"))),
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

#[cfg(test)]
mod tests {
    use super::*;

    const VIR: &str = "; vector IR of `k`, W = 8
kernel @k(%0: ptr(global) a : uniform) {
bb0.entry: ; entry ; mask %1
  %1 = lanes.active i1() : varying
  %2 = get_global_id i64(i32 0) : strided(1)
  %3 = mul i64 %2, i64 4 : strided(4, align 4)
  %4 = ptradd %0, %3 : strided(4)
  store i32 i32 7, %4, align 4
  ret
}
";

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("read:\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn reads_shapes_masks_and_width() {
        let vfs = parse(VIR).expect("reads");
        let vf = &vfs[0];
        assert_eq!(vf.width, 8);
        assert_eq!(
            vf.shape(ValueId(3)),
            Shape::Strided {
                stride: 4,
                align: 4
            }
        );
        assert_eq!(vf.block_mask, vec![ValueId(1)]);
        assert_eq!(vf.mask_nonempty, vec![true]);
        assert_eq!(super::super::print(vf), VIR);
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(
            error(&VIR.replace("W = 8", "W = 6")),
            "1:25: expected a SIMD width, found `6`"
        );
        assert_eq!(
            error(&VIR.replace(": strided(1)", ": strided")),
            "5:35: expected a shape (`uniform`, `strided(S)`, `varying`, ...), found `strided`"
        );
        assert_eq!(
            error(&VIR.replace(" : strided(4)\n", "\n")),
            "7:3: %4 has no shape (` : uniform`, ...)"
        );
        assert_eq!(
            error(&VIR.replace("; mask %1", "; mask %2")),
            "3:22: the mask %2 is not an `i1` value"
        );
        assert_eq!(
            error(&VIR.replace("; vector IR of `k`, W = 8\n", "")),
            "1:1: expected `; vector IR of `NAME`, W = N` before `kernel`"
        );
    }
}
