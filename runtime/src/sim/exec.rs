//! Running blocks and threads: the simulator's device, its grid loop and each block's
//! scheduler.
//!
//! Takes a launch ([`KernelInfo`], [`Launch`]) and the generated code's per-block and
//! per-thread functions (each GPU thread an `async` block whose await points are barriers and
//! warp operations). Gives [`SimBackend`] with its [`SimOptions`] and [`ThreadOrder`],
//! [`BlockCtx`], [`ThreadCtx`] and the futures of a barrier and of a warp operation.
//! Guarantees: blocks run in parallel but the error reported is the lowest-numbered failing
//! block's, so results are deterministic for a given thread order; threads of a block that do
//! not all meet at one barrier are [`Error::BarrierDivergence`]; a warp operation sees every
//! lane's value at the same point, as on the GPU.

use super::race::{set_current, Current};
use super::{Distribution, Fault, Loc, Printer, Shared};
use crate::dim3::Dim3;
use crate::error::Error;
use crate::kernel::KernelInfo;
use crate::launch::Launch;
use crate::scalar::Scalar;
use cuphase_contract::WarpOp;
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

thread_local! {
    /// The barrier the thread being polled stopped at; set by [`Barrier::poll`], read by the
    /// block's scheduler right after the poll returns.
    static ARRIVED: Cell<Option<&'static Loc>> = const { Cell::new(None) };
    /// What a thread that stopped at a warp operation brings to it.
    static WARP_IN: Cell<Option<(WarpOp, u64, u32)>> = const { Cell::new(None) };
    /// What the warp operation gives the thread being polled.
    static WARP_OUT: Cell<u64> = const { Cell::new(0) };
}

/// The order in which the threads of a block run between two barriers. Kernels must not
/// depend on it; running them in another order exposes ones that do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThreadOrder {
    /// Thread 0 first (the default: deterministic).
    #[default]
    Forward,
    /// The last thread first.
    Reverse,
    /// A permutation drawn from this seed, new in every phase (deterministic per seed).
    Shuffle(u64),
}

/// How the simulator runs kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// Race detection on shared and global memory (on by default).
    pub race_detection: bool,
    /// The order of threads within a phase.
    pub order: ThreadOrder,
    /// Skip shared-memory race detection for kernels whose shared accesses the compiler proved
    /// race-free (on by default; `CUPHASE_SIM_RACES=all` turns it off).
    pub trust_compiler: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            race_detection: true,
            order: ThreadOrder::Forward,
            trust_compiler: true,
        }
    }
}

impl SimOptions {
    /// Options from `CUPHASE_SIM_RACES=off` and `CUPHASE_SIM_ORDER=forward|reverse|shuffle:SEED`;
    /// anything else keeps the default.
    pub fn from_env() -> Self {
        let mut o = SimOptions::default();
        match std::env::var("CUPHASE_SIM_RACES").as_deref() {
            Ok("off" | "0") => o.race_detection = false,
            Ok("all") => o.trust_compiler = false,
            _ => {}
        }
        if let Ok(v) = std::env::var("CUPHASE_SIM_ORDER") {
            o.order = match v.as_str() {
                "reverse" => ThreadOrder::Reverse,
                s => match s.strip_prefix("shuffle:").and_then(|n| n.parse().ok()) {
                    Some(seed) => ThreadOrder::Shuffle(seed),
                    None => ThreadOrder::Forward,
                },
            };
        }
        o
    }
}

/// The CPU simulator as a device.
#[derive(Debug, Default)]
pub struct SimBackend {
    options: SimOptions,
    /// The watchdog's limit.
    watchdog: crate::watchdog::Limit,
    /// The device's number among simulated devices made together (`Device::cpus`), if it was.
    ordinal: Option<usize>,
    /// Whether thread loops may run straight (`CUPHASE_SIM_STRAIGHT=off` says no: every
    /// thread loop then runs checked, for comparing the two).
    straight: bool,
}

impl SimBackend {
    /// A simulator with default options and those of the environment.
    pub fn new() -> Self {
        Self::with_options(SimOptions::from_env())
    }

    /// A simulator with these options.
    pub fn with_options(options: SimOptions) -> Self {
        let off = matches!(
            std::env::var("CUPHASE_SIM_STRAIGHT").as_deref(),
            Ok("off" | "0")
        );
        SimBackend {
            options,
            watchdog: Default::default(),
            ordinal: None,
            straight: !off,
        }
    }

