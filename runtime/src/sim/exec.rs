//! Running blocks and threads.

use super::{Distribution, Fault, Loc};
use crate::error::Error;
use crate::kernel::KernelInfo;
use crate::launch::{Dim3, Launch};
use rayon::prelude::*;
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

thread_local! {
    /// The barrier the thread being polled stopped at; set by [`Barrier::poll`], read by the
    /// block's scheduler right after the poll returns.
    static ARRIVED: Cell<Option<&'static Loc>> = const { Cell::new(None) };
}

/// The CPU simulator as a device.
#[derive(Debug, Default)]
pub struct SimBackend {
    _private: (),
}

impl SimBackend {
    /// A simulator.
    pub fn new() -> Self {
        SimBackend { _private: () }
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
        let grid = launch.grid;
        let total = grid.volume();
        let first_error = (0..total)
            .into_par_iter()
            .filter_map(|linear| {
                let x = (linear % u64::from(grid.x)) as u32;
                let y = ((linear / u64::from(grid.x)) % u64::from(grid.y)) as u32;
                let z = (linear / (u64::from(grid.x) * u64::from(grid.y))) as u32;
                let ctx = BlockCtx {
                    kernel: info.name,
                    block_idx: Dim3::new(x, y, z),
                    block_dim: launch.block,
                    grid_dim: grid,
                };
                block(&ctx).err().map(|e| (linear, e))
            })
            .min_by_key(|(linear, _)| *linear);
        match first_error {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// One block being simulated.
#[derive(Clone, Copy, Debug)]
pub struct BlockCtx {
    kernel: &'static str,
    block_idx: Dim3,
    block_dim: Dim3,
    grid_dim: Dim3,
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

#[derive(Clone, Copy, PartialEq)]
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

impl BlockCtx {
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
        loop {
            let mut waiting = 0usize;
            let mut done = 0usize;
            for (t, fut) in threads.iter_mut().enumerate() {
                if state[t] == State::Done {
                    done += 1;
                    continue;
                }
                // SAFETY: `threads` is a boxed slice that outlives this loop and is never moved,
                // so each future stays at its address from its first poll to its drop.
                let fut = unsafe { Pin::new_unchecked(fut) };
                ARRIVED.with(|a| a.set(None));
                match fut.poll(&mut cx) {
                    Poll::Ready(Ok(())) => {
                        state[t] = State::Done;
                        done += 1;
                    }
                    Poll::Ready(Err(fault)) => {
                        return Err(fault.into_error(self.kernel, self.block_idx, ctx(t as u64).thread_idx));
                    }
                    Poll::Pending => match ARRIVED.with(|a| a.get()) {
                        Some(loc) => {
                            state[t] = State::Waiting(loc);
                            waiting += 1;
                        }
                        None => {
                            return Err(Error::BarrierDivergence {
                                kernel: self.kernel.to_string(),
                                block: self.block_idx,
                                detail: "a thread stopped outside a barrier (internal error of the simulator)".into(),
                            })
                        }
                    },
                }
            }
            if waiting == 0 {
                return Ok(());
            }
            self.check_phase(&state, done)?;
            for s in state.iter_mut() {
                if matches!(s, State::Waiting(_)) {
                    *s = State::Running;
                }
            }
        }
    }

    /// At the end of a phase every live thread waits; they must wait at one barrier, and no
    /// thread may have finished.
    fn check_phase(&self, state: &[State], done: usize) -> Result<(), Error> {
        let mut sites: Vec<(&'static Loc, usize, Dim3)> = Vec::new();
        for (t, s) in state.iter().enumerate() {
            if let State::Waiting(loc) = s {
                match sites.iter_mut().find(|(l, _, _)| **l == **loc) {
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
            kernel: self.kernel.to_string(),
            block: self.block_idx,
            detail: parts.join("; "),
        })
    }
}
