//! What is in flight in a block's shared array: asynchronous copies into it (`cp_async`, which
//! land at their thread's wait) and warpgroup multiplies reading it (`wgmma_*`, whose reads end
//! at their warpgroup's wait), with each thread's count of committed groups of either.

use super::super::{Fault, Loc};
use super::Shared;
use crate::Scalar;

/// Per thread (linear index in the block): how many groups it has committed, of one queue.
#[derive(Default)]
struct Groups(Vec<u32>);

impl Groups {
    fn of(&self, thread: u32) -> u32 {
        self.0.get(thread as usize).copied().unwrap_or(0)
    }

    fn commit(&mut self, thread: u32) {
        let t = thread as usize;
        if self.0.len() <= t {
            self.0.resize(t + 1, 0);
        }
        self.0[t] = self.0[t].saturating_add(1);
    }
}

/// The reads of warpgroup multiplies in flight from one shared array (see
/// [`Shared::mma_issue`]).
#[derive(Default)]
pub(super) struct MmaReads {
    /// Per thread: the groups it has committed.
    committed: Groups,
    /// The tiles read and not waited for, in issue order.
    flying: Vec<MmaTile>,
}

/// One tile a warpgroup multiply of `thread` reads: from each row `first + 8 r` (`r` below
/// `rows`), `chunks` rows of this array.
struct MmaTile {
    thread: u32,
    group: u32,
    first: usize,
    rows: usize,
    chunks: usize,
}

/// The asynchronous copies in flight into one shared array (see [`Shared::copy_async`]).
#[derive(Default)]
pub(super) struct Copies<T> {
    /// Per thread: the groups it has committed.
    committed: Groups,
    /// The copies not landed yet, in issue order.
    flying: Vec<Flying<T>>,
}

/// One asynchronous copy in flight: its value was read at the issue; it is written at the
/// wait that covers its group.
struct Flying<T> {
    thread: u32,
    group: u32,
    index: usize,
    value: T,
    loc: &'static Loc,
}

impl<T: Scalar> Shared<T> {
    /// The chunks (rows of this array) of a warpgroup multiply's tile whose first chunk is
    /// `first`: `chunks` of every 8, `rows` times.
    fn mma_chunks(first: usize, rows: usize, chunks: usize) -> impl Iterator<Item = usize> {
        (0..rows).flat_map(move |r| {
            (0..chunks).map(move |j| first + cuphase_contract::wgmma::ROW_CHUNKS * r + j)
        })
    }
    /// The issue of a warpgroup multiply by `thread` that reads the tile of `rows` rows of
    /// `chunks` chunks from chunk `first` (whose values it has read): with race detection the
    /// chunks are in flight until the thread's [`Self::wait_mma`] covers the group, and a
    /// write to one of them before then is a fault.
    pub fn mma_issue(
        &self,
        first: usize,
        rows: usize,
        chunks: usize,
        thread: u32,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        if let Some(sh) = &self.shadow {
            for c in Self::mma_chunks(first, rows, chunks) {
                for j in 0..self.cols {
                    sh.mma_read(self.name, self.view().flat(c, j, loc)?, loc)?;
                }
            }
        }
        let mut mma = self.mma.borrow_mut();
        let group = mma.committed.of(thread);
        mma.flying.push(MmaTile {
            thread,
            group,
            first,
            rows,
            chunks,
        });
        Ok(())
    }
    /// `wgmma_commit()` by `thread`: its multiplies issued since its last commit form a group.
    pub fn commit_mma(&self, thread: u32) {
        let mut mma = self.mma.borrow_mut();
        mma.committed.commit(thread);
    }
    /// `wgmma_wait(pending)` by `thread`: its multiplies of every committed group but the
    /// `pending` latest end their reads.
    pub fn wait_mma(&self, thread: u32, pending: u32, loc: &'static Loc) -> Result<(), Fault> {
        let done: Vec<MmaTile> = {
            let mut mma = self.mma.borrow_mut();
            let below = mma.committed.of(thread).saturating_sub(pending);
            let (now, later) = std::mem::take(&mut mma.flying)
                .into_iter()
                .partition(|f| f.thread == thread && f.group < below);
            mma.flying = later;
            now
        };
        if let Some(sh) = &self.shadow {
            for f in done {
                for c in Self::mma_chunks(f.first, f.rows, f.chunks) {
                    for j in 0..self.cols {
                        sh.mma_done(self.name, self.view().flat(c, j, loc)?, loc)?;
                    }
                }
            }
        }
        Ok(())
    }
    /// `cp_async` into element `(r, c)` (`c` is 0 for a one-dimensional array) by thread
    /// `thread` (linear in its block): `value` was read from the source now; it is written
    /// when the thread waits for the copy's group ([`Self::wait_async`]). Until then the
    /// element keeps its old value, and with race detection any access to it is a fault.
    pub fn copy_async(
        &self,
        r: usize,
        c: usize,
        value: T,
        thread: u32,
        loc: &'static Loc,
    ) -> Result<(), Fault> {
        let i = self.view().flat(r, c, loc)?;
        if let Some(sh) = &self.shadow {
            sh.issue(self.name, i, loc)?;
        }
        let mut copies = self.copies.borrow_mut();
        let group = copies.committed.of(thread);
        copies.flying.push(Flying {
            thread,
            group,
            index: i,
            value,
            loc,
        });
        Ok(())
    }
    /// `cp_async_commit()` by `thread`: its copies issued since its last commit form a group.
    pub fn commit_async(&self, thread: u32) {
        let mut copies = self.copies.borrow_mut();
        copies.committed.commit(thread);
    }
    /// `cp_async_wait(pending)` by `thread`: its copies of every committed group but the
    /// `pending` latest land, in issue order.
    pub fn wait_async(&self, thread: u32, pending: u32) -> Result<(), Fault> {
        let landing: Vec<Flying<T>> = {
            let mut copies = self.copies.borrow_mut();
            let below = copies.committed.of(thread).saturating_sub(pending);
            let (now, later) = std::mem::take(&mut copies.flying)
                .into_iter()
                .partition(|f| f.thread == thread && f.group < below);
            copies.flying = later;
            now
        };
        for f in landing {
            if let Some(sh) = &self.shadow {
                sh.land(self.name, f.index, f.loc)?;
            }
            if let Some(cell) = self.cells.get(f.index) {
                cell.set(f.value);
            }
        }
        Ok(())
    }
}
