//! The grid loop: a launch's blocks spread over the launching thread and rayon's pool.
//!
//! Takes the number of blocks and a function that runs one block (by its linear number) and
//! returns its error. Gives [`run_blocks`], the lowest-numbered failing block's error.
//! Guarantees: every block runs exactly once, whatever the others return; the error is the
//! lowest-numbered block's, so it does not depend on the schedule; a panic in a block reaches
//! the caller (after every other participant has stopped touching the launch).
//!
//! Why not `par_iter`: from a thread outside the pool, rayon queues the whole launch and puts
//! the caller to sleep until a worker has woken, run it and woken the caller again. A launch of
//! a few blocks (a 64x64 tiled matmul is 16 of about 4 µs each) then costs two thread wake-ups,
//! as long as the launch itself or longer and as variable as the machine's scheduler. Here the
//! caller starts on the blocks at once and asks the pool's other threads to join; a helper that
//! wakes after the last block was taken does nothing, and the caller waits only for helpers
//! that are running blocks, never for one that has not started.
//!
//! Each participant owns a contiguous range of blocks and takes them from its front, a chunk
//! at a time; one that runs out takes chunks from the back of the range with the most left
//! (work stealing). Neighbouring blocks touch neighbouring memory, and with it neighbouring
//! pages of the race shadow: handing blocks out round-robin made two CPU threads clear and
//! write the same shadow pages and cache lines all launch long (with race detection, a
//! 16-block 64x64 tiled matmul took 2.4x as long, and 255 launches of 8 blocks over a matrix's
//! rows 3-4x).

use crate::error::Error;
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What one block returns: its error, boxed (a small value to carry between threads).
pub(super) type BlockResult = Option<Box<Error>>;

/// The function that runs one block, as the launch's participants share it.
type BlockFn<'a> = dyn Fn(u64) -> BlockResult + Sync + 'a;

/// Runs `block(b)` for every `b` in `0..total`, on this thread and as many of rayon's as there
/// are blocks to share; returns the lowest-numbered failing block with its error.
pub(super) fn run_blocks(total: u64, block: &BlockFn<'_>) -> Option<(u64, Box<Error>)> {
    let threads = rayon::current_num_threads() as u64;
    if total <= 1 || threads <= 1 {
        // Every block runs, as on the GPU, whatever an earlier one returned.
        let mut first = None;
        for b in 0..total {
            if let Some(e) = block(b) {
                first.get_or_insert((b, e));
            }
        }
        return first;
    }
    if rayon::current_thread_index().is_some() || u32::try_from(total).is_err() {
        // Already one of the pool's threads (a launch from inside rayon: rayon's own
        // splitting lets this thread work while it waits), or more blocks than a range holds.
        use rayon::prelude::*;
        return (0..total)
            .into_par_iter()
            .filter_map(|b| block(b).map(|e| (b, e)))
            .min_by_key(|(b, _)| *b);
    }
    let parts = threads.min(total);
    // Taken a few at a time from a range (fewer claims), but few enough that a participant
    // which starts late finds most of its range still there to share.
    let chunk = (total / (parts * 16)).max(1);
    let ranges = (0..parts)
        .map(|p| Range::new(total * p / parts, total * (p + 1) / parts))
        .collect();
    // SAFETY: the same pointer (a cast may not extend a trait object's lifetime), for the
    // helpers, `'static` jobs; it is only called while `block` is borrowed (see `BlockPtr`).
    let erased =
        unsafe { std::mem::transmute::<*const BlockFn<'_>, *const BlockFn<'static>>(block) };
    let launch = Arc::new(Launch {
        block: BlockPtr(erased),
        chunk,
        ranges,
        active: AtomicUsize::new(0),
        closed: AtomicBool::new(false),
        first: Mutex::new(None),
        panic: Mutex::new(None),
    });
    for p in 1..parts as usize {
        let l = launch.clone();
        rayon::spawn(move || {
            if l.enter() {
                l.work(p);
                l.leave();
            }
        });
    }
    launch.work(0);
    launch.close();
    let panic = launch
        .panic
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    if let Some(p) = panic {
        resume_unwind(p);
    }
    let first = launch
        .first
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    first
}

