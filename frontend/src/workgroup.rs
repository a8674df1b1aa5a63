//! The built-ins that act on a whole work-group or on memory shared by its
//! work-items: barriers and fences, atomics (OpenCL C 1.0 `atom_*`, 1.1
//! `atomic_*`, 2.0 C11-style), asynchronous copies between `__global` and
//! `__local` memory. Their overloads depend on address spaces and on
//! optional memory-order and scope arguments, so they are checked by rule
//! (`sema::workgroup`) rather than from the signature table. Work-group
//! collectives (`work_group_reduce_add`, ...) are ordinary table built-ins.

/// A work-group built-in, as resolved by the type checker. The HIR call's
/// arguments are all the arguments of the source, converted; memory-order
/// and scope arguments come last and only need evaluating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkGroupFn {
    /// `barrier(flags)`, `work_group_barrier(flags[, scope])`: `flags` is a
    /// `uint` (`cl_mem_fence_flags`).
    Barrier,
    /// `mem_fence(flags)`, `read_mem_fence(flags)`, `write_mem_fence(flags)`,
    /// `atomic_work_item_fence(flags, order, scope)`.
    Fence,
    /// An atomic on the object the first argument points to.
    Atomic(AtomicFn),
    /// `async_work_group_copy(dst, src, num, event)`, and with `strided`
    /// `async_work_group_strided_copy(dst, src, num, stride, event)`.
    AsyncCopy { strided: bool },
    /// `wait_group_events(num_events, event_list)`.
    WaitGroupEvents,
    /// `prefetch(p, num)`: a cache hint.
    Prefetch,
}

/// The operation of an atomic built-in. The first argument points to the
/// object; the operands follow (see [`AtomicFn::operands`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicFn {
    Add,
    Sub,
    Xchg,
    /// `atomic_inc`: `Add` of 1.
    Inc,
    /// `atomic_dec`: `Sub` of 1.
    Dec,
    /// `atomic_cmpxchg(p, cmp, val)`: returns the old value.
    CmpXchg,
    /// Signed or unsigned after the object's type.
    Min,
    Max,
    And,
    Or,
    Xor,
    Load,
    Store,
    /// `atomic_init(p, value)`: a plain, non-atomic store.
    Init,
    /// `atomic_compare_exchange_{strong,weak}(p, expected, desired)`: a
    /// `bool`; on failure `*expected` receives the current value.
    CompareExchange,
    /// `atomic_flag_test_and_set(p)`: sets the flag, returns whether it was set.
    FlagTestAndSet,
    /// `atomic_flag_clear(p)`.
    FlagClear,
}

/// Which family of OpenCL C an atomic name belongs to (they differ in the
/// types they accept and in the memory-order arguments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicFamily {
    /// OpenCL C 1.1/1.2 `atomic_*` on `volatile int`/`uint` (and `float`
    /// for `atomic_xchg`).
    V11,
    /// OpenCL 1.0 extensions `atom_*` (32-bit, and 64-bit under
    /// `cl_khr_int64_base_atomics`/`_extended_atomics`).
    V10,
    /// OpenCL C 2.0 C11-style functions; `explicit` for the `_explicit`
    /// forms, which take memory orders and an optional scope.
    V20 { explicit: bool },
}

impl AtomicFn {
    /// The number of value operands after the pointer.
    pub fn operands(self) -> usize {
        use AtomicFn::*;
        match self {
            Inc | Dec | Load | FlagTestAndSet | FlagClear => 0,
            CmpXchg | CompareExchange => 2,
            _ => 1,
        }
    }

    /// The number of memory-order arguments of the `_explicit` form.
    pub fn orders(self) -> usize {
        if self == AtomicFn::CompareExchange {
            2
        } else {
            1
        }
    }
}

fn rmw_name(op: &str) -> Option<AtomicFn> {
    use AtomicFn::*;
    Some(match op {
        "add" => Add,
        "sub" => Sub,
        "xchg" => Xchg,
        "inc" => Inc,
        "dec" => Dec,
        "cmpxchg" => CmpXchg,
        "min" => Min,
        "max" => Max,
        "and" => And,
        "or" => Or,
        "xor" => Xor,
        _ => return None,
    })
}

