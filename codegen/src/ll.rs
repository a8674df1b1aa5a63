//! Thin helpers over the LLVM builder for values that may be scalars or
//! vectors. inkwell's typed builder methods want to know statically whether
//! an operand is an `IntValue` or a `VectorValue`; the emitter does not, so
//! these go through the C API (re-exported by inkwell) on
//! [`BasicValueEnum`]s.

use std::ffi::CStr;

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};
use inkwell::module::Module;
use inkwell::types::{AsTypeRef, BasicTypeEnum, VectorType};
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, BasicValueEnum};

pub type R<T> = Result<T, String>;

const NONAME: &CStr = c"";

/// Wraps a raw value of a first-class type.
pub fn bv<'ctx>(r: LLVMValueRef) -> BasicValueEnum<'ctx> {
    // SAFETY: every caller passes the result of a builder call that yields a
    // value of a basic (non-void, non-label) type.
    unsafe { BasicValueEnum::new(r) }
}

/// The shared state of code generation: context, module, builder and the
/// SIMD width.
pub struct Cx<'a, 'ctx> {
    pub ctx: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub b: &'a Builder<'ctx>,
    pub w: u32,
    /// Lane masks are rebuilt as `<W x i32>` after optimization (see
    /// `wide_masks.rs`): targets without mask registers.
    pub wide_masks: bool,
}

pub fn is_vec(v: BasicValueEnum<'_>) -> bool {
    matches!(v, BasicValueEnum::VectorValue(_))
}

/// The vector type of `w` elements of the scalar type `t`.
pub fn vec_of<'ctx>(t: BasicTypeEnum<'ctx>, w: u32) -> VectorType<'ctx> {
    if let BasicTypeEnum::VectorType(v) = t {
        return v;
    }
    // SAFETY: `LLVMVectorType` of a scalar element type is a vector type.
    unsafe { VectorType::new(c::LLVMVectorType(t.as_type_ref(), w)) }
}

impl<'a, 'ctx> Cx<'a, 'ctx> {
    fn raw_b(&self) -> inkwell::llvm_sys::prelude::LLVMBuilderRef {
        self.b.as_mut_ptr()
    }