    /// Simulated device number `ordinal` of several (`Device::cpus`).
    pub fn numbered(ordinal: usize) -> Self {
        SimBackend {
            ordinal: Some(ordinal),
            ..Self::new()
        }
    }

    /// The device's number among simulated devices made together, if it was.
    pub fn ordinal(&self) -> Option<usize> {
        self.ordinal
    }

    /// Sets the limit of a launch's run time (`None`: no limit).
    pub fn set_watchdog(&self, limit: Option<std::time::Duration>) {
        self.watchdog.set(limit);
    }

    /// The options.
    pub fn options(&self) -> SimOptions {
        self.options
    }

    /// Runs every block of a launch; `block` runs one block. Blocks run in parallel; the error
    /// of the lowest-numbered failing block is returned, so results are deterministic.
    pub fn run(
        &self,
        info: &'static KernelInfo,
        launch: &Launch,
        block: &(dyn Fn(&BlockCtx) -> Result<(), Error> + Sync),
    ) -> Result<(), Error> {
        launch.validate_for(info)?;
        crate::kernel::dump(info);
        tracing::trace!(kernel = info.name, grid = %launch.grid, block = %launch.block, "cuphase: simulator launch");
        let grid = launch.grid;
        let total = grid.volume();
        let printer = Printer::new(launch.prints_ids());
        let watch = self.watchdog.get().map(super::Watch::arm);
        let b = launch.block;
        let thread_indices: Vec<Dim3> = if b.y == 1 && b.z == 1 {
            Vec::new()
        } else {
            (0..b.volume()).map(|t| unlinearize(t, b)).collect()
        };
        let first_error = super::grid::run_blocks(total, &|linear| {
            if let Some(fault) = watch.as_ref().and_then(|w| w.fired()) {
                // Past the deadline, the blocks not yet started do not start.
                let z = Dim3::new(0, 0, 0);
                return Some(Box::new(fault.into_error(
                    info.name,
                    z,
                    z,
                    grid,
                    launch.block,
                )));
            }
            let x = (linear % u64::from(grid.x)) as u32;
            let y = ((linear / u64::from(grid.x)) % u64::from(grid.y)) as u32;
            let z = (linear / (u64::from(grid.x) * u64::from(grid.y))) as u32;
            let ctx = BlockCtx {
                kernel: info.name,
                linear: linear as u32,
                block_idx: Dim3::new(x, y, z),
                block_dim: launch.block,
                grid_dim: grid,
                options: self.options,
                straight: self.straight,
                shared_races: self.options.race_detection
                    && !(self.options.trust_compiler && info.shared_proven),
                dynamic_shared_bytes: launch.shared_bytes,
                printer: &printer,
                thread_indices: &thread_indices,
            };
            // Boxed: every block's `Option` passes through rayon's reduction, and an
            // unboxed `Error` made each of them a copy of the whole error's size (a sixth of
            // a small kernel's launch).
            super::Watch::during(watch.as_ref(), || block(&ctx))
                .err()
                .map(Box::new)
        });
        printer.finish();
        match first_error {
            Some((_, e)) => Err(*e),
            None => Ok(()),
        }
    }
}

/// One block being simulated.
#[derive(Clone, Copy, Debug)]
pub struct BlockCtx<'p> {
    pub(super) kernel: &'static str,
    pub(super) linear: u32,
    pub(super) block_idx: Dim3,
    pub(super) block_dim: Dim3,
    pub(super) grid_dim: Dim3,
    pub(super) options: SimOptions,
    /// Whether thread loops may run straight (the writer's `straight`).
    pub(super) straight: bool,
    pub(super) shared_races: bool,
    pub(super) dynamic_shared_bytes: u32,
    /// The launch's `print!` output.
    pub(super) printer: &'p Printer,
    /// The thread indices of a block that is not one-dimensional, in linear order (empty when
    /// it is: thread `t` is `(t, 0, 0)`), made once for the launch.
    pub(super) thread_indices: &'p [Dim3],
}

/// The indices of one GPU thread.
#[derive(Clone, Copy, Debug)]
pub struct ThreadCtx {
    /// `threadIdx`.
    pub thread_idx: Dim3,
    /// `blockIdx`.
    pub block_idx: Dim3,
    /// `blockDim`.
    pub block_dim: Dim3,
    /// `gridDim`.
    pub grid_dim: Dim3,
}

