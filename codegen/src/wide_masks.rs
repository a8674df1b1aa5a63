//! Lane masks as `<W x i32>` on targets without mask registers (SSE4, AVX2,
//! NEON), as ISPC keeps them.
//!
//! There a `<W x i1>` value has no register of its own: LLVM's x86 back end
//! keeps a mask that crosses blocks (a divergent loop's live mask) packed
//! into 16-bit lanes of an `xmm` register, and often does the logic of
//! masks (`and`, `or`, `xor`, selects between masks) there too, packing
//! each compare result (`vpackssdw`) and unpacking it for every blend or
//! masked access (`vpmovsxwd`, `vpslld`): several instructions per loop
//! iteration on the loop's critical path. As `<W x i32>` (all ones or zero
//! per lane) a mask is what a vector compare gives and what `vblendvps`
//! and `vmaskmov` read.
//!
//! Every mask φ, `and`, `or`, `xor` and select between masks is rebuilt on
//! `<W x i32>`; a mask made otherwise (a compare, a call, a splat) is sign
//! extended where it is made; a user that needs `<W x i1>` (a select of
//! data, a masked access) gets `wide < 0` just before it, which the back
//! end folds into the sign bit those instructions read; a test of all lanes
//! (`any`, `all`) gets `wide != 0`, a `vptest` of the wide mask. This runs
//! after LLVM's optimization pipeline, whose InstCombine would narrow the
//! rebuilt logic back.

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::types::{AnyType, AnyTypeEnum, VectorType};
use inkwell::values::{
    AnyValue, AnyValueEnum, AsValueRef, BasicValue, BasicValueEnum, FunctionValue,
    InstructionOpcode, InstructionValue, PhiValue,
};
use inkwell::IntPredicate;

use crate::ll::Cx;

type R<T> = Result<T, String>;

fn err(e: impl std::fmt::Debug) -> String {
    format!("widening masks: {e:?}")
}

/// Rewrites the masks of every function of the module.
pub fn widen_masks(cx: &Cx<'_, '_>) -> R<()> {
    let mut f = cx.module.get_first_function();
    while let Some(func) = f {
        Widen::new(cx, func).run()?;
        f = func.get_next_function();
    }
    Ok(())
}

struct Widen<'a, 'b, 'ctx> {
    cx: &'a Cx<'b, 'ctx>,
    func: FunctionValue<'ctx>,
    /// The mask instructions rebuilt on `<W x i32>`.
    rebuilt: HashSet<InstructionValue<'ctx>>,
    /// The wide value of every mask met so far.
    wide_of: HashMap<LLVMValueRef, BasicValueEnum<'ctx>>,
}

impl<'a, 'b, 'ctx> Widen<'a, 'b, 'ctx> {
    fn new(cx: &'a Cx<'b, 'ctx>, func: FunctionValue<'ctx>) -> Self {
        Widen {
            cx,
            func,
            rebuilt: HashSet::new(),
            wide_of: HashMap::new(),
        }
    }

    /// A mask of one SIMD group or of several (the bodies of interleaved
    /// SIMD groups, `interleave.rs`, have masks of G·W lanes).
    fn is_mask(&self, t: AnyTypeEnum<'ctx>) -> bool {
        match t {
            AnyTypeEnum::VectorType(v) => {
                v.get_size() % self.cx.w == 0
                    && v.get_element_type() == self.cx.ctx.bool_type().into()
            }
            _ => false,
        }
    }

