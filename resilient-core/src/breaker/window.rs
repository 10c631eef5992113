//! The failure-ratio rule: fixed sampling windows counting calls and
//! failures, and the check of a window against the configured ratio.

use std::sync::atomic::{AtomicU64, Ordering};

use super::word::{Pack, Packed};

/// The failure-ratio rule, as validated by the builder.
#[derive(Debug, Clone, Copy)]
pub(super) struct RatioConfig {
    pub(super) failure_ratio: f64,
    pub(super) minimum_throughput: u32,
    pub(super) window_nanos: u64,
}

/// Calls and failures of one window, packed so that a ratio is always
/// computed from one snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counts {
    calls: u32,
    failures: u32,
}

impl Counts {
    const EMPTY: Self = Self {
        calls: 0,
        failures: 0,
    };

    fn record(self, failed: bool) -> Self {
        Self {
            calls: self.calls.saturating_add(1),
            failures: self.failures.saturating_add(u32::from(failed)),
        }
    }

    fn breaches(self, ratio: &RatioConfig) -> bool {
        self.calls >= ratio.minimum_throughput
            && f64::from(self.failures) >= ratio.failure_ratio * f64::from(self.calls)
    }
}

impl Pack for Counts {
    fn pack(self) -> u64 {
        (u64::from(self.calls) << 32) | u64::from(self.failures)
    }

    fn unpack(bits: u64) -> Self {
        Self {
            calls: (bits >> 32) as u32,
            failures: bits as u32,
        }
    }
}

/// The current sampling window of a breaker.
pub(super) struct Window {
    counts: Packed<Counts>,
    /// When the window started (the breaker's nanoseconds).
    start: AtomicU64,
}

impl Window {
    pub(super) fn new() -> Self {
        Self {
            counts: Packed::new(Counts::EMPTY),
            start: AtomicU64::new(0),
        }
    }

    /// Counts one outcome at `now`, starting a new window first if the
    /// current one has ended; says whether it was a failure that makes the
    /// window breach the ratio.
    pub(super) fn record(&self, ratio: &RatioConfig, now: u64, failed: bool) -> bool {
        let start = self.start.load(Ordering::Relaxed);
        if now.saturating_sub(start) >= ratio.window_nanos
            && self
                .start
                .compare_exchange(start, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            // An outcome counted by another thread between the swap above and
            // this store is discarded with the old window, as if it had been
            // recorded just before the window ended.
            self.counts.store(Counts::EMPTY);
        }
        match self.counts.transition(|counts| Some(counts.record(failed))) {
            Ok((_, counts)) => failed && counts.breaches(ratio),
            Err(_) => false,
        }
    }

    /// Starts an empty window at `now`.
    pub(super) fn reset(&self, now: u64) {
        self.start.store(now, Ordering::Relaxed);
        self.counts.store(Counts::EMPTY);
    }
}
