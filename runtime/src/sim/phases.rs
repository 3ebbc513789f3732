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
    block: &'b BlockCtx<'b>,
    n: usize,
    /// The thread indices of a block that is not one-dimensional (empty when it is: thread
    /// `t` is `(t, 0, 0)`), the launch's.
    idx: &'b [Dim3],
    /// Whether the race detector and the promise checks need to know who runs.
    tracks: bool,
    /// Whether straight thread loops may run at all (the device's setting).
    straight: bool,
    /// The permutation of the phase (empty in the forward order).
    order: Box<[Cell<u32>]>,
    /// The warps in the order of the phase (by their first thread in `order`; empty in the
    /// forward order).
    warp_seq: Box<[Cell<u32>]>,
    /// Per warp `w`, at `32 * w + k`: the lane that runs `k`-th (in `order`'s order; empty in
    /// the forward order).
    lane_seq: Box<[Cell<u32>]>,
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
    pub fn new(block: &'b BlockCtx<'b>, exits: bool, promises: bool) -> Self {
        let n = block.block_dim.volume() as usize;
        let run = Run {
            block,
            n,
            idx: block.thread_indices,
            tracks: block.options.race_detection || promises,
            straight: block.straight,
            order: Box::new([]),
            warp_seq: Box::new([]),
            lane_seq: Box::new([]),
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
            _ => {
                let warps = n.div_ceil(32);
                let run = Run {
                    order: (0..n).map(|_| Cell::new(0)).collect(),
                    warp_seq: (0..warps).map(|_| Cell::new(0)).collect(),
                    lane_seq: (0..n).map(|_| Cell::new(0)).collect(),
                    ..run
                };
                run.reorder(0);
                run
            }
        }
    }

    /// Draws the thread order of `phase` (not the forward order).
    fn reorder(&self, phase: u32) {
        let perm = self.block.order(self.n, phase);
        let mut seen = vec![false; self.warp_seq.len()];
        let mut next_warp = 0;
        let mut fill = vec![0usize; self.warp_seq.len()];
        for (slot, &t) in self.order.iter().zip(&perm) {
            slot.set(t as u32);
            let w = t / 32;
            if !seen[w] {
                seen[w] = true;
                self.warp_seq[next_warp].set(w as u32);
                next_warp += 1;
            }
            self.lane_seq[32 * w + fill[w]].set(t as u32);
            fill[w] += 1;
        }
    }

    /// The number of warps in the block (the last may be partial).
    #[inline(always)]
    pub fn warps(&self) -> usize {
        self.n.div_ceil(32)
    }

    /// The warp that runs `k`-th in this phase.
    #[inline(always)]
    pub fn warp_at(&self, k: usize) -> usize {
        match self.warp_seq.get(k) {
            Some(w) => w.get() as usize,
            None => k,
        }
    }

    /// The number of lanes of warp `w`.
    #[inline(always)]
    pub fn lanes(&self, w: usize) -> usize {
        (self.n - 32 * w).min(32)
    }

    /// The thread of warp `w` that runs `k`-th in this phase.
    #[inline(always)]
    pub fn lane_at(&self, w: usize, k: usize) -> usize {
        self.phase().lane_at(w, k)
    }

    /// Whether every lane of warp `w` has returned.
    pub fn warp_done(&self, w: usize) -> bool {
        (32 * w..32 * w + self.lanes(w)).all(|t| self.exited(t))
    }

    /// The first live lane of warp `w` in the phase's order, which evaluates what the
    /// compiler proved warp-uniform for the whole warp.
    pub fn first_live_lane(&self, w: usize) -> usize {
        (0..self.lanes(w))
            .map(|k| self.lane_at(w, k))
            .find(|&t| !self.exited(t))
            .unwrap_or(32 * w)
    }

    /// Before a warp operation at `loc`: every lane of warp `w` must be there.
    pub fn check_warp(&self, w: usize, loc: &'static Loc) -> Result<(), Fault> {
        if self.exit.is_empty() {
            // No thread of this kernel can return or leave a loop early.
            return Ok(());
        }
        let lanes = 32 * w..32 * w + self.lanes(w);
        let gone = lanes.clone().filter(|&t| self.exited(t)).count();
        if gone == 0 {
            return Ok(());
        }
        Err(Fault::Divergence(format!(
            "the warp of thread {} does not meet at one warp operation: {} lane(s) wait at {loc}; {gone} lane(s) have finished",
            unlinear(32 * w as u64, self.block.block_dim),
            lanes.len() - gone,
        )))
    }

    /// After code that lanes of warp `w` may leave by a loop exit to a loop of the warp: the
    /// exit every live lane takes (0 when none takes one).
    pub fn resolve_warp(&self, w: usize) -> Result<u32, Fault> {
        self.resolve_in(32 * w..32 * w + self.lanes(w))
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
        self.phase().thread_at(k)
    }

    /// Whether thread `t` skips the code at hand (it returned, or leaves a loop).
    #[inline(always)]
    pub fn exited(&self, t: usize) -> bool {
        self.phase().exited(t)
    }

    /// The loop-invariant view of this phase that a thread loop reads (a copy: rustc keeps it
    /// in registers across the loop, where the scheduler's own cells would be reloaded after
    /// every store).
    #[inline(always)]
    pub fn phase(&self) -> Phase<'_> {
        Phase {
            order: &self.order,
            lane_seq: &self.lane_seq,
            idx: self.idx,
            exit: &self.exit,
            current: &self.current,
            tracks: self.tracks,
            straight: self.straight,
            block: self.block.linear,
            phase: self.phase.get(),
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
        self.resolve_in(0..self.n)
    }

    fn resolve_in(&self, threads: std::ops::Range<usize>) -> Result<u32, Fault> {
        if self.pending.get() == 0 {
            return Ok(0);
        }
        let mut first: Option<(u32, usize)> = None;
        let mut other: Option<(u32, usize)> = None;
        let mut taken = 0;
        for t in threads.clone() {
            let code = self.exit.get(t).map_or(RUNNING, Cell::get);
            if code > RETURNED {
                taken += 1;
            }
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
            let says = |c: u32| match c {
                RUNNING => "goes on",
                c if c % 2 == 0 => "breaks out of it",
                _ => "continues it",
            };
            return Err(Fault::Divergence(format!(
                "threads of the block leave a loop that holds a barrier at different times{at}: thread {} {} and thread {} {}",
                unlinear(ta as u64, self.block.block_dim),
                says(a),
                unlinear(tb as u64, self.block.block_dim),
                says(b),
            )));
        }
        for t in threads {
            if let Some(e) = self.exit.get(t) {
                if e.get() != RETURNED {
                    e.set(RUNNING);
                }
            }
        }
        let left = self.pending.get() - taken;
        self.pending.set(left);
        if left == 0 {
            self.pending_loc.set(None);
        }
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
            self.reorder(phase);
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

/// What a thread loop reads of its block's scheduler during one phase: the phase's order, the
/// threads' exits and indices (see [`Run::phase`]).
#[derive(Clone, Copy)]
pub struct Phase<'r> {
    order: &'r [Cell<u32>],
    lane_seq: &'r [Cell<u32>],
    idx: &'r [Dim3],
    exit: &'r [Cell<u32>],
    current: &'r Cell<u32>,
    tracks: bool,
    straight: bool,
    block: u32,
    phase: u32,
    block_idx: Dim3,
    block_dim: Dim3,
    grid_dim: Dim3,
}

