//! The instruction and operation names the printer writes, back to the
//! IR's enums.

use lanes_frontend::ast::AddressSpace;

use strum::IntoEnumIterator;

use crate::ir::*;

pub(super) fn space_of(name: &str) -> Option<AddressSpace> {
    Some(match name {
        "private" => AddressSpace::Private,
        "global" => AddressSpace::Global,
        "constant" => AddressSpace::Constant,
        "local" => AddressSpace::Local,
        "generic" => AddressSpace::Generic,
        _ => return None,
    })
}

/// The variant of `E` whose printed name is `name`.
fn by_name<E: IntoEnumIterator + Copy>(
    name: &str,
    printed: impl Fn(E) -> &'static str,
) -> Option<E> {
    E::iter().find(|&e| printed(e) == name)
}

pub(super) fn binop(name: &str) -> Option<BinOp> {
    by_name(name, BinOp::name)
}

pub(super) fn cmp_pred(name: &str) -> Option<CmpPred> {
    by_name(name, CmpPred::name)
}

pub(super) fn cast_op(name: &str) -> Option<CastOp> {
    by_name(name, CastOp::name)
}

pub(super) fn work_item(name: &str) -> Option<WorkItem> {
    by_name(name, WorkItem::name)
}

pub(super) fn math_fn(name: &str) -> Option<MathFn> {
    by_name(name, MathFn::name)
}

pub(super) fn horizontal(name: &str) -> Option<Horizontal> {
    let mut all = vec![Horizontal::Any, Horizontal::All, Horizontal::Broadcast];
    for o in ReduceOp::iter() {
        all.extend([
            Horizontal::Reduce(o),
            Horizontal::ScanInclusive(o),
            Horizontal::ScanExclusive(o),
        ]);
    }
    all.into_iter().find(|h| h.name() == name)
}

pub(super) fn atomic_op(name: &str) -> Option<AtomicOp> {
    by_name(name, AtomicOp::name)
}

pub(super) fn image_query(name: &str) -> Option<ImageQuery> {
    by_name(name, ImageQuery::name)
}

pub(super) fn image_elem(suffix: &str) -> Option<ImageElem> {
    by_name(suffix, ImageElem::suffix)
}

pub(super) fn fence_flags(text: &str) -> Option<u32> {
    if text == "none" {
        return Some(0);
    }
    let mut flags = 0;
    for part in text.split('|') {
        flags |= match part {
            "local" => fence::LOCAL,
            "global" => fence::GLOBAL,
            "image" => fence::IMAGE,
            _ => return None,
        };
    }
    Some(flags)
}
