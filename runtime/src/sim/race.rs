//! Run-time race detection: shadow state per element of shared and global memory.
//!
//! Takes who is running (set by the block scheduler, [`set_current`]) and each access of a
//! simulated array. Gives [`SharedShadow`], [`GlobalShadow`] and [`assume_uniform`]'s check.
//! Guarantees: a race between two accesses of one phase is a [`Fault::Race`] naming both sides;
//! a broken `assume_uniform` promise is a [`Fault::BrokenPromise`].
//!
//! A block runs on one CPU thread, so its shared memory's shadow is plain cells. Global memory
//! is shared by every block of a launch, which run in parallel: its shadow is atomic, and each
//! access swaps its own record in before it reads the other kind's, so that of two concurrent
//! conflicting accesses at least one sees the other.
//!
//! An access record packs who made it: block (32 bits), thread within the block (10 bits),
//! phase of that block (20 bits), whether it was atomic, and a valid bit. Two accesses race when
//! they come from different threads, at least one writes, they are not both atomic, and they
//! are in one phase: for shared memory, the same block and phase; for global memory, also any
//! two different blocks (nothing orders blocks within a launch).

use super::{Fault, Loc};
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Who is running: set by the block scheduler before it polls a thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct Current {
    /// The block's linear index.
    pub block: u32,
    /// The thread's linear index in its block.
    pub thread: u32,
    /// The block's phase: how many barriers it has passed.
    pub phase: u32,
}

thread_local! {
    static CURRENT: Cell<Current> = const { Cell::new(Current { block: 0, thread: 0, phase: 0 }) };
    /// `assume_uniform` promises of the block running on this CPU thread: for each (location,
    /// n-th evaluation by a thread), the first value seen and the thread that saw it.
    static PROMISES: std::cell::RefCell<Promises> = std::cell::RefCell::new(Promises::default());
}

#[derive(Default)]
struct Promises {
    block: Option<u32>,
    counts: std::collections::HashMap<(u32, usize), u32>,
    seen: std::collections::HashMap<(usize, u32), (u64, u32)>,
}

/// Checks an `assume_uniform` promise: every thread of the block that evaluates it for the
/// n-th time must see the same value. Returns the value.
pub fn assume_uniform<T: Copy + super::ops::ToBits>(v: T, loc: &'static Loc) -> Result<T, Fault> {
    let me = current();
    let bits = v.to_bits_u64();
    PROMISES.with(|p| {
        let mut p = p.borrow_mut();
        if p.block != Some(me.block) {
            *p = Promises {
                block: Some(me.block),
                ..Promises::default()
            };
        }
        let key = loc as *const Loc as usize;
        let n = {
            let c = p.counts.entry((me.thread, key)).or_insert(0);
            *c += 1;
            *c
        };
        match p.seen.get(&(key, n)) {
            Some(&(first, thread)) if first != bits => Err(Fault::BrokenPromise {
                loc,
                other_thread: thread,
                other_bits: first,
                bits,
            }),
            Some(_) => Ok(v),
            None => {
                p.seen.insert((key, n), (bits, me.thread));
                Ok(v)
            }
        }
    })
}

/// Sets who is running on this CPU thread.
#[inline(always)]
pub fn set_current(c: Current) {
    CURRENT.with(|x| x.set(c));
}

#[inline(always)]
fn current() -> Current {
    CURRENT.with(|x| x.get())
}

const VALID: u64 = 1;
const ATOMIC: u64 = 2;

#[inline(always)]
fn pack(c: Current, atomic: bool) -> u64 {
    VALID
        | (u64::from(atomic) << 1)
        | (u64::from(c.phase & 0xF_FFFF) << 2)
        | (u64::from(c.thread & 0x3FF) << 22)
        | (u64::from(c.block) << 32)
}

/// An unpacked access record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Who {
    /// Block (linear).
    pub block: u32,
    /// Thread in the block (linear).
    pub thread: u32,
    phase: u32,
    atomic: bool,
}

#[inline(always)]
fn unpack(v: u64) -> Option<Who> {
    if v & VALID == 0 {
        return None;
    }
    Some(Who {
        block: (v >> 32) as u32,
        thread: ((v >> 22) & 0x3FF) as u32,
        phase: ((v >> 2) & 0xF_FFFF) as u32,
        atomic: v & ATOMIC != 0,
    })
}

