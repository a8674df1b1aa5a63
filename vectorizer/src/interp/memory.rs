//! Memory objects of one run: buffer arguments, `__constant` globals and
//! private allocations, with bounds, alignment, write-permission and
//! initialization checks on every access.
//!
//! A pointer is (memory object, byte offset). `ptrtoint` needs numbers, so
//! every object has a fake base address: object `k` starts at
//! `(k + 1) << OFFSET_BITS`, and the null pointer is 0. Offsets between
//! pointers into one object are then exactly the byte differences C
//! expects, and an integer converted back finds its object again.

use std::collections::HashMap;

use super::ops::{fault, Fault};
use super::ErrorKind;

/// Bits of a fake address that hold the offset (objects up to 64 GiB).
const OFFSET_BITS: u32 = 36;
/// Object ids must leave the top bits of an address free.
const MAX_OBJECTS: u32 = (1 << (64 - OFFSET_BITS)) - 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pointer {
    /// The object pointed into; `None` for the null pointer (plus an
    /// offset, after pointer arithmetic on null).
    pub obj: Option<u32>,
    pub off: i64,
}

impl Pointer {
    pub const NULL: Pointer = Pointer { obj: None, off: 0 };
}

/// The fake address of a pointer (see the module docs).
pub(crate) fn address(p: Pointer) -> u64 {
    match p.obj {
        None => p.off as u64,
        Some(id) => ((id as u64 + 1) << OFFSET_BITS).wrapping_add(p.off as u64),
    }
}