    /// The `<N x i32>` type of a mask of type `t` (`<N x i1>`).
    fn wide_type(&self, t: AnyTypeEnum<'ctx>) -> VectorType<'ctx> {
        self.cx
            .ctx
            .i32_type()
            .vec_type(t.into_vector_type().get_size())
    }

    fn run(mut self) -> R<()> {
        let mut order = Vec::new();
        for bb in self.func.get_basic_blocks() {
            for i in bb.get_instructions() {
                let logic = matches!(
                    i.get_opcode(),
                    InstructionOpcode::Phi
                        | InstructionOpcode::And
                        | InstructionOpcode::Or
                        | InstructionOpcode::Xor
                        | InstructionOpcode::Select
                );
                if logic && self.is_mask(i.get_type()) {
                    self.rebuilt.insert(i);
                    order.push(i);
                }
            }
        }
        if order.is_empty() {
            return Ok(());
        }
        // φs first, so that back edges find them.
        for &i in &order {
            if i.get_opcode() == InstructionOpcode::Phi {
                self.cx.b.position_before(&i);
                let twin = self
                    .cx
                    .b
                    .build_phi(self.wide_type(i.get_type()), "mask")
                    .map_err(err)?;
                self.wide_of.insert(i.as_value_ref(), twin.as_basic_value());
            }
        }
        for &i in &order {
            self.widen(basic(i)?)?;
        }
        for &i in &order {
            if i.get_opcode() != InstructionOpcode::Phi {
                continue;
            }
            let phi = PhiValue::try_from(i).map_err(err)?;
            let twin = PhiValue::try_from(
                self.wide_of[&i.as_value_ref()]
                    .as_instruction_value()
                    .ok_or("a φ without its twin")?,
            )
            .map_err(err)?;
            for k in 0..phi.count_incoming() {
                let (v, from) = phi
                    .get_incoming(k)
                    .ok_or("a φ without its incoming value")?;
                let x = self.widen(v)?;
                twin.add_incoming(&[(&x as &dyn BasicValue, from)]);
            }
        }
        // Users outside the rebuilt logic get `wide < 0` (or `!= 0`).
        for &i in &order {
            let wide = self.wide_of[&i.as_value_ref()];
            let mut uses = Vec::new();
            let mut u = i.get_first_use();
            while let Some(x) = u {
                let user = match x.get_user() {
                    AnyValueEnum::InstructionValue(i) => Some(i),
                    AnyValueEnum::PhiValue(p) => Some(p.as_instruction()),
                    other => BasicValueEnum::try_from(other)
                        .ok()
                        .and_then(|b| b.as_instruction_value()),
                };
                if let Some(user) = user {
                    if !self.rebuilt.contains(&user) {
                        uses.push(user);
                    }
                }
                u = x.get_next_use();
            }
            for user in uses {
                self.cx.b.position_before(&user);
                let narrow = if tests_lanes_together(user) {
                    self.nonzero(wide)?
                } else {
                    self.narrow(wide)?
                };
                for k in 0..user.get_num_operands() {
                    let is_i = matches!(
                        user.get_operand(k),
                        Some(inkwell::values::Operand::Value(v)) if v.as_value_ref() == i.as_value_ref()
                    );
                    if is_i {
                        user.set_operand(k, narrow);
                    }
                }
            }
        }
        for &i in &order {
            // SAFETY: `i` and the poison value have the same type; the
            // rebuilt instructions are only used by each other now.
            unsafe {
                let poison = c::LLVMGetPoison(c::LLVMTypeOf(i.as_value_ref()));
                c::LLVMReplaceAllUsesWith(i.as_value_ref(), poison);
            }
        }
        for i in order {
            i.erase_from_basic_block();
        }
        Ok(())
    }

    /// `wide != 0`, for a user that tests all lanes at once (`any`, `all`):
    /// `vptest` of the wide mask itself.
    fn nonzero(&self, wide: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        let wide = wide.into_vector_value();
        Ok(self
            .cx
            .b
            .build_int_compare(IntPredicate::NE, wide, wide.get_type().const_zero(), "")
            .map_err(err)?
            .into())
    }

    fn narrow(&self, wide: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        let wide = wide.into_vector_value();
        // The sign bit, which is what `vblendv`, `vmaskmov` and gathers
        // read: the back end uses the wide mask itself (`!= 0` costs a
        // compare with zero before each of them).
        Ok(self
            .cx
            .b
            .build_int_compare(IntPredicate::SLT, wide, wide.get_type().const_zero(), "")
            .map_err(err)?
            .into())
    }

    /// The `<W x i32>` form of the mask `v`.
    fn widen(&mut self, v: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        if let Some(&w) = self.wide_of.get(&v.as_value_ref()) {
            return Ok(w);
        }
        let inst = v.as_instruction_value();
        let w = match inst.filter(|i| self.rebuilt.contains(i)) {
            Some(i) => self.rebuild(i)?,
            None => {
                // Made otherwise: extended where it is made.
                match inst {
                    Some(i) => {
                        let next = i
                            .get_next_instruction()
                            .ok_or("a mask after the terminator")?;
                        self.cx.b.position_before(&next);
                    }
                    None if is_constant(v) => {}
                    None => {
                        let entry = self.func.get_first_basic_block().ok_or("no entry block")?;
                        let first = entry
                            .get_instructions()
                            .find(|i| i.get_opcode() != InstructionOpcode::Phi)
                            .ok_or("an empty entry block")?;
                        self.cx.b.position_before(&first);
                    }
                }
                self.cx
                    .b
                    .build_int_s_extend(
                        v.into_vector_value(),
                        self.wide_type(v.get_type().as_any_type_enum()),
                        "",
                    )
                    .map_err(err)?
                    .into()
            }
        };
        self.wide_of.insert(v.as_value_ref(), w);
        Ok(w)
    }

    /// `i` (an `and`, `or`, `xor` or select of masks) on wide operands,
    /// placed where `i` is.
    fn rebuild(&mut self, i: InstructionValue<'ctx>) -> R<BasicValueEnum<'ctx>> {
        let operand = |k: u32| match i.get_operand(k) {
            Some(inkwell::values::Operand::Value(v)) => Ok(v),
            _ => Err(format!(
                "widening masks: operand {k} of {:?}",
                i.get_opcode()
            )),
        };
        let b = self.cx.b;
        let w: BasicValueEnum = match i.get_opcode() {
            InstructionOpcode::And | InstructionOpcode::Or | InstructionOpcode::Xor => {
                let x = self.widen(operand(0)?)?.into_vector_value();
                let y = self.widen(operand(1)?)?.into_vector_value();
                b.position_before(&i);
                match i.get_opcode() {
                    InstructionOpcode::And => b.build_and(x, y, ""),
                    InstructionOpcode::Or => b.build_or(x, y, ""),
                    _ => b.build_xor(x, y, ""),
                }
                .map_err(err)?
                .into()
            }
            InstructionOpcode::Select => {
                let cond = operand(0)?;
                let x = self.widen(operand(1)?)?;
                let y = self.widen(operand(2)?)?;
                if self.is_mask(cond.get_type().as_any_type_enum()) {
                    // Lane by lane between masks: `(c & x) | (!c & y)`, which
                    // the back end folds to one `and`, `andn` or `or` when an
                    // arm is constant (`select c, x, false` is `c & x`).
                    let c = self.widen(cond)?.into_vector_value();
                    let (x, y) = (x.into_vector_value(), y.into_vector_value());
                    b.position_before(&i);
                    let then = b.build_and(c, x, "").map_err(err)?;
                    let not_c = b.build_not(c, "").map_err(err)?;
                    let els = b.build_and(not_c, y, "").map_err(err)?;
                    return Ok(b.build_or(then, els, "").map_err(err)?.into());
                }
                let cond = match cond.as_instruction_value() {
                    Some(ci) if self.rebuilt.contains(&ci) => {
                        let wc = self.widen(cond)?;
                        b.position_before(&i);
                        self.narrow(wc)?
                    }
                    _ => cond,
                };
                b.position_before(&i);
                match cond {
                    BasicValueEnum::VectorValue(v) => b.build_select(v, x, y, ""),
                    BasicValueEnum::IntValue(v) => b.build_select(v, x, y, ""),
                    other => return Err(format!("widening masks: a select on {other:?}")),
                }
                .map_err(err)?
            }
            other => return Err(format!("widening masks: a mask made by {other:?}")),
        };
        Ok(w)
    }
}

/// `user` reduces a mask to one bit (a bitcast to an integer, a
/// `llvm.vector.reduce.*`): the back end tests the lanes together.
fn tests_lanes_together(user: InstructionValue<'_>) -> bool {
    match user.get_opcode() {
        InstructionOpcode::BitCast => true,
        InstructionOpcode::Call => {
            // SAFETY: queries on a valid call instruction.
            unsafe {
                let callee = c::LLVMGetCalledValue(user.as_value_ref());
                let mut len = 0;
                let name = c::LLVMGetValueName2(callee, &mut len);
                !name.is_null()
                    && std::slice::from_raw_parts(name.cast::<u8>(), len)
                        .starts_with(b"llvm.vector.reduce.")
            }
        }
        _ => false,
    }
}

fn is_constant(v: BasicValueEnum<'_>) -> bool {
    // SAFETY: a query on a valid value.
    unsafe { !c::LLVMIsAConstant(v.as_value_ref()).is_null() }
}

fn basic(i: InstructionValue<'_>) -> R<BasicValueEnum<'_>> {
    BasicValueEnum::try_from(i.as_any_value_enum()).map_err(err)
}
