//! The watchdog's limit of one device ([`Device::set_watchdog`](crate::Device::set_watchdog)),
//! shared by both back ends: the simulator stops a launch past it, a GPU's synchronising calls
//! give up after it.
//!
//! Takes nothing. Gives [`Limit`]. Guarantees: a limit is at least a millisecond, so "set" and
//! "none" are never confused; reading it is one relaxed atomic load.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A device's watchdog limit, in milliseconds; 0 means none.
#[derive(Debug, Default)]
pub(crate) struct Limit(AtomicU64);

impl Limit {
    /// Sets the limit (`None`: no limit).
    pub(crate) fn set(&self, limit: Option<Duration>) {
        let ms = limit.map_or(0, |d| {
            u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
        });
        self.0.store(ms, Ordering::Relaxed);
    }

    /// The limit, if one is set.
    pub(crate) fn get(&self) -> Option<Duration> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }
}