impl ThreadCtx {
    /// `block_idx * block_dim + thread_idx` per axis, in wrapping `u32` as the GPU computes it.
    #[inline(always)]
    pub fn global_idx(&self) -> Dim3 {
        let f = |b: u32, d: u32, t: u32| b.wrapping_mul(d).wrapping_add(t);
        Dim3 {
            x: f(self.block_idx.x, self.block_dim.x, self.thread_idx.x),
            y: f(self.block_idx.y, self.block_dim.y, self.thread_idx.y),
            z: f(self.block_idx.z, self.block_dim.z, self.thread_idx.z),
        }
    }

    /// The thread's linear index in its block (x fastest).
    #[inline(always)]
    pub fn linear(&self) -> u32 {
        (self.thread_idx.z * self.block_dim.y + self.thread_idx.y) * self.block_dim.x
            + self.thread_idx.x
    }

    /// The thread's index in its warp of 32 consecutive linear thread ids.
    #[inline(always)]
    pub fn lane_id(&self) -> u32 {
        let linear = (self.thread_idx.z * self.block_dim.y + self.thread_idx.y) * self.block_dim.x
            + self.thread_idx.x;
        linear % 32
    }

    /// This thread's first index and stride for a loop distribution.
    #[inline(always)]
    pub fn distribution(&self, d: Distribution) -> (u64, u64) {
        match d {
            Distribution::Sequential => (0, 1),
            Distribution::ThreadsInBlock => {
                (u64::from(self.thread_idx.x), u64::from(self.block_dim.x))
            }
            Distribution::BlocksInGrid => (u64::from(self.block_idx.x), u64::from(self.grid_dim.x)),
            Distribution::ThreadsInGrid => (
                u64::from(self.block_idx.x) * u64::from(self.block_dim.x)
                    + u64::from(self.thread_idx.x),
                u64::from(self.grid_dim.x) * u64::from(self.block_dim.x),
            ),
        }
    }

    /// `sync_block_threads()` at `loc`: await it.
    #[inline(always)]
    pub fn barrier(&self, loc: &'static Loc) -> Barrier {
        Barrier {
            loc,
            arrived: false,
        }
    }
}

impl ThreadCtx {
    /// A warp operation at `loc` on `bits` (a value's lane bits, or a predicate as 0/1) with
    /// `arg` (lane, mask or distance): await it for the result's bits. The whole block meets
    /// at it, like at a barrier, but it does not end a phase: it orders no memory access.
    #[inline(always)]
    pub fn warp(&self, kind: WarpOp, bits: u64, arg: u32, loc: &'static Loc) -> WarpFuture {
        WarpFuture {
            loc,
            input: (kind, bits, arg),
            arrived: false,
        }
    }
}

/// The future of one warp operation.
pub struct WarpFuture {
    loc: &'static Loc,
    input: (WarpOp, u64, u32),
    arrived: bool,
}

impl Future for WarpFuture {
    type Output = u64;
    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u64> {
        if self.arrived {
            Poll::Ready(WARP_OUT.with(Cell::get))
        } else {
            self.arrived = true;
            ARRIVED.with(|a| a.set(Some(self.loc)));
            WARP_IN.with(|w| w.set(Some(self.input)));
            Poll::Pending
        }
    }
}

/// The results of one warp operation that every thread of a block of `inputs.len()` threads
/// reached: lanes are consecutive linear thread ids, 32 per warp, fewer in a partial last warp.
fn warp_results(inputs: &[(WarpOp, u64, u32)]) -> Vec<u64> {
    let mut out = Vec::with_capacity(inputs.len());
    for warp in inputs.chunks(32) {
        let lanes: Vec<(u64, u32)> = warp.iter().map(|&(_, v, a)| (v, a)).collect();
        out.extend_from_slice(&exchange(warp[0].0, &lanes)[..warp.len()]);
    }
    out
}