impl Phase<'_> {
    /// The thread that runs `k`-th in this phase.
    #[inline(always)]
    pub fn thread_at(&self, k: usize) -> usize {
        match self.order.get(k) {
            Some(t) => t.get() as usize,
            None => k,
        }
    }

    /// The positions in this phase's order of the threads whose x index may lie in
    /// `lo..hi`: exactly those where the threads run in order along x (the forward order of
    /// a one-dimensional block), all of them otherwise.
    #[inline(always)]
    pub fn x_range(&self, lo: u64, hi: u64) -> core::ops::Range<usize> {
        let n = self.block_dim.volume();
        if self.order.is_empty() && self.idx.is_empty() {
            (lo.min(n) as usize)..(hi.max(lo).min(n) as usize)
        } else {
            0..n as usize
        }
    }

    /// Whether the straight thread loops may run this phase (the writer's `straight`): the
    /// device allows them (`CUPHASE_SIM_STRAIGHT` is not `off`) and the threads run in the
    /// forward order, so a loop over them by rows in order runs each where the checked loop
    /// would.
    #[inline(always)]
    pub fn straight(&self) -> bool {
        self.straight && self.order.is_empty()
    }

    /// What a straight loop runs: in each row (`y`, `z`) of the block, the `x` in `lo..hi`
    /// (clamped to the block); and the block's `y` and `z` extents.
    #[inline(always)]
    pub fn rows(&self, lo: u64, hi: u64) -> (core::ops::Range<u32>, u32, u32) {
        let d = self.block_dim;
        let x = u64::from(d.x);
        let (lo, hi) = (lo.min(x), hi.max(lo).min(x));
        // Both are at most `d.x`, a `u32`.
        (lo as u32..hi as u32, d.y, d.z)
    }

    /// The linear index (in its block) of thread `(x, y, z)`.
    #[inline(always)]
    pub fn linear(&self, x: u32, y: u32, z: u32) -> usize {
        let d = self.block_dim;
        (z as usize * d.y as usize + y as usize) * d.x as usize + x as usize
    }

    /// The context of thread `(x, y, z)` for a straight loop, which does not make it the
    /// running thread (nothing it does there can fault but the watchdog: [`Phase::blame`]).
    #[inline(always)]
    pub fn at(&self, x: u32, y: u32, z: u32) -> ThreadCtx {
        ThreadCtx {
            thread_idx: Dim3::new(x, y, z),
            block_idx: self.block_idx,
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
        }
    }

    /// The context of thread `t` (a linear id) for code that cannot fault or touch memory,
    /// which does not make it the running thread.
    #[inline(always)]
    pub fn ctx(&self, t: usize) -> ThreadCtx {
        ThreadCtx {
            thread_idx: match self.idx.get(t) {
                Some(d) => *d,
                None => Dim3::new(t as u32, 0, 0),
            },
            block_idx: self.block_idx,
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
        }
    }

    /// `f`, a fault of thread `t` in a straight loop: the fault is `t`'s.
    #[cold]
    pub fn blame(&self, t: usize, f: Fault) -> Fault {
        self.current.set(t as u32);
        f
    }

    /// The thread of warp `w` that runs `k`-th in this phase.
    #[inline(always)]
    pub fn lane_at(&self, w: usize, k: usize) -> usize {
        match self.lane_seq.get(32 * w + k) {
            Some(t) => t.get() as usize,
            None => 32 * w + k,
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
                block: self.block,
                thread: t as u32,
                phase: self.phase,
            });
        }
        self.ctx(t)
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