/// The kinds of races.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceKind {
    /// A read of a value another thread wrote in the same phase.
    ReadAfterWrite,
    /// A write of a value another thread read in the same phase.
    WriteAfterRead,
    /// Two writes in the same phase.
    WriteAfterWrite,
    /// A read of an element an asynchronous copy is still writing (its issuer has not waited
    /// for it).
    ReadBeforeWait,
    /// A write of an element an asynchronous copy is still writing.
    WriteBeforeWait,
    /// A write of an element a warpgroup multiply (`wgmma`) is still reading (its issuer has
    /// not waited for it).
    WriteDuringMma,
}

impl RaceKind {
    /// "read-after-write", ...
    pub fn name(self) -> &'static str {
        match self {
            RaceKind::ReadAfterWrite => "read-after-write",
            RaceKind::WriteAfterRead => "write-after-read",
            RaceKind::WriteAfterWrite => "write-after-write",
            RaceKind::ReadBeforeWait => "read-before-wait (of an asynchronous copy in flight)",
            RaceKind::WriteBeforeWait => "write-before-wait (of an asynchronous copy in flight)",
            RaceKind::WriteDuringMma => "write-during-read (of a `wgmma` in flight)",
        }
    }
}

/// Whether an earlier access `other` conflicts with the current one.
#[inline(always)]
fn conflicts(other: Who, me: Current, atomic: bool, global: bool) -> bool {
    if other.block == me.block && other.thread == me.thread {
        return false;
    }
    if other.atomic && atomic {
        return false;
    }
    if other.block != me.block {
        return global;
    }
    other.phase == (me.phase & 0xF_FFFF)
}

#[cold]
fn race(
    array: &'static str,
    index: usize,
    kind: RaceKind,
    other: Who,
    other_loc: Option<&'static Loc>,
    loc: &'static Loc,
) -> Fault {
    Fault::Race {
        array,
        index: index as u64,
        kind,
        other_block: other.block,
        other_thread: other.thread,
        other_loc,
        loc,
    }
}