/// The results of warp operation `kind` for each lane of one warp, given each lane's value
/// bits and argument (lane, mask or distance): a lane that does not exist (past a partial
/// warp's end) is never read, the reading thread keeps its own value.
#[inline]
pub fn exchange(kind: WarpOp, lanes: &[(u64, u32)]) -> [u64; 32] {
    let lanes = &lanes[..lanes.len().min(32)];
    let n = lanes.len();
    let mut out = [0u64; 32];
    // Lane `lane` reads lane `src(lane, arg)`'s value, or keeps its own where there is no
    // such lane. Generic, so that each kind's loop is compiled (and inlined) on its own.
    fn each(
        out: &mut [u64; 32],
        lanes: &[(u64, u32)],
        src: impl Fn(usize, usize) -> Option<usize>,
    ) {
        for (lane, (slot, &(own, arg))) in out.iter_mut().zip(lanes).enumerate() {
            *slot = match src(lane, arg as usize) {
                Some(s) if s < lanes.len() => lanes[s].0,
                _ => own,
            };
        }
    }
    // The whole warp's answer, the same in every lane.
    let all = |out: &mut [u64; 32], v: u64| out[..n].fill(v);
    match kind {
        WarpOp::Sync => {}
        WarpOp::Shuffle => each(&mut out, lanes, |_, arg| Some(arg % 32)),
        WarpOp::ShuffleXor => each(&mut out, lanes, |lane, arg| Some(lane ^ (arg % 32))),
        WarpOp::ShuffleUp => each(&mut out, lanes, |lane, arg| {
            (arg < 32 && lane >= arg).then(|| lane - arg)
        }),
        WarpOp::ShuffleDown => each(&mut out, lanes, |lane, arg| (arg < 32).then(|| lane + arg)),
        WarpOp::Ballot => all(
            &mut out,
            lanes
                .iter()
                .enumerate()
                .filter(|(_, i)| i.0 != 0)
                .fold(0u64, |m, (l, _)| m | (1u64 << l)),
        ),
        WarpOp::All => all(&mut out, u64::from(lanes.iter().all(|i| i.0 != 0))),
        WarpOp::Any => all(&mut out, u64::from(lanes.iter().any(|i| i.0 != 0))),
    }
    out
}

/// The future of one barrier: pending once (the scheduler then knows where the thread waits),
/// ready when polled again (the scheduler polls again only when the whole block has arrived).
pub struct Barrier {
    loc: &'static Loc,
    arrived: bool,
}

impl Future for Barrier {
    type Output = ();
    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.arrived {
            Poll::Ready(())
        } else {
            self.arrived = true;
            ARRIVED.with(|a| a.set(Some(self.loc)));
            Poll::Pending
        }
    }
}

#[derive(Clone, Copy)]
enum State {
    Running,
    Waiting(&'static Loc),
    Done,
}

fn unlinearize(t: u64, d: Dim3) -> Dim3 {
    let x = (t % u64::from(d.x)) as u32;
    let y = ((t / u64::from(d.x)) % u64::from(d.y)) as u32;
    let z = (t / (u64::from(d.x) * u64::from(d.y))) as u32;
    Dim3::new(x, y, z)
}

/// A small deterministic generator for shuffled thread orders (splitmix64).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl BlockCtx<'_> {
    /// Writes the text of one `print!`/`println!` call of this launch, by `thread`.
    pub fn print(&self, thread: Dim3, text: &str) {
        self.printer.write(self.block_idx, thread, text);
    }

    /// A shared array of this block (with race detection when it is on).
    pub fn shared<T: Scalar>(&self, dims: &[usize], name: &'static str) -> Shared<T> {
        Shared::new(dims, name, self.shared_races)
    }

    /// The length of the dynamic shared array of `T`: the launch's `shared_bytes` over the
    /// element size, as on the GPU.
    pub fn dynamic_len<T: Scalar>(&self) -> usize {
        self.dynamic_shared_bytes as usize / std::mem::size_of::<T>()
    }