#[cfg(test)]
mod tests {
    use super::*;

    static NO_PRINT: crate::sim::Printer = crate::sim::Printer::new(false);
    use crate::sim::SimOptions;

    static AT: Loc = Loc {
        file: "k.rs",
        line: 9,
        col: 5,
    };

    fn block(threads: u32, order: ThreadOrder) -> BlockCtx<'static> {
        BlockCtx {
            kernel: "k",
            linear: 0,
            block_idx: Dim3::new(0, 0, 0),
            block_dim: Dim3::new(threads, 1, 1),
            grid_dim: Dim3::new(1, 1, 1),
            options: SimOptions {
                order,
                ..SimOptions::default()
            },
            straight: true,
            shared_races: false,
            dynamic_shared_bytes: 0,
            printer: &NO_PRINT,
            thread_indices: &[],
        }
    }

    /// The straight loops' gate: the forward order of a device that allows them.
    #[test]
    fn straight_loops_run_only_in_the_forward_order_where_allowed() {
        let forward = block(8, ThreadOrder::Forward);
        assert!(Run::new(&forward, false, false).phase().straight());
        let reverse = block(8, ThreadOrder::Reverse);
        assert!(!Run::new(&reverse, false, false).phase().straight());
        let shuffled = block(8, ThreadOrder::Shuffle(3));
        assert!(!Run::new(&shuffled, false, false).phase().straight());
        let off = BlockCtx {
            straight: false,
            ..block(8, ThreadOrder::Forward)
        };
        assert!(!Run::new(&off, false, false).phase().straight());
    }

    /// A straight loop's rows visit each thread where the checked loop's linear order has it,
    /// and its `x` range is the guard's, clamped to the block.
    #[test]
    fn straight_rows_and_linear_indices_are_the_launchs() {
        let dim = Dim3::new(4, 3, 2);
        let ctx = BlockCtx {
            block_dim: dim,
            ..block(1, ThreadOrder::Forward)
        };
        let run = Run::new(&ctx, false, false);
        let p = run.phase();
        let (xs, dy, dz) = p.rows(0, u64::MAX);
        assert_eq!((xs.clone(), dy, dz), (0..4, 3, 2));
        let mut seen = Vec::new();
        for z in 0..dz {
            for y in 0..dy {
                for x in xs.clone() {
                    let t = p.linear(x, y, z);
                    assert_eq!(unlinear(t as u64, dim), Dim3::new(x, y, z));
                    assert_eq!(p.at(x, y, z).thread_idx, Dim3::new(x, y, z));
                    seen.push(t);
                }
            }
        }
        assert_eq!(seen, (0..24).collect::<Vec<_>>());
        assert_eq!(p.rows(1, 3).0, 1..3);
        assert_eq!(p.rows(3, 9).0, 3..4);
        assert_eq!(p.rows(6, 2).0, 4..4);
    }

    fn detail(f: Fault) -> String {
        match f {
            Fault::Divergence(d) => d,
            other => panic!("expected divergence, got {other:?}"),
        }
    }

    #[test]
    fn every_order_is_a_permutation_of_threads_and_of_each_warps_lanes() {
        for order in [
            ThreadOrder::Forward,
            ThreadOrder::Reverse,
            ThreadOrder::Shuffle(3),
        ] {
            let b = block(80, order);
            let run = Run::new(&b, false, false);
            let mut seen: Vec<usize> = (0..80).map(|k| run.thread_at(k)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..80).collect::<Vec<_>>(), "{order:?}");
            let mut warps: Vec<usize> = (0..run.warps()).map(|k| run.warp_at(k)).collect();
            warps.sort_unstable();
            assert_eq!(warps, vec![0, 1, 2], "{order:?}");
            for w in 0..3 {
                let mut lanes: Vec<usize> = (0..run.lanes(w)).map(|k| run.lane_at(w, k)).collect();
                lanes.sort_unstable();
                let first = 32 * w;
                assert_eq!(lanes, (first..(first + 32).min(80)).collect::<Vec<_>>());
            }
        }
        let b = block(64, ThreadOrder::Reverse);
        let run = Run::new(&b, false, false);
        assert_eq!(
            (run.thread_at(0), run.warp_at(0), run.lane_at(1, 0)),
            (63, 1, 63)
        );
    }

    #[test]
    fn a_barrier_after_some_threads_returned_is_divergence() {
        let b = block(8, ThreadOrder::Forward);
        let run = Run::new(&b, true, false);
        run.retire(2);
        run.retire(5);
        let d = detail(run.barrier(&AT).unwrap_err());
        assert_eq!(
            d,
            "6 thread(s) wait at the barrier at k.rs:9:5 (first: thread (0, 0, 0)); 2 thread(s) have already finished and will never arrive"
        );
        assert!(!run.all_returned() && run.exited(2) && !run.exited(3));
        assert_eq!(run.first_live(), 0);
    }

    #[test]
    fn loop_exits_resolve_when_every_live_thread_takes_the_same() {
        let b = block(4, ThreadOrder::Forward);
        let run = Run::new(&b, true, false);
        run.retire(0);
        for t in 1..4 {
            run.leave(t, 6, &AT);
        }
        assert_eq!(run.resolve().unwrap(), 6);
        assert!(!run.exited(1) && run.exited(0));
        assert_eq!(run.resolve().unwrap(), 0, "nothing pending");
        run.leave(1, 6, &AT);
        run.leave(2, 7, &AT);
        let d = detail(run.resolve().unwrap_err());
        assert_eq!(
            d,
            "threads of the block leave a loop that holds a barrier at different times at k.rs:9:5: thread (1, 0, 0) breaks out of it and thread (2, 0, 0) continues it"
        );
    }

    #[test]
    fn a_warp_operation_needs_every_lane_and_votes_need_agreement() {
        let b = block(40, ThreadOrder::Forward);
        let run = Run::new(&b, true, false);
        assert!(run.check_warp(0, &AT).is_ok());
        run.retire(35);
        let d = detail(run.check_warp(1, &AT).unwrap_err());
        assert_eq!(
            d,
            "the warp of thread (32, 0, 0) does not meet at one warp operation: 7 lane(s) wait at k.rs:9:5; 1 lane(s) have finished"
        );
        assert_eq!(run.first_live_lane(1), 32);
        let mut agree = Agree::new();
        agree.add(0, true);
        agree.add(1, true);
        assert!(agree.value(&run, &AT).unwrap());
        agree.add(4, false);
        let d = detail(agree.value(&run, &AT).unwrap_err());
        assert!(
            d.contains("thread (0, 0, 0) sees true and thread (4, 0, 0) sees false"),
            "{d}"
        );
    }
}
