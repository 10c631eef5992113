//! The failure-ratio rule: fixed sampling windows counting calls and
//! failures, and the check of a window against the configured ratio.

use super::atomic::{AtomicU64, Ordering};
use super::word::{Pack, Packed};

/// Most calls one window counts; outcomes past it wait for the next window.
pub(super) const MAX_WINDOW_CALLS: u32 = (1 << 24) - 1;

/// The failure-ratio rule, as validated by the builder.
#[derive(Debug, Clone, Copy)]
pub(super) struct RatioConfig {
    pub(super) failure_ratio: f64,
    pub(super) minimum_throughput: u32,
    pub(super) window_nanos: u64,
}

/// Calls and failures of one window and the closed period they belong to:
/// `period (16) | calls (24) | failures (24)`, so that a ratio is always
/// computed from one snapshot and an outcome of an older closed period is
/// refused by the very swap that would count it.
///
/// `period` is the low half of the closed period's generation. A permit
/// would have to outlive 2¹⁶ generations, more than 20 000 trips of the
/// breaker, to be mistaken for one of the current period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) period: u16,
    pub(super) calls: u32,
    pub(super) failures: u32,
}

impl Counts {
    pub(super) fn empty(period: u16) -> Self {
        Self {
            period,
            calls: 0,
            failures: 0,
        }
    }

    pub(super) fn record(self, failed: bool) -> Self {
        if self.calls >= MAX_WINDOW_CALLS {
            return self;
        }
        Self {
            calls: self.calls + 1,
            failures: self.failures + u32::from(failed),
            ..self
        }
    }

    fn breaches(self, ratio: &RatioConfig) -> bool {
        self.calls >= ratio.minimum_throughput
            && f64::from(self.failures) >= ratio.failure_ratio * f64::from(self.calls)
    }
}

impl Pack for Counts {
    fn pack(self) -> u64 {
        let mask = u64::from(MAX_WINDOW_CALLS);
        (u64::from(self.period) << 48)
            | ((u64::from(self.calls) & mask) << 24)
            | (u64::from(self.failures) & mask)
    }

    fn unpack(bits: u64) -> Self {
        let mask = u64::from(MAX_WINDOW_CALLS);
        Self {
            period: (bits >> 48) as u16,
            calls: ((bits >> 24) & mask) as u32,
            failures: (bits & mask) as u32,
        }
    }
}

/// The closed period a generation's outcomes are counted under.
fn period(generation: u32) -> u16 {
    generation as u16
}

/// The current sampling window of a breaker.
pub(super) struct Window {
    counts: Packed<Counts>,
    /// When the window started (the breaker's nanoseconds).
    start: AtomicU64,
}

impl Window {
    /// An empty window of the closed period `generation`, started at `now`.
    pub(super) fn new(generation: u32, now: u64) -> Self {
        Self {
            counts: Packed::new(Counts::empty(period(generation))),
            start: AtomicU64::new(now),
        }
    }

    /// Counts the outcome, at `now`, of a call admitted in the closed period
    /// `generation`, starting a new window first if the current one has
    /// ended. Says whether it was a failure that makes the window breach
    /// the ratio; an outcome of an older closed period counts nowhere.
    pub(super) fn record(
        &self,
        ratio: &RatioConfig,
        generation: u32,
        now: u64,
        failed: bool,
    ) -> bool {
        let period = period(generation);
        // `reset` writes the counts before the start, so a permit of an older
        // period that sees the new start sees the new period too, and stops
        // here instead of restarting the new period's window.
        let start = self.start.load(Ordering::Acquire);
        if self.counts.load().period != period {
            return false;
        }
        let rolled = now.saturating_sub(start) >= ratio.window_nanos
            && self
                .start
                .compare_exchange(start, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
        // After a roll, an outcome counted by another thread between the swap
        // above and this one is discarded with the old window, as if it had
        // been recorded just before the window ended.
        let count = |counts: Counts| {
            let counts = if rolled {
                Counts::empty(period)
            } else {
                counts
            };
            counts.record(failed)
        };
        match self
            .counts
            .transition(|counts| (counts.period == period).then(|| count(counts)))
        {
            Ok((_, counts)) => failed && counts.breaches(ratio),
            Err(_) => false,
        }
    }

    /// The calls and failures counted in the current window of the closed
    /// period `generation`; none for another period.
    pub(super) fn counted(&self, generation: u32) -> (u32, u32) {
        let counts = self.counts.load();
        if counts.period == period(generation) {
            (counts.calls, counts.failures)
        } else {
            (0, 0)
        }
    }

    /// Starts a window of the closed period `generation` at `now` that has
    /// already counted `calls` and `failures` (capped like any window).
    /// Only the thread closing the breaker calls it, before the period opens.
    pub(super) fn resume(&self, generation: u32, now: u64, calls: u32, failures: u32) {
        let calls = calls.min(MAX_WINDOW_CALLS);
        self.counts.replace(Counts {
            period: period(generation),
            calls,
            failures: failures.min(calls),
        });
        self.start.swap(now, Ordering::AcqRel);
    }

    /// Starts an empty window of the closed period `generation` at `now`.
    /// Only the thread closing the breaker calls it, before the period opens.
    pub(super) fn reset(&self, generation: u32, now: u64) {
        self.counts.replace(Counts::empty(period(generation)));
        // A swap for the reason `Packed::replace` gives: the start is also
        // changed by compare-and-swap.
        self.start.swap(now, Ordering::AcqRel);
    }
}