/// The asynchronous copy in flight into one element: its issuer's record (0: none) and where
/// it was issued.
type InFlight = (Cell<u64>, Cell<Option<&'static Loc>>);

/// The shadow of a block's shared array.
pub struct SharedShadow {
    writer: Box<[Cell<u64>]>,
    writer_loc: Box<[Cell<Option<&'static Loc>>]>,
    /// Two readers of the element's current phase, so that a reader other than the writer is
    /// found even if the writer read first.
    readers: Box<[[Cell<u64>; 2]]>,
    reader_loc: Box<[[Cell<Option<&'static Loc>>; 2]]>,
    /// The asynchronous copy in flight into each element (its issuer and where), from its
    /// issue to its issuer's wait; allocated by the first copy.
    in_flight: std::cell::OnceCell<Box<[InFlight]>>,
    /// How many copies are in flight (accesses look at `in_flight` only when some are).
    flying: Cell<usize>,
    /// Per element: how many warpgroup multiplies in flight read it, and the last issuer's
    /// record and place; allocated by the first multiply.
    mma_reads: std::cell::OnceCell<Box<[MmaRead]>>,
    /// How many element reads of multiplies are in flight (writes look at `mma_reads` only
    /// when some are).
    mma_flying: Cell<usize>,
}

/// The warpgroup multiplies in flight that read one element: how many, and the last one's
/// issuer and place.
type MmaRead = (Cell<u32>, Cell<u64>, Cell<Option<&'static Loc>>);

impl SharedShadow {
    /// Shadow for `len` elements.
    pub fn new(len: usize) -> Self {
        SharedShadow {
            writer: (0..len).map(|_| Cell::new(0)).collect(),
            writer_loc: (0..len).map(|_| Cell::new(None)).collect(),
            readers: (0..len).map(|_| [Cell::new(0), Cell::new(0)]).collect(),
            reader_loc: (0..len)
                .map(|_| [Cell::new(None), Cell::new(None)])
                .collect(),
            in_flight: std::cell::OnceCell::new(),
            flying: Cell::new(0),
            mma_reads: std::cell::OnceCell::new(),
            mma_flying: Cell::new(0),
        }
    }

    /// Records a warpgroup multiply's read of element `i` at its issue: a read of this phase,
    /// in flight until [`Self::mma_done`] (a write before then is a fault).
    pub fn mma_read(&self, array: &'static str, i: usize, loc: &'static Loc) -> Result<(), Fault> {
        self.read(array, i, false, loc)?;
        let len = self.writer.len();
        let slots = self.mma_reads.get_or_init(|| {
            (0..len)
                .map(|_| (Cell::new(0), Cell::new(0), Cell::new(None)))
                .collect()
        });
        if let Some((n, who, at)) = slots.get(i) {
            n.set(n.get() + 1);
            who.set(pack(current(), false));
            at.set(Some(loc));
            self.mma_flying.set(self.mma_flying.get() + 1);
        }
        Ok(())
    }

    /// Records the end of a warpgroup multiply's read of element `i`, at its issuer's wait: a
    /// read of the wait's phase (so a write after it needs a barrier).
    pub fn mma_done(&self, array: &'static str, i: usize, loc: &'static Loc) -> Result<(), Fault> {
        if let Some((n, _, _)) = self.mma_reads.get().and_then(|f| f.get(i)) {
            if n.get() > 0 {
                n.set(n.get() - 1);
                self.mma_flying.set(self.mma_flying.get().saturating_sub(1));
            }
        }
        self.read(array, i, false, loc)
    }

    /// A fault if a warpgroup multiply in flight reads element `i`.
    #[inline(always)]
    fn check_mma(&self, array: &'static str, i: usize, loc: &'static Loc) -> Result<(), Fault> {
        if self.mma_flying.get() == 0 {
            return Ok(());
        }
        let Some((n, who, at)) = self.mma_reads.get().and_then(|f| f.get(i)) else {
            return Ok(());
        };
        match (n.get(), unpack(who.get())) {
            (1.., Some(w)) => Err(race(array, i, RaceKind::WriteDuringMma, w, at.get(), loc)),
            _ => Ok(()),
        }
    }

    /// A fault if an asynchronous copy into element `i` is in flight (its own issuer's access
    /// too: the copy lands at the wait, not before).
    #[inline(always)]
    fn check_in_flight(
        &self,
        array: &'static str,
        i: usize,
        write: bool,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        if self.flying.get() == 0 {
            return Ok(());
        }
        let Some((who, at)) = self.in_flight.get().and_then(|f| f.get(i)) else {
            return Ok(());
        };
        match unpack(who.get()) {
            Some(w) => {
                let kind = if write {
                    RaceKind::WriteBeforeWait
                } else {
                    RaceKind::ReadBeforeWait
                };
                Err(race(array, i, kind, w, at.get(), loc))
            }
            None => Ok(()),
        }
    }

    /// Records the issue of an asynchronous copy into element `i`: a write of this phase (a
    /// fault if it races with another thread's access), in flight until [`Self::land`].
    pub fn issue(&self, array: &'static str, i: usize, loc: &'static Loc) -> Result<(), Fault> {
        self.write(array, i, false, loc)?;
        let len = self.writer.len();
        let slots = self
            .in_flight
            .get_or_init(|| (0..len).map(|_| (Cell::new(0), Cell::new(None))).collect());
        if let Some((who, at)) = slots.get(i) {
            who.set(pack(current(), false));
            at.set(Some(loc));
            self.flying.set(self.flying.get() + 1);
        }
        Ok(())
    }

    /// Records the landing of the copy in flight into element `i`, at its issuer's wait: a
    /// write of the wait's phase.
    pub fn land(&self, array: &'static str, i: usize, loc: &'static Loc) -> Result<(), Fault> {
        if let Some((who, _)) = self.in_flight.get().and_then(|f| f.get(i)) {
            if unpack(who.get()).is_some() {
                who.set(0);
                self.flying.set(self.flying.get().saturating_sub(1));
            }
        }
        self.write(array, i, false, loc)
    }

    /// Records a read of element `i`; a fault if it races with a write.
    #[inline(always)]
    pub fn read(
        &self,
        array: &'static str,
        i: usize,
        atomic: bool,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        self.check_in_flight(array, i, false, loc)?;
        let me = current();
        if let Some(w) = unpack(self.writer[i].get()) {
            if conflicts(w, me, atomic, false) {
                return Err(race(
                    array,
                    i,
                    RaceKind::ReadAfterWrite,
                    w,
                    self.writer_loc[i].get(),
                    loc,
                ));
            }
        }
        let rec = pack(me, atomic);
        let slots = &self.readers[i];
        let phase = me.phase & 0xF_FFFF;
        let a = unpack(slots[0].get());
        match a {
            Some(r) if r.phase == phase && r.block == me.block => {
                if r.thread != me.thread && unpack(slots[1].get()).is_none_or(|s| s.phase != phase)
                {
                    slots[1].set(rec);
                    self.reader_loc[i][1].set(Some(loc));
                }
            }
            _ => {
                slots[0].set(rec);
                self.reader_loc[i][0].set(Some(loc));
                slots[1].set(0);
            }
        }
        Ok(())
    }

    /// Records a write of element `i`; a fault if it races with a read or a write.
    #[inline(always)]
    pub fn write(
        &self,
        array: &'static str,
        i: usize,
        atomic: bool,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        self.check_in_flight(array, i, true, loc)?;
        self.check_mma(array, i, loc)?;
        let me = current();
        if let Some(w) = unpack(self.writer[i].get()) {
            if conflicts(w, me, atomic, false) {
                return Err(race(
                    array,
                    i,
                    RaceKind::WriteAfterWrite,
                    w,
                    self.writer_loc[i].get(),
                    loc,
                ));
            }
        }
        for k in 0..2 {
            if let Some(r) = unpack(self.readers[i][k].get()) {
                if conflicts(r, me, atomic, false) {
                    return Err(race(
                        array,
                        i,
                        RaceKind::WriteAfterRead,
                        r,
                        self.reader_loc[i][k].get(),
                        loc,
                    ));
                }
            }
        }
        self.writer[i].set(pack(me, atomic));
        self.writer_loc[i].set(Some(loc));
        Ok(())
    }
}

#[derive(Default)]
struct Slot {
    who: AtomicU64,
    loc: AtomicUsize,
}

#[derive(Default)]
struct Element {
    writer: Slot,
    readers: [Slot; 2],
}

/// Forgets every access to `elements` (a new launch), with one bulk write.
///
/// # Safety
/// No other thread accesses `elements` meanwhile.
unsafe fn clear(elements: &[Element]) {
    // SAFETY: every byte of an `Element` is inside an atomic (an `UnsafeCell`), so writing
    // through this shared slice is allowed; the caller guarantees nothing races with the
    // plain writes; all zeros is "no access".
    unsafe { std::ptr::write_bytes(elements.as_ptr().cast_mut(), 0, elements.len()) }
}

/// A page of a [`GlobalShadow`]: its slots, allocated on the first access, and the launch
/// they belong to.
#[derive(Default)]
struct Page {
    /// The epoch of the launch whose accesses the slots hold ([`BUSY`] while a thread clears
    /// them for a new one).
    epoch: AtomicU32,
    slots: OnceLock<Box<[Element]>>,
}

/// A page epoch: being cleared.
const BUSY: u32 = u32::MAX;

/// Shadow slots a page of a [`GlobalShadow`] holds.
const PAGE: usize = 512;

/// The shadow of a buffer in global memory: 48 bytes per element (or per scalar field of an
/// element of structs) that launches touch, allocated a page of 512 slots (`PAGE`) at a time
/// on the first access into it, and kept with the buffer from launch to launch. Each launch
/// is an epoch: a page whose epoch is an earlier launch's is cleared on the launch's first
/// access into it, so a launch that touches a few elements of a large buffer pays for the
/// pages it touches and one pointer per page, never for the buffer (a 2^24-element buffer has
/// 32,768 page pointers), and a loop of launches over the same elements allocates once.
/// Small pages keep scattered accesses cheap: a launch down one column of a row-major matrix
/// touches a page per row.
pub struct GlobalShadow {
    len: usize,
    pages: Box<[Page]>,
    /// The launch running now.
    epoch: AtomicU32,
}

fn loc_of(p: usize) -> Option<&'static Loc> {
    if p == 0 {
        None
    } else {
        // SAFETY: only addresses of `&'static Loc` are stored (see `loc_addr`).
        Some(unsafe { &*(p as *const Loc) })
    }
}

fn loc_addr(l: &'static Loc) -> usize {
    l as *const Loc as usize
}

impl GlobalShadow {
    /// Shadow for `len` elements (none allocated yet).
    pub fn new(len: usize) -> Self {
        GlobalShadow {
            len,
            pages: (0..len.div_ceil(PAGE)).map(|_| Page::default()).collect(),
            epoch: AtomicU32::new(1),
        }
    }

    /// Starts a new launch: the accesses of earlier ones are forgotten (each page as the
    /// launch first touches it). Called with the buffer borrowed mutably by the launch, so no
    /// other launch uses the shadow meanwhile.
    pub fn begin_launch(&self) {
        let next = self.epoch.load(Ordering::Relaxed).wrapping_add(1);
        if next == BUSY || next == 0 {
            // The epochs wrapped: no page may keep an epoch a later launch could reuse.
            for p in self.pages.iter() {
                p.epoch.store(0, Ordering::Relaxed);
                if let Some(slots) = p.slots.get() {
                    // SAFETY: the launch has the buffer borrowed mutably and has not started:
                    // no thread accesses the shadow.
                    unsafe { clear(slots) };
                }
            }
            self.epoch.store(1, Ordering::Release);
        } else {
            self.epoch.store(next, Ordering::Release);
        }
    }

    /// The shadow of slot `slot` for the running launch, its page allocated if this is the
    /// first access into it ever, cleared if it is the launch's first; `None` past the end.
    #[inline(always)]
    fn element(&self, slot: usize) -> Option<&Element> {
        let page = self.pages.get(slot / PAGE)?;
        let start = slot - slot % PAGE;
        let elements = page.slots.get_or_init(|| {
            let n = self.len.saturating_sub(start).min(PAGE);
            (0..n).map(|_| Element::default()).collect()
        });
        let epoch = self.epoch.load(Ordering::Relaxed);
        if page.epoch.load(Ordering::Acquire) != epoch {
            Self::refresh(page, elements, epoch);
        }
        elements.get(slot % PAGE)
    }

    /// Clears `page` for launch `epoch`, or waits while another thread does.
    #[cold]
    fn refresh(page: &Page, elements: &[Element], epoch: u32) {
        loop {
            let e = page.epoch.load(Ordering::Acquire);
            if e == epoch {
                return;
            }
            if e != BUSY
                && page
                    .epoch
                    .compare_exchange(e, BUSY, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                // SAFETY: no other thread touches the page while its epoch is `BUSY` (every
                // access first waits for the launch's epoch).
                unsafe { clear(elements) };
                page.epoch.store(epoch, Ordering::Release);
                return;
            }
            std::hint::spin_loop();
        }
    }

    /// How many slots have shadow state (whole pages touched so far).
    pub fn allocated(&self) -> usize {
        self.pages
            .iter()
            .filter_map(|p| p.slots.get())
            .map(|p| p.len())
            .sum()
    }

    /// Records a read of element `i`.
    #[inline(always)]
    pub fn read(
        &self,
        array: &'static str,
        i: usize,
        atomic: bool,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        self.read_slot(array, i, i, atomic, loc)
    }

    /// Records a read of shadow slot `slot`, which holds (a field of) element `i`.
    #[inline(always)]
    pub fn read_slot(
        &self,
        array: &'static str,
        slot: usize,
        i: usize,
        atomic: bool,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        let Some(e) = self.element(slot) else {
            return Ok(());
        };
        let me = current();
        let rec = pack(me, atomic);
        // Keep two readers of different threads: the newest, and the one it displaced.
        // The records are swapped (two blocks on two CPU threads must see each other); the
        // locations, only reported, are loaded and stored.
        let old = e.readers[0].who.swap(rec, Ordering::SeqCst);
        let old_loc = e.readers[0].loc.load(Ordering::Relaxed);
        e.readers[0].loc.store(loc_addr(loc), Ordering::Relaxed);
        if let Some(o) = unpack(old) {
            if o.block != me.block || o.thread != me.thread {
                e.readers[1].who.store(old, Ordering::SeqCst);
                e.readers[1].loc.store(old_loc, Ordering::Relaxed);
            }
        }
        if let Some(w) = unpack(e.writer.who.load(Ordering::SeqCst)) {
            if conflicts(w, me, atomic, true) {
                return Err(race(
                    array,
                    i,
                    RaceKind::ReadAfterWrite,
                    w,
                    loc_of(e.writer.loc.load(Ordering::Relaxed)),
                    loc,
                ));
            }
        }
        Ok(())
    }

    /// Records a write of element `i`.
    #[inline(always)]
    pub fn write(
        &self,
        array: &'static str,
        i: usize,
        atomic: bool,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        self.write_slot(array, i, i, atomic, loc)
    }

    /// Records a write of shadow slot `slot`, which holds (a field of) element `i`.
    #[inline(always)]
    pub fn write_slot(
        &self,
        array: &'static str,
        slot: usize,
        i: usize,
        atomic: bool,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        let Some(e) = self.element(slot) else {
            return Ok(());
        };
        let me = current();
        let old = e.writer.who.swap(pack(me, atomic), Ordering::SeqCst);
        let old_loc = e.writer.loc.load(Ordering::Relaxed);
        e.writer.loc.store(loc_addr(loc), Ordering::Relaxed);
        if let Some(w) = unpack(old) {
            if conflicts(w, me, atomic, true) {
                return Err(race(
                    array,
                    i,
                    RaceKind::WriteAfterWrite,
                    w,
                    loc_of(old_loc),
                    loc,
                ));
            }
        }
        for r in &e.readers {
            if let Some(who) = unpack(r.who.load(Ordering::SeqCst)) {
                if conflicts(who, me, atomic, true) {
                    return Err(race(
                        array,
                        i,
                        RaceKind::WriteAfterRead,
                        who,
                        loc_of(r.loc.load(Ordering::Relaxed)),
                        loc,
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static AT: Loc = Loc {
        file: "k.rs",
        line: 1,
        col: 1,
    };

    fn run_as(block: u32, thread: u32) {
        set_current(Current {
            block,
            thread,
            phase: 0,
        });
    }

    /// A launch that touches a few elements of a large buffer allocates shadow for the pages
    /// it touches only, and still finds a race on any of them (the last page is partial).
    #[test]
    fn global_shadow_grows_with_the_pages_touched() {
        let len = (1 << 24) + 5;
        let s = GlobalShadow::new(len);
        assert_eq!(s.allocated(), 0);
        run_as(0, 0);
        s.write("out", 3, false, &AT).unwrap();
        s.write("out", len - 1, false, &AT).unwrap();
        assert_eq!(s.allocated(), PAGE + 5);
        run_as(1, 0);
        s.read("out", 7, false, &AT).unwrap();
        let Err(Fault::Race { kind, index, .. }) = s.write("out", len - 1, false, &AT) else {
            panic!("a write-write race between two blocks was not found");
        };
        assert_eq!((kind, index), (RaceKind::WriteAfterWrite, len as u64 - 1));
        let Err(Fault::Race { kind, .. }) = s.read("out", 3, false, &AT) else {
            panic!("a read-after-write race between two blocks was not found");
        };
        assert_eq!(kind, RaceKind::ReadAfterWrite);
        // Past the end: no shadow, no page.
        s.write("out", len, false, &AT).unwrap();
        assert_eq!(s.allocated(), PAGE + 5);
        // The next launch forgets this one's accesses, and keeps the pages.
        s.begin_launch();
        run_as(0, 1);
        s.write("out", 3, false, &AT).unwrap();
        s.write("out", len - 1, false, &AT).unwrap();
        assert_eq!(s.allocated(), PAGE + 5);
        run_as(2, 0);
        assert!(
            s.read("out", 3, false, &AT).is_err(),
            "a race within the launch is found"
        );
    }

    /// Epochs that wrap around clear every page, so no old access looks current.
    #[test]
    fn wrapped_epochs_forget_every_access() {
        let s = GlobalShadow::new(10);
        run_as(0, 0);
        s.write("out", 1, false, &AT).unwrap();
        s.epoch.store(BUSY - 1, Ordering::Relaxed);
        s.pages[0].epoch.store(1, Ordering::Relaxed);
        s.begin_launch();
        assert_eq!(s.epoch.load(Ordering::Relaxed), 1);
        run_as(1, 0);
        s.write("out", 1, false, &AT).unwrap();
    }
}