    /// The element type of a (possibly vector) value's type.
    pub fn elem_type(&self, v: BasicValueEnum<'ctx>) -> BasicTypeEnum<'ctx> {
        match v {
            BasicValueEnum::VectorValue(x) => x.get_type().get_element_type(),
            other => other.get_type(),
        }
    }

    /// `splat(s)` as a `<W x T>` vector (a vector stays as it is).
    pub fn splat(&self, s: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        if is_vec(s) {
            return Ok(s);
        }
        let vt = vec_of(s.get_type(), self.w);
        unsafe {
            let poison = c::LLVMGetPoison(vt.as_type_ref());
            let zero = self.ctx.i32_type().const_zero().as_value_ref();
            let one = c::LLVMBuildInsertElement(
                self.raw_b(),
                poison,
                s.as_value_ref(),
                zero,
                NONAME.as_ptr(),
            );
            let mask_ty = self.ctx.i32_type().vec_type(self.w);
            let mask = c::LLVMConstNull(mask_ty.as_type_ref());
            Ok(bv(c::LLVMBuildShuffleVector(
                self.raw_b(),
                one,
                poison,
                mask,
                NONAME.as_ptr(),
            )))
        }
    }

    /// Lane `i` of a vector (a scalar is its own lane).
    pub fn extract(&self, v: BasicValueEnum<'ctx>, i: u64) -> R<BasicValueEnum<'ctx>> {
        if !is_vec(v) {
            return Ok(v);
        }
        let idx = self.ctx.i32_type().const_int(i, false);
        self.extract_dyn(v, idx.into())
    }

    pub fn extract_dyn(
        &self,
        v: BasicValueEnum<'ctx>,
        idx: BasicValueEnum<'ctx>,
    ) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildExtractElement(
                self.raw_b(),
                v.as_value_ref(),
                idx.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn insert(
        &self,
        v: BasicValueEnum<'ctx>,
        x: BasicValueEnum<'ctx>,
        i: u64,
    ) -> R<BasicValueEnum<'ctx>> {
        let idx = self.ctx.i32_type().const_int(i, false);
        unsafe {
            Ok(bv(c::LLVMBuildInsertElement(
                self.raw_b(),
                v.as_value_ref(),
                x.as_value_ref(),
                idx.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    /// Brings `v` to the wanted form: splats a scalar for a vector, takes lane
    /// 0 of a vector for a scalar (only used where all lanes are equal).
    pub fn coerce(&self, v: BasicValueEnum<'ctx>, vec: bool) -> R<BasicValueEnum<'ctx>> {
        match (is_vec(v), vec) {
            (false, true) => self.splat(v),
            (true, false) => self.extract(v, 0),
            _ => Ok(v),
        }
    }

    pub fn binop(
        &self,
        op: LLVMOpcode,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildBinOp(
                self.raw_b(),
                op,
                a.as_value_ref(),
                b.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn fneg(&self, a: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildFNeg(
                self.raw_b(),
                a.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn not(&self, a: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildNot(
                self.raw_b(),
                a.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn icmp(
        &self,
        p: LLVMIntPredicate,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildICmp(
                self.raw_b(),
                p,
                a.as_value_ref(),
                b.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn fcmp(
        &self,
        p: LLVMRealPredicate,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildFCmp(
                self.raw_b(),
                p,
                a.as_value_ref(),
                b.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn select(
        &self,
        cond: BasicValueEnum<'ctx>,
        t: BasicValueEnum<'ctx>,
        e: BasicValueEnum<'ctx>,
    ) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildSelect(
                self.raw_b(),
                cond.as_value_ref(),
                t.as_value_ref(),
                e.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn cast(
        &self,
        op: LLVMOpcode,
        v: BasicValueEnum<'ctx>,
        to: BasicTypeEnum<'ctx>,
    ) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildCast(
                self.raw_b(),
                op,
                v.as_value_ref(),
                to.as_type_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn freeze(&self, v: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            Ok(bv(c::LLVMBuildFreeze(
                self.raw_b(),
                v.as_value_ref(),
                NONAME.as_ptr(),
            )))
        }
    }

    /// `getelementptr i8, base, offset` without `inbounds`: masked-off
    /// lanes may compute wild addresses, which must not become poison.
    pub fn gep_bytes(
        &self,
        base: BasicValueEnum<'ctx>,
        offset: BasicValueEnum<'ctx>,
    ) -> R<BasicValueEnum<'ctx>> {
        self.gep_elems(self.ctx.i8_type().into(), base, offset)
    }

    /// `&base[index]` for elements of type `elem` (a vector GEP when
    /// either is a vector).
    pub fn gep_elems(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: BasicValueEnum<'ctx>,
        index: BasicValueEnum<'ctx>,
    ) -> R<BasicValueEnum<'ctx>> {
        let mut idx = [index.as_value_ref()];
        unsafe {
            Ok(bv(c::LLVMBuildGEP2(
                self.raw_b(),
                elem.as_type_ref(),
                base.as_value_ref(),
                idx.as_mut_ptr(),
                1,
                NONAME.as_ptr(),
            )))
        }
    }

    pub fn load(
        &self,
        ty: BasicTypeEnum<'ctx>,
        ptr: BasicValueEnum<'ctx>,
        align: u32,
    ) -> R<BasicValueEnum<'ctx>> {
        unsafe {
            let v = c::LLVMBuildLoad2(
                self.raw_b(),
                ty.as_type_ref(),
                ptr.as_value_ref(),
                NONAME.as_ptr(),
            );
            c::LLVMSetAlignment(v, align);
            Ok(bv(v))
        }
    }

    pub fn store(
        &self,
        ptr: BasicValueEnum<'ctx>,
        value: BasicValueEnum<'ctx>,
        align: u32,
    ) -> R<()> {
        unsafe {
            let s = c::LLVMBuildStore(self.raw_b(), value.as_value_ref(), ptr.as_value_ref());
            c::LLVMSetAlignment(s, align);
        }
        Ok(())
    }

    /// A call of the intrinsic `name` overloaded on `tys`.
    pub fn intrinsic(
        &self,
        name: &str,
        tys: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> R<BasicValueEnum<'ctx>> {
        let f = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(self.module, tys))
            .ok_or_else(|| format!("no LLVM intrinsic {name} for {tys:?}"))?;
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        let call = self
            .b
            .build_call(f, &args, "")
            .map_err(|e| format!("{e:?}"))?;
        call.try_as_basic_value()
            .basic()
            .ok_or_else(|| format!("intrinsic {name} returns void"))
    }

    /// A call of a void intrinsic.
    pub fn intrinsic_void(
        &self,
        name: &str,
        tys: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> R<()> {
        let f = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(self.module, tys))
            .ok_or_else(|| format!("no LLVM intrinsic {name} for {tys:?}"))?;
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        self.b
            .build_call(f, &args, "")
            .map_err(|e| format!("{e:?}"))?;
        Ok(())
    }

    pub fn i32c(&self, v: u64) -> BasicValueEnum<'ctx> {
        self.ctx.i32_type().const_int(v, false).into()
    }

    pub fn i64c(&self, v: u64) -> BasicValueEnum<'ctx> {
        self.ctx.i64_type().const_int(v, false).into()
    }

    pub fn boolc(&self, v: bool) -> BasicValueEnum<'ctx> {
        self.ctx.bool_type().const_int(v as u64, false).into()
    }

    /// `<0, 1, ..., W-1>` of the integer type `t`.
    pub fn iota(&self, t: inkwell::types::IntType<'ctx>) -> BasicValueEnum<'ctx> {
        let lanes: Vec<_> = (0..self.w as u64).map(|i| t.const_int(i, false)).collect();
        VectorType::const_vector(&lanes).into()
    }

    /// `reduce.or` of a mask: true when any lane is set (a scalar is itself).
    pub fn any(&self, m: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        if !is_vec(m) {
            return Ok(m);
        }
        self.intrinsic("llvm.vector.reduce.or", &[m.get_type()], &[m])
    }

    /// A constant of scalar type `t` with the given bits (ints) or value.
    pub fn const_of(&self, t: BasicTypeEnum<'ctx>, bits: u64, f: f64) -> BasicValueEnum<'ctx> {
        match t {
            BasicTypeEnum::IntType(t) => t.const_int(bits, false).into(),
            BasicTypeEnum::FloatType(t) => t.const_float(f).into(),
            other => other.const_zero(),
        }
    }
}
