//! Hedging at a measured percentile, with a cap on the load hedges add:
//! tower's `Hedge` takes its delay from a latency percentile, Finagle's
//! backup requests cap their extra load (`maxExtraLoad`).
//!
//! A [`HedgeWindow`] keeps, over a decaying window, a histogram of the
//! durations of successful attempts and the counts of requests and
//! hedges. The window is two halves: the current one takes every sample,
//! and when it has run for half the window it becomes the previous one,
//! whose samples drop out at the next turn. So a sample counts for half a
//! window to a whole one, and memory is two fixed histograms whatever the
//! rate.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::report::ExecutionReport;

/// The window the samples and counts are kept over.
pub(crate) const WINDOW: Duration = Duration::from_secs(30);
/// Below this many samples, the fixed delay serves.
pub(crate) const MIN_SAMPLES: u64 = 20;
/// The delay before enough samples exist: the layer's `hedge` delay, or this.
pub const FALLBACK: Duration = Duration::from_millis(100);
/// The shortest and longest delay a percentile gives.
pub(crate) const FLOOR: Duration = Duration::from_millis(1);
pub(crate) const CEILING: Duration = Duration::from_secs(10);
/// The cap on hedges, as a share of requests, unless set.
pub(crate) const DEFAULT_MAX_EXTRA_LOAD: f64 = 0.05;

/// Sub-buckets per power of two: a bucket's width is at most an eighth of
/// its values, so a percentile is within 12.5 % of the sample's.
const SUB: u32 = 8;
/// Buckets: durations in microseconds from 0 up to 2⁴⁰ (about 12 days).
const BUCKETS: usize = (41 * SUB) as usize;

/// One half of the window.
#[derive(Clone)]
struct Half {
    buckets: [u32; BUCKETS],
    samples: u64,
    requests: u64,
    hedges: u64,
}

impl Half {
    const EMPTY: Half = Half {
        buckets: [0; BUCKETS],
        samples: 0,
        requests: 0,
        hedges: 0,
    };
}

/// The bucket of `micros`: its power of two, then an eighth of it.
fn bucket_of(micros: u64) -> usize {
    if micros < u64::from(SUB) {
        return micros as usize;
    }
    let power = 63 - micros.leading_zeros();
    let sub = (micros >> (power - 3)) & u64::from(SUB - 1);
    (((power - 2) * SUB) as usize + sub as usize).min(BUCKETS - 1)
}

/// The largest duration in `bucket`, in microseconds.
fn upper_of(bucket: usize) -> u64 {
    let bucket = bucket as u64;
    if bucket < u64::from(SUB) {
        return bucket;
    }
    let power = bucket / u64::from(SUB) + 2;
    let sub = bucket % u64::from(SUB);
    ((u64::from(SUB) + sub + 1) << (power - 3)) - 1
}

struct State {
    current: Half,
    previous: Half,
    /// When the current half began, in the clock's nanoseconds.
    began: Option<u64>,
}

/// The recent latencies of an operation's successful attempts, and the
/// hedge delay they give: hedging at a measured percentile (p95, say)
/// rather than at a fixed delay, with hedges kept within a share of the
/// requests (Finagle's `maxExtraLoad`, 5 % unless set).
///
/// The samples are kept over a decaying window of 30 s (each counts for
/// 15 to 30 s), in a fixed histogram whose buckets are within an eighth of
/// their values; memory is the same whatever the rate. Until 20 samples
/// exist, the hedge's own delay serves. A measured delay is rounded up to
/// whole milliseconds, within 1 ms and 10 s.
///
/// `#[resilient(hedge = p95)]` keeps one of these for its function; the
/// tower layer and the reqwest middleware keep one with
/// `.hedge_at_percentile(0.95)`. With an [`Operation`](crate::Operation),
/// keep it in a `static` and give it to
/// [`Hedged::window`](crate::Hedged::window):
///
/// ```
/// use resilient::{HedgeWindow, Operation, TokioClock};
/// use std::time::Duration;
///
/// static LATENCIES: HedgeWindow = HedgeWindow::at_percentile(0.95).max_extra_load(0.1);
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let outcome = Operation::new()
///     .clock(TokioClock)
///     // 200 ms until 20 successes were measured, then their p95.
///     .hedge(Duration::from_millis(200))
///     .window(&LATENCIES)
///     .run_async(async |_| Ok::<_, String>("fast"))
///     .await;
/// assert_eq!(outcome.result(), &Ok("fast"));
/// assert_eq!(LATENCIES.delay(), None, "one sample is not enough");
/// # }
/// ```
pub struct HedgeWindow {
    /// The percentile of the delay; `None` keeps the layer's fixed delay.
    percentile: Option<f64>,
    max_extra_load: f64,
    state: Mutex<State>,
}