/// The pointer with a given fake address.
pub(crate) fn from_address(a: u64) -> Pointer {
    let hi = a >> OFFSET_BITS;
    if hi == 0 {
        Pointer {
            obj: None,
            off: a as i64,
        }
    } else {
        Pointer {
            obj: Some((hi - 1) as u32),
            off: (a & ((1u64 << OFFSET_BITS) - 1)) as i64,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Object {
    /// How the object is named in messages (``buffer `a` ``).
    pub name: String,
    pub bytes: Vec<u8>,
    pub writable: bool,
    /// Per-byte "was written" flags, for private memory; `None` when the
    /// whole object is initialized.
    pub init: Option<Vec<bool>>,
    /// The work-item (linear index of the run) owning private memory.
    pub owner: Option<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct Memory {
    /// Buffer arguments and globals, ids `0..fixed.len()`.
    pub fixed: Vec<Object>,
    /// Live private objects. Ids are never reused, so a pointer to freed
    /// private memory is detected as dangling.
    private: HashMap<u32, Object>,
    next_private: u32,
}

impl Memory {
    /// Adds a buffer or global (before any private object exists).
    pub fn add_fixed(&mut self, obj: Object) -> u32 {
        self.fixed.push(obj);
        self.next_private = self.fixed.len() as u32;
        self.fixed.len() as u32 - 1
    }

    /// A new private object of `size` uninitialized bytes.
    pub fn alloca(&mut self, name: String, size: u64, owner: u64) -> Result<u32, Fault> {
        self.allocate(name, size, Some(owner))
    }

    /// A new `__local` object of `size` uninitialized bytes, shared by the
    /// work-items of one work-group.
    pub fn local(&mut self, name: String, size: u64) -> Result<u32, Fault> {
        self.allocate(name, size, None)
    }

    fn allocate(&mut self, name: String, size: u64, owner: Option<u64>) -> Result<u32, Fault> {
        let id = self.next_private;
        if id >= MAX_OBJECTS {
            return Err(fault(
                ErrorKind::StepLimit,
                "too many private memory allocations in one run",
            ));
        }
        // Private and local arrays are small; refuse absurd sizes instead
        // of aborting on allocation failure.
        if size > (1 << 30) {
            return Err(fault(
                ErrorKind::StepLimit,
                format!("allocation of {size} bytes for {name} is too large"),
            ));
        }
        self.next_private += 1;
        self.private.insert(
            id,
            Object {
                name,
                bytes: vec![0; size as usize],
                writable: true,
                init: Some(vec![false; size as usize]),
                owner,
            },
        );
        Ok(id)
    }

    /// The name of a live object, for messages.
    pub fn name(&self, id: u32) -> &str {
        match self.fixed.get(id as usize) {
            Some(o) => &o.name,
            None => self.private.get(&id).map_or("freed memory", |o| &o.name),
        }
    }

    pub fn free(&mut self, id: u32) {
        self.private.remove(&id);
    }

    fn object(&self, p: Pointer, owner: u64) -> Result<&Object, Fault> {
        let id = match p.obj {
            None if p.off == 0 => {
                return Err(fault(
                    ErrorKind::InvalidPointer,
                    "dereference of a null pointer",
                ))
            }
            None => {
                return Err(fault(
                    ErrorKind::InvalidPointer,
                    format!(
                        "dereference of address {:#x}, which points into no memory object",
                        p.off
                    ),
                ))
            }
            Some(id) => id,
        };
        let obj = match self.fixed.get(id as usize) {
            Some(o) => o,
            None => self.private.get(&id).ok_or_else(|| {
                fault(
                    ErrorKind::InvalidPointer,
                    "dereference of a dangling pointer (private memory no longer live)",
                )
            })?,
        };
        if obj.owner.is_some_and(|o| o != owner) {
            return Err(fault(
                ErrorKind::InvalidPointer,
                format!("access to {} of another work-item", obj.name),
            ));
        }
        Ok(obj)
    }

    /// Checks bounds and alignment of an access of `size` bytes; returns the
    /// start offset.
    fn check(obj: &Object, p: Pointer, size: u64, align: u64, what: &str) -> Result<usize, Fault> {
        let len = obj.bytes.len() as u64;
        let inside = p.off >= 0
            && (p.off as u64)
                .checked_add(size)
                .is_some_and(|end| end <= len);
        if !inside {
            return Err(fault(
                ErrorKind::OutOfBounds,
                format!(
                    "{what} of {size} byte{} at offset {} of {} ({len} bytes)",
                    if size == 1 { "" } else { "s" },
                    p.off,
                    obj.name
                ),
            ));
        }
        if align > 1 && align.is_power_of_two() && !(p.off as u64).is_multiple_of(align) {
            return Err(fault(
                ErrorKind::Misaligned,
                format!(
                    "{what} at offset {} of {} is not aligned to {align} bytes",
                    p.off, obj.name
                ),
            ));
        }
        Ok(p.off as usize)
    }

    /// Reads `size` bytes, which must lie inside one object and be initialized.
    pub fn load(&self, p: Pointer, size: u64, align: u64, owner: u64) -> Result<&[u8], Fault> {
        let (bytes, uninit) = self.load_any(p, size, align, owner)?;
        match uninit {
            Some(e) => Err(e),
            None => Ok(bytes),
        }
    }

    /// Reads `size` bytes inside one object; also returns the
    /// uninitialized-read error if some were never written.
    pub fn load_any(
        &self,
        p: Pointer,
        size: u64,
        align: u64,
        owner: u64,
    ) -> Result<(&[u8], Option<Fault>), Fault> {
        let obj = self.object(p, owner)?;
        let start = Self::check(obj, p, size, align, "load")?;
        let end = start + size as usize;
        let uninit = obj.init.as_ref().and_then(|init| {
            (start..end).find(|&i| !init[i]).map(|i| {
                fault(
                    ErrorKind::UninitializedRead,
                    format!(
                        "load of uninitialized memory: byte {i} of {} was never written",
                        obj.name
                    ),
                )
            })
        });
        Ok((&obj.bytes[start..end], uninit))
    }

    /// Writes `bytes`, which must lie inside one writable object.
    pub fn store(&mut self, p: Pointer, bytes: &[u8], align: u64, owner: u64) -> Result<(), Fault> {
        let obj = self.object(p, owner)?;
        let start = Self::check(obj, p, bytes.len() as u64, align, "store")?;
        if !obj.writable {
            return Err(fault(
                ErrorKind::ConstantWrite,
                format!("store into {}, which is read-only", obj.name),
            ));
        }
        let end = start + bytes.len();
        // Looked up again mutably; `object` already proved it exists.
        let id = p.obj.unwrap_or_default();
        let obj = match self.fixed.get_mut(id as usize) {
            Some(o) => o,
            None => match self.private.get_mut(&id) {
                Some(o) => o,
                None => return Err(fault(ErrorKind::InvalidPointer, "dangling pointer")),
            },
        };
        obj.bytes[start..end].copy_from_slice(bytes);
        if let Some(init) = &mut obj.init {
            init[start..end].iter_mut().for_each(|b| *b = true);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        let p = Pointer {
            obj: Some(3),
            off: 40,
        };
        assert_eq!(from_address(address(p)), p);
        assert_eq!(address(Pointer::NULL), 0);
        assert_eq!(from_address(0), Pointer::NULL);
        let q = Pointer {
            obj: Some(3),
            off: 48,
        };
        assert_eq!(address(q) - address(p), 8);
    }

    #[test]
    fn private_memory_tracks_initialization_and_owner() {
        let mut m = Memory::default();
        let id = m.alloca("private `a`".into(), 8, 7).unwrap();
        let p = Pointer {
            obj: Some(id),
            off: 0,
        };
        let e = m.load(p, 4, 4, 7).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UninitializedRead);
        m.store(p, &[1, 2, 3, 4], 4, 7).unwrap();
        assert_eq!(m.load(p, 4, 4, 7).unwrap(), &[1, 2, 3, 4]);
        // Bytes 4..8 still uninitialized.
        let e = m.load(p, 8, 8, 7).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UninitializedRead);
        assert!(e.message.contains("byte 4"), "{}", e.message);
        assert_eq!(
            m.load(p, 4, 4, 8).unwrap_err().kind,
            ErrorKind::InvalidPointer
        );
        m.free(id);
        assert_eq!(
            m.load(p, 4, 4, 7).unwrap_err().kind,
            ErrorKind::InvalidPointer
        );
    }

    #[test]
    fn bounds_alignment_and_read_only() {
        let mut m = Memory::default();
        let id = m.add_fixed(Object {
            name: "buffer `c`".into(),
            bytes: vec![0; 8],
            writable: false,
            init: None,
            owner: None,
        });
        let at = |off| Pointer { obj: Some(id), off };
        assert!(m.load(at(4), 4, 4, 0).is_ok());
        let e = m.load(at(8), 4, 4, 0).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfBounds);
        assert_eq!(
            e.message,
            "load of 4 bytes at offset 8 of buffer `c` (8 bytes)"
        );
        assert_eq!(
            m.load(at(-4), 4, 4, 0).unwrap_err().kind,
            ErrorKind::OutOfBounds
        );
        assert_eq!(
            m.load(at(2), 4, 4, 0).unwrap_err().kind,
            ErrorKind::Misaligned
        );
        assert_eq!(
            m.store(at(0), &[1], 1, 0).unwrap_err().kind,
            ErrorKind::ConstantWrite
        );
        assert_eq!(
            m.load(Pointer::NULL, 1, 1, 0).unwrap_err().kind,
            ErrorKind::InvalidPointer
        );
    }
}
