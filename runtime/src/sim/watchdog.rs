//! The simulator's watchdog: a launch that runs longer than the device's limit
//! ([`Device::set_watchdog`](crate::Device::set_watchdog)) is stopped and returns
//! [`Error::Timeout`](crate::Error::Timeout).
//!
//! Takes the limit and the launch. Gives [`Watch`] (armed by `SimBackend::run` for one launch:
//! a timer thread raises the launch's flag at the deadline) and [`watchdog`], which generated
//! code calls at the top of every `loop` and `while` iteration (the only statements that can
//! run forever: `for` loops run over finite ranges, and a barrier every thread waits at is a
//! divergence error, not a wait). Guarantees: without a limit, a check is one thread-local
//! read; with one, a stopped launch leaves the device usable, and no other launch is stopped.

use super::Fault;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

thread_local! {
    /// The flag of the launch whose block this (rayon) thread runs, and the launch's limit.
    static CURRENT: RefCell<Option<(Arc<AtomicBool>, Duration)>> = const { RefCell::new(None) };
}

/// Stops the GPU thread (with [`Fault::Timeout`]) when its launch has run past the limit.
#[inline]
pub fn watchdog() -> Result<(), Fault> {
    CURRENT.with(|c| match &*c.borrow() {
        Some((fired, limit)) if fired.load(Ordering::Relaxed) => Err(Fault::Timeout(*limit)),
        _ => Ok(()),
    })
}

/// One launch under a watchdog: the flag its blocks check, raised by a timer thread at the
/// deadline unless the launch ends first (dropping the `Watch` ends the timer).
pub(crate) struct Watch {
    fired: Arc<AtomicBool>,
    limit: Duration,
    _done: mpsc::Sender<()>,
}

impl Watch {
    /// Arms a timer of `limit` for one launch.
    pub(crate) fn arm(limit: Duration) -> Watch {
        let fired = Arc::new(AtomicBool::new(false));
        let (done, wait) = mpsc::channel::<()>();
        let flag = fired.clone();
        std::thread::spawn(move || {
            // `Err(Timeout)`: the deadline came first; `Err(Disconnected)`: the launch ended.
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                flag.store(true, Ordering::Relaxed);
            }
        });
        Watch {
            fired,
            limit,
            _done: done,
        }
    }

    /// The timeout, once the deadline has passed.
    pub(crate) fn fired(&self) -> Option<Fault> {
        self.fired
            .load(Ordering::Relaxed)
            .then_some(Fault::Timeout(self.limit))
    }

    /// Runs one block of the launch with this watch as the thread's current one.
    pub(crate) fn during<R>(watch: Option<&Watch>, f: impl FnOnce() -> R) -> R {
        /// Puts the thread's previous watch back, also when the block unwinds.
        struct Restore(Option<(Arc<AtomicBool>, Duration)>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
        let current = watch.map(|w| (w.fired.clone(), w.limit));
        let _restore = Restore(CURRENT.with(|c| c.replace(current)));
        f()
    }
}