/// The atomic built-in of a name, with its family.
pub fn parse_atomic(name: &str) -> Option<(AtomicFn, AtomicFamily)> {
    use AtomicFn::*;
    if let Some(op) = name.strip_prefix("atom_") {
        return Some((rmw_name(op)?, AtomicFamily::V10));
    }
    let rest = name.strip_prefix("atomic_")?;
    if let Some(op) = rmw_name(rest) {
        return Some((op, AtomicFamily::V11));
    }
    let (base, explicit) = match rest.strip_suffix("_explicit") {
        Some(b) => (b, true),
        None => (rest, false),
    };
    let op = match base {
        "init" if !explicit => Init,
        "load" => Load,
        "store" => Store,
        "exchange" => Xchg,
        "compare_exchange_strong" | "compare_exchange_weak" => CompareExchange,
        "fetch_add" => Add,
        "fetch_sub" => Sub,
        "fetch_or" => Or,
        "fetch_xor" => Xor,
        "fetch_and" => And,
        "fetch_min" => Min,
        "fetch_max" => Max,
        "flag_test_and_set" => FlagTestAndSet,
        "flag_clear" => FlagClear,
        _ => return None,
    };
    Some((op, AtomicFamily::V20 { explicit }))
}

/// The work-group built-in of a name (not the collectives, which are in
/// the signature table).
pub fn parse(name: &str) -> Option<WorkGroupFn> {
    Some(match name {
        "barrier" | "work_group_barrier" => WorkGroupFn::Barrier,
        "mem_fence" | "read_mem_fence" | "write_mem_fence" | "atomic_work_item_fence" => {
            WorkGroupFn::Fence
        }
        "async_work_group_copy" => WorkGroupFn::AsyncCopy { strided: false },
        "async_work_group_strided_copy" => WorkGroupFn::AsyncCopy { strided: true },
        "wait_group_events" => WorkGroupFn::WaitGroupEvents,
        "prefetch" => WorkGroupFn::Prefetch,
        _ => WorkGroupFn::Atomic(parse_atomic(name)?.0),
    })
}

/// The types that name atomic objects in OpenCL C 2.0 and the
/// memory-order/scope enumerations, as the scalar type lanes gives them:
/// an `atomic_int` is an `int` that only the atomic built-ins should touch.
pub fn atomic_type_alias(name: &str) -> Option<crate::types::Scalar> {
    use crate::types::Scalar::*;
    Some(match name {
        "atomic_int" | "atomic_flag" | "memory_order" | "memory_scope" => Int,
        "atomic_uint" => UInt,
        "atomic_long" | "atomic_ptrdiff_t" | "atomic_intptr_t" => Long,
        "atomic_ulong" | "atomic_size_t" | "atomic_uintptr_t" => ULong,
        "atomic_float" => Float,
        "atomic_double" => Double,
        _ => return None,
    })
}

/// The enumerators of `memory_order` and `memory_scope` (clang's
/// `opencl-c-base.h`: the `__ATOMIC_*` and `__OPENCL_MEMORY_SCOPE_*` values).
pub const ENUMERATORS: &[(&str, i64)] = &[
    ("memory_order_relaxed", 0),
    ("memory_order_acquire", 2),
    ("memory_order_release", 3),
    ("memory_order_acq_rel", 4),
    ("memory_order_seq_cst", 5),
    ("memory_scope_work_item", 0),
    ("memory_scope_work_group", 1),
    ("memory_scope_device", 2),
    ("memory_scope_all_svm_devices", 3),
    ("memory_scope_all_devices", 3),
    ("memory_scope_sub_group", 4),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(parse("barrier"), Some(WorkGroupFn::Barrier));
        assert_eq!(parse("read_mem_fence"), Some(WorkGroupFn::Fence));
        assert_eq!(
            parse_atomic("atomic_inc"),
            Some((AtomicFn::Inc, AtomicFamily::V11))
        );
        assert_eq!(
            parse_atomic("atom_cmpxchg"),
            Some((AtomicFn::CmpXchg, AtomicFamily::V10))
        );
        assert_eq!(
            parse_atomic("atomic_compare_exchange_weak_explicit"),
            Some((
                AtomicFn::CompareExchange,
                AtomicFamily::V20 { explicit: true }
            ))
        );
        assert_eq!(
            parse_atomic("atomic_fetch_min"),
            Some((AtomicFn::Min, AtomicFamily::V20 { explicit: false }))
        );
        assert_eq!(parse_atomic("atomic_init_explicit"), None);
        assert_eq!(parse_atomic("atomic_fetch_inc"), None);
        assert_eq!(parse("atomic_work_item_fence"), Some(WorkGroupFn::Fence));
        assert_eq!(parse("work_group_reduce_add"), None);
        assert_eq!(
            atomic_type_alias("atomic_uint"),
            Some(crate::types::Scalar::UInt)
        );
    }
}