    pub(super) fn order(&self, n: usize, phase: u32) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        match self.options.order {
            ThreadOrder::Forward => {}
            ThreadOrder::Reverse => v.reverse(),
            ThreadOrder::Shuffle(seed) => {
                let mut st = seed ^ (u64::from(self.linear) << 32) ^ u64::from(phase);
                for i in (1..n).rev() {
                    let j = (splitmix(&mut st) % (i as u64 + 1)) as usize;
                    v.swap(i, j);
                }
            }
        }
        v
    }

    /// Runs the threads of this block, phase by phase. `make` creates the future of one
    /// thread.
    pub fn run<F, M>(&self, mut make: M) -> Result<(), Error>
    where
        F: Future<Output = Result<(), Fault>>,
        M: FnMut(ThreadCtx) -> F,
    {
        let n = self.block_dim.volume();
        let ctx = |t: u64| ThreadCtx {
            thread_idx: unlinearize(t, self.block_dim),
            block_idx: self.block_idx,
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
        };
        // The futures are pinned in this boxed slice: it is never resized or moved out of.
        let mut threads: Box<[F]> = (0..n).map(|t| make(ctx(t))).collect();
        let mut state = vec![State::Running; threads.len()];
        let mut cx = Context::from_waker(Waker::noop());
        let mut phase = 0u32;
        let forward = self.options.order == ThreadOrder::Forward;
        let mut warp_in: Vec<Option<(WarpOp, u64, u32)>> = vec![None; threads.len()];
        let mut warp_out: Vec<Option<u64>> = vec![None; threads.len()];
        loop {
            let order = if forward {
                Vec::new()
            } else {
                self.order(threads.len(), phase)
            };
            // Run every running thread to its next barrier, warp operation or end; a thread that
            // waits stays put until what it waits at lets it go.
            // Indexing by position: the forward order (the default) allocates no permutation.
            #[allow(clippy::needless_range_loop)]
            for k in 0..threads.len() {
                let t = if forward { k } else { order[k] };
                if !matches!(state[t], State::Running) {
                    continue;
                }
                let fut = &mut threads[t];
                set_current(Current {
                    block: self.linear,
                    thread: t as u32,
                    phase,
                });
                // SAFETY: `threads` is a boxed slice that outlives this loop and is never moved,
                // so each future stays at its address from its first poll to its drop.
                let fut = unsafe { Pin::new_unchecked(fut) };
                ARRIVED.with(|a| a.set(None));
                if let Some(o) = warp_out[t].take() {
                    WARP_OUT.with(|w| w.set(o));
                }
                match fut.poll(&mut cx) {
                    Poll::Ready(Ok(())) => state[t] = State::Done,
                    Poll::Ready(Err(fault)) => {
                        return Err(fault.into_error(
                            self.kernel,
                            self.block_idx,
                            ctx(t as u64).thread_idx,
                            self.grid_dim,
                            self.block_dim,
                        ));
                    }
                    Poll::Pending => match ARRIVED.with(|a| a.get()) {
                        Some(loc) => {
                            warp_in[t] = WARP_IN.with(Cell::take);
                            state[t] = State::Waiting(loc);
                        }
                        None => {
                            return Err(Error::BarrierDivergence {
                                kernel: self.kernel,
                                block: self.block_idx,
                                detail: "a thread stopped outside a barrier (internal error of the simulator)".into(),
                            })
                        }
                    },
                }
            }
            let done = state.iter().filter(|s| matches!(s, State::Done)).count();
            if done == state.len() {
                return Ok(());
            }
            // A warp whose lanes all wait at one warp operation gets its results and goes on;
            // the operation orders no memory, so the phase goes on too.
            if warp_in.iter().any(Option::is_some) {
                let mut resumed = false;
                for base in (0..threads.len()).step_by(32) {
                    let lanes = base..(base + 32).min(threads.len());
                    if warp_in[lanes.clone()].iter().all(Option::is_none) {
                        continue;
                    }
                    let same = match state[base] {
                        State::Waiting(first) => state[lanes.clone()]
                            .iter()
                            .all(|s| matches!(s, State::Waiting(l) if std::ptr::eq(*l, first))),
                        _ => false,
                    };
                    if !same || warp_in[lanes.clone()].iter().any(Option::is_none) {
                        return Err(self.warp_divergence(&state, base));
                    }
                    let inputs: Vec<(WarpOp, u64, u32)> =
                        warp_in[lanes.clone()].iter().flatten().copied().collect();
                    for (t, o) in lanes.zip(warp_results(&inputs)) {
                        warp_out[t] = Some(o);
                        warp_in[t] = None;
                        state[t] = State::Running;
                    }
                    resumed = true;
                }
                if resumed {
                    continue;
                }
            }
            // Every live thread waits at a barrier: the same one, and none may have finished;
            // the phase ends.
            self.check_phase(&state, done)?;
            phase = phase.wrapping_add(1);
            for s in state.iter_mut() {
                if matches!(s, State::Waiting(_)) {
                    *s = State::Running;
                }
            }
        }
    }

    /// Some lanes of the warp at `base` wait at a warp operation and others do not (they wait
    /// elsewhere or have finished): the operation is not reached by its whole warp.
    fn warp_divergence(&self, state: &[State], base: usize) -> Error {
        let lanes = base..(base + 32).min(state.len());
        let mut parts: Vec<String> = Vec::new();
        let mut sites: Vec<(&'static Loc, usize)> = Vec::new();
        let mut done = 0;
        for s in &state[lanes] {
            match s {
                State::Waiting(loc) => match sites.iter_mut().find(|(l, _)| std::ptr::eq(*l, *loc))
                {
                    Some(site) => site.1 += 1,
                    None => sites.push((loc, 1)),
                },
                _ => done += 1,
            }
        }
        for (loc, count) in sites {
            parts.push(format!("{count} lane(s) wait at {loc}"));
        }
        if done > 0 {
            parts.push(format!("{done} lane(s) have finished"));
        }
        Error::BarrierDivergence {
            kernel: self.kernel,
            block: self.block_idx,
            detail: format!(
                "the warp of thread {} does not meet at one warp operation: {}",
                unlinearize(base as u64, self.block_dim),
                parts.join("; ")
            ),
        }
    }

    /// At the end of a phase every live thread waits; they must wait at one barrier, and no
    /// thread may have finished.
    fn check_phase(&self, state: &[State], done: usize) -> Result<(), Error> {
        let mut sites: Vec<(&'static Loc, usize, Dim3)> = Vec::new();
        for (t, s) in state.iter().enumerate() {
            if let State::Waiting(loc) = s {
                match sites.iter_mut().find(|(l, _, _)| std::ptr::eq(*l, *loc)) {
                    Some(site) => site.1 += 1,
                    None => sites.push((loc, 1, unlinearize(t as u64, self.block_dim))),
                }
            }
        }
        if sites.len() == 1 && done == 0 {
            return Ok(());
        }
        let mut parts: Vec<String> = sites
            .iter()
            .map(|(loc, count, first)| {
                format!("{count} thread(s) wait at the barrier at {loc} (first: thread {first})")
            })
            .collect();
        if done > 0 {
            parts.push(format!(
                "{done} thread(s) have already finished and will never arrive"
            ));
        }
        Err(Error::BarrierDivergence {
            kernel: self.kernel,
            block: self.block_idx,
            detail: parts.join("; "),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static NO_PRINT: crate::sim::Printer = crate::sim::Printer::new(false);

    static FIRST: Loc = Loc {
        file: "k.rs",
        line: 3,
        col: 5,
    };
    static SECOND: Loc = Loc {
        file: "k.rs",
        line: 7,
        col: 5,
    };

    fn block(threads: u32) -> BlockCtx<'static> {
        BlockCtx {
            kernel: "k",
            linear: 0,
            block_idx: Dim3::new(0, 0, 0),
            block_dim: Dim3::new(threads, 1, 1),
            grid_dim: Dim3::new(1, 1, 1),
            options: SimOptions::default(),
            straight: true,
            shared_races: true,
            dynamic_shared_bytes: 0,
            printer: &NO_PRINT,
            thread_indices: &[],
        }
    }

    fn detail(r: Result<(), Error>) -> String {
        match r {
            Err(Error::BarrierDivergence { detail, .. }) => detail,
            other => panic!("expected divergence, got {other:?}"),
        }
    }

    #[test]
    fn every_thread_at_one_barrier_is_fine() {
        let r = block(8).run(|cx| async move {
            cx.barrier(&FIRST).await;
            cx.barrier(&FIRST).await;
            Ok(())
        });
        assert!(r.is_ok());
    }

    #[test]
    fn threads_at_different_barriers_are_divergence() {
        let d = detail(block(8).run(|cx| async move {
            if cx.thread_idx.x < 3 {
                cx.barrier(&FIRST).await;
            } else {
                cx.barrier(&SECOND).await;
            }
            Ok(())
        }));
        assert!(
            d.contains("3 thread(s) wait at the barrier at k.rs:3:5"),
            "{d}"
        );
        assert!(
            d.contains("5 thread(s) wait at the barrier at k.rs:7:5 (first: thread (3, 0, 0))"),
            "{d}"
        );
    }

    #[test]
    fn a_thread_that_finished_while_others_wait_is_divergence() {
        let d = detail(block(4).run(|cx| async move {
            if cx.thread_idx.x != 2 {
                cx.barrier(&FIRST).await;
            }
            Ok(())
        }));
        assert!(
            d.contains("3 thread(s) wait") && d.contains("1 thread(s) have already finished"),
            "{d}"
        );
    }

    #[test]
    fn a_thread_that_waits_once_more_is_divergence() {
        let d = detail(block(4).run(|cx| async move {
            let rounds = if cx.thread_idx.x == 0 { 2 } else { 1 };
            for _ in 0..rounds {
                cx.barrier(&FIRST).await;
            }
            Ok(())
        }));
        assert!(
            d.contains("1 thread(s) wait") && d.contains("3 thread(s) have already finished"),
            "{d}"
        );
    }
}
