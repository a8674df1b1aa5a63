//! Data-race detection inside one work-group, the check oclgrind makes.
//!
//! Two accesses *conflict* when they are made by different work-items of
//! one work-group to the same byte of `__local` or `__global` memory, at
//! least one of them writes, and not both are atomic. Accesses made before
//! a barrier whose flags fence the memory's space are ordered before those
//! made after it, so a barrier forgets everything recorded for the spaces
//! it fences. Races between work-groups are not looked for (the state is
//! cleared when a group ends).
//!
//! Per byte the detector keeps enough to find a conflict with any later
//! access: the non-atomic writer (two different ones already race), and
//! up to two atomic writers, non-atomic readers and atomic readers from
//! different work-items (a later access by work-item `w` conflicts with
//! one of them whenever any of them is not `w`).

use std::collections::HashMap;

use crate::ir::InstId;

/// The two spaces shared by the work-items of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shared {
    Local,
    Global,
}

/// What an access does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AccessKind {
    Read,
    Write,
    AtomicRead,
    /// An atomic store or read-modify-write.
    AtomicWrite,
}

impl AccessKind {
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::AtomicRead => "atomic read",
            AccessKind::AtomicWrite => "atomic update",
        }
    }
}

/// One recorded access: the work-item (linear local id) and the
/// instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    pub item: u64,
    pub inst: InstId,
    pub kind: AccessKind,
}

/// Up to two accesses of one kind from different work-items.
#[derive(Clone, Copy, Debug, Default)]
struct Two([Option<Access>; 2]);

impl Two {
    /// A recorded access by another work-item than `item`.
    fn other_than(&self, item: u64) -> Option<Access> {
        self.0.iter().flatten().find(|a| a.item != item).copied()
    }

    fn add(&mut self, a: Access) {
        match self.0 {
            [None, _] => self.0[0] = Some(a),
            [Some(x), None] if x.item != a.item => self.0[1] = Some(a),
            _ => {}
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct ByteState {
    write: Option<Access>,
    atomic_writes: Two,
    reads: Two,
    atomic_reads: Two,
}

impl ByteState {
    /// An earlier access that conflicts with `a`.
    fn conflict(&self, a: Access) -> Option<Access> {
        let other_write = self.write.filter(|w| w.item != a.item);
        match a.kind {
            AccessKind::Read => other_write.or(self.atomic_writes.other_than(a.item)),
            AccessKind::AtomicRead => other_write,
            AccessKind::Write => other_write
                .or(self.atomic_writes.other_than(a.item))
                .or(self.reads.other_than(a.item))
                .or(self.atomic_reads.other_than(a.item)),
            AccessKind::AtomicWrite => other_write.or(self.reads.other_than(a.item)),
        }
    }

    fn record(&mut self, a: Access) {
        match a.kind {
            AccessKind::Read => self.reads.add(a),
            AccessKind::AtomicRead => self.atomic_reads.add(a),
            AccessKind::Write => {
                if self.write.is_none() {
                    self.write = Some(a)
                }
            }
            AccessKind::AtomicWrite => self.atomic_writes.add(a),
        }
    }
}

/// The accesses of the current barrier interval of one work-group, per
/// space, keyed by (memory object, byte offset).
#[derive(Debug, Default)]
pub(crate) struct Races {
    local: HashMap<(u32, u64), ByteState>,
    global: HashMap<(u32, u64), ByteState>,
}

/// A race found: the byte and the earlier access it conflicts with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Race {
    pub byte: u64,
    pub earlier: Access,
}

impl Races {
    /// Records an access of `size` bytes at `off` of object `obj`; the
    /// first conflicting earlier access, if any.
    pub fn access(
        &mut self,
        space: Shared,
        obj: u32,
        off: u64,
        size: u64,
        a: Access,
    ) -> Option<Race> {
        let map = match space {
            Shared::Local => &mut self.local,
            Shared::Global => &mut self.global,
        };
        let mut race = None;
        for byte in off..off + size {
            let state = map.entry((obj, byte)).or_default();
            if race.is_none() {
                race = state.conflict(a).map(|earlier| Race { byte, earlier });
            }
            state.record(a);
        }
        race
    }

    /// A barrier fencing `space`: later accesses are ordered after all
    /// recorded ones.
    pub fn barrier(&mut self, space: Shared) {
        match space {
            Shared::Local => self.local.clear(),
            Shared::Global => self.global.clear(),
        }
    }

    /// The end of a work-group.
    pub fn clear(&mut self) {
        self.local = HashMap::new();
        self.global = HashMap::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(item: u64, kind: AccessKind) -> Access {
        Access {
            item,
            inst: InstId(item as u32),
            kind,
        }
    }

    #[test]
    fn conflicts_need_two_items_a_write_and_a_non_atomic_side() {
        use AccessKind::*;
        let pairs = [
            (Read, Read, false),
            (Read, Write, true),
            (Write, Read, true),
            (Write, Write, true),
            (AtomicWrite, AtomicWrite, false),
            (AtomicRead, AtomicWrite, false),
            (AtomicWrite, Read, true),
            (Read, AtomicWrite, true),
            (AtomicRead, Write, true),
            (AtomicRead, Read, false),
        ];
        for (first, second, races) in pairs {
            let mut r = Races::default();
            assert!(r.access(Shared::Local, 0, 0, 4, acc(1, first)).is_none());
            let found = r.access(Shared::Local, 0, 2, 4, acc(2, second));
            assert_eq!(found.is_some(), races, "{first:?} then {second:?}");
            if let Some(race) = found {
                assert_eq!(race.byte, 2);
                assert_eq!(race.earlier.item, 1);
            }
            // The same work-item never races with itself.
            let mut r = Races::default();
            r.access(Shared::Local, 0, 0, 4, acc(1, first));
            assert!(r.access(Shared::Local, 0, 0, 4, acc(1, second)).is_none());
        }
    }

    #[test]
    fn a_write_after_reads_finds_a_reader_of_another_item() {
        let mut r = Races::default();
        r.access(Shared::Global, 3, 0, 4, acc(5, AccessKind::Read));
        r.access(Shared::Global, 3, 0, 4, acc(6, AccessKind::Read));
        let race = r
            .access(Shared::Global, 3, 0, 4, acc(5, AccessKind::Write))
            .unwrap();
        assert_eq!(race.earlier.item, 6);
    }

    #[test]
    fn barriers_clear_only_the_fenced_space() {
        let mut r = Races::default();
        r.access(Shared::Local, 0, 0, 4, acc(1, AccessKind::Write));
        r.access(Shared::Global, 1, 0, 4, acc(1, AccessKind::Write));
        r.barrier(Shared::Local);
        assert!(r
            .access(Shared::Local, 0, 0, 4, acc(2, AccessKind::Read))
            .is_none());
        assert!(r
            .access(Shared::Global, 1, 0, 4, acc(2, AccessKind::Read))
            .is_some());
        // Different objects never conflict.
        assert!(r
            .access(Shared::Global, 2, 0, 4, acc(3, AccessKind::Write))
            .is_none());
    }
}