impl std::fmt::Debug for HedgeWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HedgeWindow")
            .field("percentile", &self.percentile)
            .field("max_extra_load", &self.max_extra_load)
            .finish_non_exhaustive()
    }
}

impl HedgeWindow {
    /// A window hedging at `percentile` of the latencies it measures, a
    /// share within `0.01..=0.999` (`0.95` for p95; a number outside is
    /// brought within, and `NaN` is `0.95`), with hedges kept within 5 %
    /// of the requests.
    pub const fn at_percentile(percentile: f64) -> Self {
        HedgeWindow::new(Some(percentile), DEFAULT_MAX_EXTRA_LOAD)
    }

    /// The same window with hedges kept within `share` of the requests
    /// counted over the window (within `0..=1`; `NaN` is none at all).
    pub const fn max_extra_load(self, share: f64) -> Self {
        HedgeWindow::new(self.percentile, share)
    }

    /// The delay the last request got from its measures: the percentile
    /// of the samples in the window as it was then, or `None` below 20
    /// samples (or when it keeps a fixed delay).
    pub fn delay(&self) -> Option<Duration> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        delay_of(&state, self.percentile?)
    }

    /// A window hedging at `percentile` (brought within `0.01..=0.999`; a
    /// `NaN` is 0.95), or at the fixed delay without one, within
    /// `max_extra_load` (within `0..=1`; `NaN` is none at all).
    pub(crate) const fn new(percentile: Option<f64>, max_extra_load: f64) -> Self {
        let percentile = match percentile {
            Some(percentile) if percentile.is_nan() => Some(0.95),
            Some(percentile) => Some(percentile.clamp(0.01, 0.999)),
            None => None,
        };
        let max_extra_load = if max_extra_load.is_nan() {
            0.0
        } else {
            max_extra_load.clamp(0.0, 1.0)
        };
        HedgeWindow {
            percentile,
            max_extra_load,
            state: Mutex::new(State {
                current: Half::EMPTY,
                previous: Half::EMPTY,
                began: None,
            }),
        }
    }

    /// Whether it measures its delay, rather than keep the fixed one.
    #[cfg(feature = "tower")]
    pub(crate) fn measures(&self) -> bool {
        self.percentile.is_some()
    }

    /// The same window at another percentile.
    #[cfg(feature = "tower")]
    pub(crate) fn with_percentile(&self, percentile: f64) -> Self {
        HedgeWindow::new(Some(percentile), self.max_extra_load)
    }

    /// The same window with another cap.
    #[cfg(feature = "tower")]
    pub(crate) fn with_max_extra_load(&self, max_extra_load: f64) -> Self {
        HedgeWindow::new(self.percentile, max_extra_load)
    }

    /// The window's state at `now` (nanoseconds), its halves turned as
    /// time went by.
    fn at(&self, now: u64) -> std::sync::MutexGuard<'_, State> {
        let mut guard = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let state = &mut *guard;
        let half = crate::time::duration_nanos(WINDOW) / 2;
        let began = *state.began.get_or_insert(now);
        let gone = now.saturating_sub(began);
        if gone >= half {
            let current = std::mem::replace(&mut state.current, Half::EMPTY);
            state.previous = if gone >= 2 * half {
                Half::EMPTY
            } else {
                current
            };
            state.began = Some(now - gone % half);
        }
        guard
    }

    /// A new request at `now`: its hedge delay, `fallback` until the
    /// window holds enough samples, and whether it may hedge at all, `hedges`
    /// of them reserved if so: the hedges reserved and started stay within
    /// `max_extra_load` of the requests in the window.
    pub(crate) fn begin(&self, now: u64, fallback: Duration, hedges: u32) -> Option<Duration> {
        let mut state = self.at(now);
        state.current.requests += 1;
        let requests = state.current.requests + state.previous.requests;
        let spent = state.current.hedges + state.previous.hedges;
        let allowed = (self.max_extra_load * requests as f64).floor() as u64;
        if spent + u64::from(hedges) > allowed {
            return None;
        }
        state.current.hedges += u64::from(hedges);
        let measured = self
            .percentile
            .and_then(|percentile| delay_of(&state, percentile));
        Some(measured.unwrap_or(fallback))
    }

    /// The request that [`begin`](Self::begin) let hedge `reserved` times
    /// ended, `started` hedges started: those it didn't start go back. If
    /// it succeeded, the durations of the successful attempts of its
    /// report join the samples.
    pub(crate) fn end(
        &self,
        now: u64,
        reserved: u32,
        started: u64,
        succeeded: Option<&ExecutionReport>,
    ) {
        let mut state = self.at(now);
        let unused = u64::from(reserved).saturating_sub(started);
        state.current.hedges = state.current.hedges.saturating_sub(unused);
        let attempts = succeeded.map_or(&[][..], ExecutionReport::attempts);
        for attempt in attempts {
            if attempt.error().is_none() && !attempt.ignored() {
                let micros = u64::try_from(attempt.elapsed().as_micros()).unwrap_or(u64::MAX);
                state.current.buckets[bucket_of(micros)] += 1;
                state.current.samples += 1;
            }
        }
    }

    /// The delay a request would get at `now`.
    #[cfg(test)]
    fn delay_at(&self, now: u64) -> Option<Duration> {
        delay_of(&self.at(now), self.percentile?)
    }
}

