//! Phase-split execution: the scheduler state of one block whose kernel the simulator writer
//! split at its barriers.
//!
//! The compiler proved every barrier block-uniform, so the writer turns a kernel into
//! block-level code (the control flow that holds barriers, run once per block) with loops
//! over the block's threads between barriers (the code between two barriers, run for each
//! thread in turn). Takes a [`BlockCtx`]; gives [`Run`], which the generated loops ask for
//! the thread order of the phase, the thread being run (its [`ThreadCtx`]), whether a thread
//! has left the code being run (returned, or breaks out of a loop that holds a barrier), and
//! the checks at each barrier and at each condition that decides whether a barrier is
//! reached; and [`Agree`], the vote of the block's threads on such a condition.
//! Guarantees: the same faults, race reports and divergence reports as the one-future-a-thread
//! scheduler of `exec` (what a thread faults at is reported with that thread), and the same
//! thread orders (forward, reverse, a shuffle drawn anew in every phase).

use super::exec::{BlockCtx, ThreadCtx, ThreadOrder};
use super::race::{set_current, Current};
use super::{unlinear, Fault, Loc};
use crate::dim3::Dim3;
use crate::error::Error;
use std::cell::Cell;

/// A thread runs the code at hand.
const RUNNING: u32 = 0;
/// A thread has returned: it runs nothing more.
const RETURNED: u32 = 1;

/// The scheduler state of one block: its threads, the phase and each thread's exit.
pub struct Run<'b> {
    block: &'b BlockCtx,
    n: usize,
    /// The thread indices of a block that is not one-dimensional (empty when it is: thread
    /// `t` is `(t, 0, 0)`).
    idx: Box<[Dim3]>,
    /// Whether the race detector and the promise checks need to know who runs.
    tracks: bool,
    /// The permutation of the phase (empty in the forward order).
    order: Box<[Cell<u32>]>,
    /// Per thread: [`RUNNING`], [`RETURNED`], or the code of the loop exit it takes.
    exit: Box<[Cell<u32>]>,
    phase: Cell<u32>,
    returned: Cell<usize>,
    /// Threads with a pending loop exit, and the first one's location.
    pending: Cell<usize>,
    pending_loc: Cell<Option<&'static Loc>>,
    /// The thread being run (the one a fault belongs to).
    current: Cell<u32>,
}

impl<'b> Run<'b> {
    /// The state of `block` at its start: every thread running, phase 0. `exits`: whether
    /// threads may return or leave a block-level loop from a thread loop; `promises`: whether
    /// the kernel checks `assume_uniform` promises.
    pub fn new(block: &'b BlockCtx, exits: bool, promises: bool) -> Self {
        let n = block.block_dim.volume() as usize;
        let d = block.block_dim;
        let mut idx = Vec::new();
        if d.y != 1 || d.z != 1 {
            idx.reserve_exact(n);
            for z in 0..d.z {
                for y in 0..d.y {
                    for x in 0..d.x {
                        idx.push(Dim3::new(x, y, z));
                    }
                }
            }
        }
        let run = Run {
            block,
            n,
            idx: idx.into_boxed_slice(),
            tracks: block.options.race_detection || promises,
            order: Box::new([]),
            exit: if exits {
                (0..n).map(|_| Cell::new(RUNNING)).collect()
            } else {
                Box::new([])
            },
            phase: Cell::new(0),
            returned: Cell::new(0),
            pending: Cell::new(0),
            pending_loc: Cell::new(None),
            current: Cell::new(0),
        };
        match block.options.order {
            ThreadOrder::Forward => run,
            _ => Run {
                order: block
                    .order(n, 0)
                    .into_iter()
                    .map(|t| Cell::new(t as u32))
                    .collect(),
                ..run
            },
        }
    }

    /// The number of threads in the block.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the block has no threads (never: a launch has at least one).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The index of thread `t` in its block.
    #[inline(always)]
    fn thread_idx(&self, t: usize) -> Dim3 {
        match self.idx.get(t) {
            Some(d) => *d,
            None => Dim3::new(t as u32, 0, 0),
        }
    }

    /// The thread that runs `k`-th in this phase.
    #[inline(always)]
    pub fn thread_at(&self, k: usize) -> usize {
        match self.order.get(k) {
            Some(t) => t.get() as usize,
            None => k,
        }
    }

    /// Whether thread `t` skips the code at hand (it returned, or leaves a loop).
    #[inline(always)]
    pub fn exited(&self, t: usize) -> bool {
        self.exit.get(t).is_some_and(|e| e.get() != RUNNING)
    }

    /// Starts running thread `t`: faults and memory accesses from now on are its own.
    #[inline(always)]
    pub fn enter(&self, t: usize) -> ThreadCtx {
        self.current.set(t as u32);
        if self.tracks {
            set_current(Current {
                block: self.block.linear,
                thread: t as u32,
                phase: self.phase.get(),
            });
        }
        ThreadCtx {
            thread_idx: self.thread_idx(t),
            block_idx: self.block.block_idx,
            block_dim: self.block.block_dim,
            grid_dim: self.block.grid_dim,
        }
    }

    /// The first live thread of the phase's order, which evaluates what the compiler proved
    /// block-uniform for the whole block.
    #[inline(always)]
    pub fn first_live(&self) -> usize {
        (0..self.n)
            .map(|k| self.thread_at(k))
            .find(|&t| !self.exited(t))
            .unwrap_or(0)
    }

