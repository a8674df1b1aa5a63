//! Lane masks carried across blocks as `<W x i32>` on targets without mask
//! registers (SSE, AVX2, NEON).
//!
//! A `<W x i1>` φ has no register of its own there: LLVM's x86 back end
//! keeps it packed into 16-bit lanes of an `xmm` register, so a divergent
//! loop's mask is packed (`vpackssdw`) where it is made and unpacked
//! (`vpmovzxwd`, `vpslld`) at every use, several instructions per
//! iteration on the loop's critical path. As `<W x i32>` (all ones or zero
//! per lane) it is what a vector compare gives and what `vblendvps` reads.
//!
//! This runs after the optimization pipeline because InstCombine folds a
//! φ of sign extensions back into a sign extension of a φ; the back end
//! then folds each `sext` of a compare and each `icmp ne 0` feeding a
//! select away.

use std::collections::HashMap;

use inkwell::types::AnyTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, InstructionOpcode, PhiValue};
use inkwell::IntPredicate;

use crate::ll::Cx;

type R<T> = Result<T, String>;

fn err(e: impl std::fmt::Debug) -> String {
    format!("widening masks: {e:?}")
}

/// Rewrites every `<W x i1>` φ of the module as a `<W x i32>` φ.
pub fn widen_mask_phis(cx: &Cx<'_, '_>) -> R<()> {
    let mut f = cx.module.get_first_function();
    while let Some(func) = f {
        widen_function(cx, func)?;
        f = func.get_next_function();
    }
    Ok(())
}

fn is_mask(cx: &Cx<'_, '_>, t: AnyTypeEnum<'_>) -> bool {
    match t {
        AnyTypeEnum::VectorType(v) => {
            v.get_size() == cx.w && v.get_element_type() == cx.ctx.bool_type().into()
        }
        _ => false,
    }
}

/// Every mask φ gets a wide twin and, after the φs of its block, the
/// compare that gives its old value back. The twins take the twin of an
/// incoming mask φ as it is and extend any other incoming mask at the end
/// of the block it comes from.
fn widen_function<'ctx>(cx: &Cx<'_, 'ctx>, func: FunctionValue<'ctx>) -> R<()> {
    let wide = cx.ctx.i32_type().vec_type(cx.w);
    let mut twins: Vec<(PhiValue<'ctx>, PhiValue<'ctx>, BasicValueEnum<'ctx>)> = Vec::new();
    for bb in func.get_basic_blocks() {
        let phis: Vec<PhiValue<'ctx>> = bb
            .get_instructions()
            .take_while(|i| i.get_opcode() == InstructionOpcode::Phi)
            .filter(|i| is_mask(cx, i.get_type()))
            .filter_map(|i| PhiValue::try_from(i).ok())
            .collect();
        let Some(first_other) = bb
            .get_instructions()
            .find(|i| i.get_opcode() != InstructionOpcode::Phi)
        else {
            continue;
        };
        for phi in phis {
            cx.b.position_before(&phi.as_instruction());
            let twin = cx.b.build_phi(wide, "mask").map_err(err)?;
            cx.b.position_before(&first_other);
            let narrow =
                cx.b.build_int_compare(
                    IntPredicate::NE,
                    twin.as_basic_value().into_vector_value(),
                    wide.const_zero(),
                    "",
                )
                .map_err(err)?;
            twins.push((phi, twin, narrow.into()));
        }
    }
    let twin_of: HashMap<_, _> = twins
        .iter()
        .map(|(phi, twin, _)| (phi.as_instruction(), *twin))
        .collect();
    for (phi, twin, _) in &twins {
        for k in 0..phi.count_incoming() {
            let (v, from) = phi
                .get_incoming(k)
                .ok_or("a φ without its incoming value")?;
            let x: BasicValueEnum = match v.as_instruction_value().and_then(|i| twin_of.get(&i)) {
                Some(t) => t.as_basic_value(),
                None => {
                    let term = from.get_terminator().ok_or("a block without terminator")?;
                    cx.b.position_before(&term);
                    cx.b.build_int_s_extend(v.into_vector_value(), wide, "")
                        .map_err(err)?
                        .into()
                }
            };
            twin.add_incoming(&[(&x as &dyn BasicValue, from)]);
        }
    }
    for (phi, _, narrow) in twins {
        let old = phi.as_instruction();
        let n = narrow.as_instruction_value().ok_or("a folded compare")?;
        old.replace_all_uses_with(&n);
        old.erase_from_basic_block();
    }
    Ok(())
}