/// The `percentile` of the samples in `state`, within the floor and the
/// ceiling; `None` below [`MIN_SAMPLES`].
fn delay_of(state: &State, percentile: f64) -> Option<Duration> {
    let samples = state.current.samples + state.previous.samples;
    if samples < MIN_SAMPLES {
        return None;
    }
    let rank = ((samples as f64) * percentile).ceil().max(1.0) as u64;
    let mut seen = 0;
    for bucket in 0..BUCKETS {
        seen +=
            u64::from(state.current.buckets[bucket]) + u64::from(state.previous.buckets[bucket]);
        if seen >= rank {
            // In whole milliseconds, rounded up: tokio's timers fire on
            // them, and the report shows the delay they waited.
            let delay = Duration::from_millis(upper_of(bucket).div_ceil(1_000));
            return Some(delay.clamp(FLOOR, CEILING));
        }
    }
    Some(CEILING)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_holds_its_values_within_an_eighth() {
        for micros in [0, 1, 7, 8, 9, 15, 16, 100, 1_000, 123_456, 10_000_000] {
            let bucket = bucket_of(micros);
            assert!(upper_of(bucket) >= micros, "{micros}");
            assert!(
                upper_of(bucket) <= micros + micros / 8 + 1,
                "{micros}: {}",
                upper_of(bucket)
            );
            if bucket > 0 {
                assert!(upper_of(bucket - 1) < micros, "{micros}");
            }
        }
    }

    #[test]
    fn samples_leave_the_window_after_one_to_two_halves() {
        let window = HedgeWindow::new(Some(0.5), 1.0);
        let mut state = window.at(0);
        state.current.buckets[bucket_of(1_000)] = 30;
        state.current.samples = 30;
        drop(state);
        // 1 ms's bucket ends at 1.023 ms: 2 ms, rounded up.
        assert_eq!(window.delay_at(0), Some(Duration::from_millis(2)));
        let half = crate::time::duration_nanos(WINDOW) / 2;
        assert!(
            window.delay_at(half).is_some(),
            "the previous half still counts"
        );
        assert_eq!(window.delay_at(2 * half), None, "gone after a whole window");
    }
}