    /// Thread `t` returns.
    #[inline(always)]
    pub fn retire(&self, t: usize) {
        if let Some(e) = self.exit.get(t) {
            e.set(RETURNED);
        }
        self.returned.set(self.returned.get() + 1);
    }

    /// Whether every thread has returned (the block is over).
    #[inline(always)]
    pub fn all_returned(&self) -> bool {
        self.returned.get() == self.n
    }

    /// Thread `t` leaves the code at hand by loop exit `code` (2 or more), at `loc`.
    #[inline(always)]
    pub fn leave(&self, t: usize, code: u32, loc: &'static Loc) {
        if let Some(e) = self.exit.get(t) {
            e.set(code);
        }
        if self.pending.get() == 0 {
            self.pending_loc.set(Some(loc));
        }
        self.pending.set(self.pending.get() + 1);
    }

    /// After code that threads may leave by a loop exit: the exit every live thread takes
    /// (0 when none takes one). Threads that take different exits, or some an exit and others
    /// none, diverge: a loop that holds a barrier must be left by the whole block at once.
    pub fn resolve(&self) -> Result<u32, Fault> {
        if self.pending.get() == 0 {
            return Ok(0);
        }
        let mut first: Option<(u32, usize)> = None;
        let mut other: Option<(u32, usize)> = None;
        for (t, e) in self.exit.iter().enumerate() {
            let code = e.get();
            if code == RETURNED {
                continue;
            }
            match first {
                None => first = Some((code, t)),
                Some((c, _)) if c != code && other.is_none() => other = Some((code, t)),
                _ => {}
            }
        }
        let at = self
            .pending_loc
            .get()
            .map_or_else(String::new, |l| format!(" at {l}"));
        if let (Some((a, ta)), Some((b, tb))) = (first, other) {
            let says = |c: u32| if c == RUNNING { "stays in the loop" } else { "leaves it" };
            return Err(Fault::Divergence(format!(
                "threads of the block leave a loop that holds a barrier at different times{at}: thread {} {} and thread {} {}",
                unlinear(ta as u64, self.block.block_dim),
                says(a),
                unlinear(tb as u64, self.block.block_dim),
                says(b),
            )));
        }
        for e in self.exit.iter() {
            if e.get() != RETURNED {
                e.set(RUNNING);
            }
        }
        self.pending.set(0);
        self.pending_loc.set(None);
        Ok(first.map_or(0, |(c, _)| c))
    }

    /// `sync_block_threads()` at `loc`: every thread must arrive (none may have returned);
    /// the next phase begins.
    pub fn barrier(&self, loc: &'static Loc) -> Result<(), Fault> {
        let done = self.returned.get();
        if done > 0 {
            let n = self.n;
            let first = self
                .exit
                .iter()
                .position(|e| e.get() != RETURNED)
                .unwrap_or(0);
            return Err(Fault::Divergence(format!(
                "{} thread(s) wait at the barrier at {loc} (first: thread {}); {done} thread(s) have already finished and will never arrive",
                n - done,
                unlinear(first as u64, self.block.block_dim)
            )));
        }
        let phase = self.phase.get().wrapping_add(1);
        self.phase.set(phase);
        if !self.order.is_empty() {
            for (slot, t) in self
                .order
                .iter()
                .zip(self.block.order(self.n, phase))
            {
                slot.set(t as u32);
            }
        }
        Ok(())
    }

    /// The block's result: a fault becomes the error of the thread that was running.
    pub fn finish(&self, r: Result<(), Fault>) -> Result<(), Error> {
        r.map_err(|f| {
            let t = self.current.get() as usize;
            let b = self.block;
            f.into_error(
                b.kernel,
                b.block_idx,
                self.thread_idx(t),
                b.grid_dim,
                b.block_dim,
            )
        })
    }
}

/// The vote of a block's threads on a condition that decides whether a barrier is reached:
/// the compiler proved it block-uniform (or the kernel promised it), and the vote checks it.
#[derive(Default)]
pub struct Agree {
    first: Option<(bool, u32)>,
    other: Option<(bool, u32)>,
}

impl Agree {
    /// No votes yet.
    pub fn new() -> Self {
        Agree::default()
    }

    /// Thread `t` sees `v`.
    #[inline(always)]
    pub fn add(&mut self, t: usize, v: bool) {
        match self.first {
            None => self.first = Some((v, t as u32)),
            Some((f, _)) if f != v && self.other.is_none() => self.other = Some((v, t as u32)),
            _ => {}
        }
    }

    /// The condition's value, or the divergence if threads saw different values.
    pub fn value(&self, run: &Run<'_>, loc: &'static Loc) -> Result<bool, Fault> {
        match (self.first, self.other) {
            (Some((a, ta)), Some((b, tb))) => Err(Fault::Divergence(format!(
                "the condition at {loc}, which decides whether threads reach a barrier, differs between threads of the block: thread {} sees {a} and thread {} sees {b}",
                unlinear(u64::from(ta), run.block.block_dim),
                unlinear(u64::from(tb), run.block.block_dim),
            ))),
            (Some((v, _)), None) => Ok(v),
            (None, _) => Ok(false),
        }
    }
}