/// The launch's block function, borrowed by [`run_blocks`] for the launch: participants call
/// it only between a successful [`Launch::enter`] and their [`Launch::leave`] (the caller, all
/// along), and `run_blocks` returns, ending the borrow, only after [`Launch::close`] has
/// stopped new entries and every entered helper has left. A helper that runs later holds the
/// pointer without using it.
struct BlockPtr(*const BlockFn<'static>);

// SAFETY: the function is `Sync`, so calling it from several threads at once is sound; when
// it may be called is `BlockPtr`'s rule above.
unsafe impl Send for BlockPtr {}
// SAFETY: as for `Send`.
unsafe impl Sync for BlockPtr {}

/// A participant's blocks not yet taken, `[next, end)`, in one word (`next` in the low half),
/// so that the owner taking from the front and a thief taking from the back never both get a
/// block.
struct Range(AtomicU64);

impl Range {
    fn new(start: u64, end: u64) -> Self {
        Range(AtomicU64::new(start | (end << 32)))
    }

    /// Blocks left.
    fn len(&self) -> u64 {
        let v = self.0.load(Ordering::Relaxed);
        (v >> 32).saturating_sub(v & 0xFFFF_FFFF)
    }

    /// Takes up to `n` blocks from the front (`back` false) or the back.
    fn take(&self, n: u64, back: bool) -> Option<std::ops::Range<u64>> {
        let mut v = self.0.load(Ordering::Relaxed);
        loop {
            let (next, end) = (v & 0xFFFF_FFFF, v >> 32);
            if next >= end {
                return None;
            }
            let k = n.min(end - next);
            let (taken, new) = if back {
                (end - k..end, next | ((end - k) << 32))
            } else {
                (next..next + k, (next + k) | (end << 32))
            };
            match self
                .0
                .compare_exchange_weak(v, new, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(taken),
                Err(now) => v = now,
            }
        }
    }
}

/// One launch's shared state.
struct Launch {
    block: BlockPtr,
    /// Blocks taken at a time.
    chunk: u64,
    /// Each participant's blocks not yet taken (the caller's first).
    ranges: Box<[Range]>,
    /// Helpers that entered and have not left.
    active: AtomicUsize,
    /// Set once the caller has run out of blocks: no helper enters after it.
    closed: AtomicBool,
    /// The lowest-numbered failing block so far.
    first: Mutex<Option<(u64, Box<Error>)>>,
    /// The first panic of a block, to resume on the caller's thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Launch {
    /// A helper's entry: false once the launch is closed (then it must not run a block).
    fn enter(&self) -> bool {
        // With `close`'s store and load (both sequentially consistent), either this increment
        // is seen by the caller's wait or this load sees the launch closed.
        self.active.fetch_add(1, Ordering::SeqCst);
        if self.closed.load(Ordering::SeqCst) {
            self.active.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// A helper's exit: after it, the helper touches nothing of the caller's.
    fn leave(&self) {
        self.active.fetch_sub(1, Ordering::Release);
    }

    /// Stops new entries and waits for the helpers that entered (each is finishing a chunk).
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let mut spins = 0u32;
        while self.active.load(Ordering::SeqCst) != 0 {
            if spins < 1 << 10 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Runs participant `me`'s blocks, then other participants' from the back of the range
    /// with the most left, until none is left; keeps the lowest failing block, and the first
    /// panic (after which no block starts).
    fn work(&self, me: usize) {
        let run = || {
            let mut first: Option<(u64, Box<Error>)> = None;
            loop {
                let taken = self.ranges[me].take(self.chunk, false).or_else(|| {
                    let victim = self.ranges.iter().max_by_key(|r| r.len())?;
                    victim.take(self.chunk, true)
                });
                let Some(blocks) = taken else {
                    break;
                };
                for b in blocks {
                    // SAFETY: this participant is the caller or an entered helper that has not
                    // left (see `BlockPtr`).
                    if let Some(e) = unsafe { (*self.block.0)(b) } {
                        if first.as_ref().is_none_or(|(f, _)| b < *f) {
                            first = Some((b, e));
                        }
                    }
                }
            }
            first
        };
        match catch_unwind(AssertUnwindSafe(run)) {
            Ok(Some((b, e))) => {
                let mut first = self.first.lock().unwrap_or_else(|p| p.into_inner());
                if first.as_ref().is_none_or(|(f, _)| b < *f) {
                    *first = Some((b, e));
                }
            }
            Ok(None) => {}
            Err(p) => {
                // No more blocks start: every range is emptied.
                for r in self.ranges.iter() {
                    while r.take(u64::MAX, false).is_some() {}
                }
                self.panic
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::run_blocks;
    use crate::error::Error;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn fault(b: u64) -> Box<Error> {
        Box::new(Error::InvalidLaunch {
            kernel: "k".into(),
            reason: format!("block {b}"),
        })
    }

    #[test]
    fn every_block_runs_once_and_the_lowest_error_wins() {
        for total in [0u64, 1, 2, 3, 16, 17, 1000, 4096] {
            let runs: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
            let failing = |b: u64| b % 7 == 5;
            let first = run_blocks(total, &|b| {
                runs[b as usize].fetch_add(1, Ordering::Relaxed);
                failing(b).then(|| fault(b))
            });
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                "{total}"
            );
            let want = (0..total).find(|&b| failing(b));
            assert_eq!(first.map(|(b, _)| b), want, "{total}");
        }
    }

    #[test]
    fn a_panicking_block_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| {
            run_blocks(64, &|b| {
                assert!(b != 40, "block 40 panics");
                None
            })
        });
        let p = r.expect_err("the panic must reach the caller");
        let msg = (p.downcast_ref::<&str>().copied())
            .or_else(|| p.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("");
        assert!(msg.contains("block 40 panics"), "{msg}");
    }

    #[test]
    fn launches_from_inside_the_pool_run_every_block() {
        use rayon::prelude::*;
        let sums: Vec<u64> = (0..8u64)
            .into_par_iter()
            .map(|i| {
                let n = AtomicU32::new(0);
                run_blocks(100 + i, &|_| {
                    n.fetch_add(1, Ordering::Relaxed);
                    None
                });
                u64::from(n.load(Ordering::Relaxed))
            })
            .collect();
        assert_eq!(sums, (0..8u64).map(|i| 100 + i).collect::<Vec<_>>());
    }
}
