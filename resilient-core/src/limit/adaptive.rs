//! [`AdaptiveLimit`]: a concurrency limit that moves with the attempts'
//! latency and drops, by Netflix concurrency-limits' AIMD, Vegas and
//! Gradient2 algorithms, with their defaults.
//!
//! Admission reads the limit and counts attempts in flight with atomics;
//! only a sample (one per finished attempt) takes the estimator's lock, as
//! Netflix's `AbstractLimit.onSample` is `synchronized`.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::atomic::{AtomicU32, Ordering, const_unless_loom};
use super::bulkhead::InFlight;
use super::{Completion, LimitExceeded, Limiter, Priorities, Priority, Waiters};

/// A concurrency limit that finds itself: it grows while attempts come
/// back fast and shrinks when they slow down or are dropped (time out, or
/// fail with a retryable error).
///
/// Three algorithms, each with Netflix concurrency-limits' defaults:
///
/// | algorithm | initial | min | max | moves on |
/// |---|---:|---:|---:|---|
/// | [`aimd`](AdaptiveLimit::aimd) | 20 | 20 | 200 | drops (× 0.9) and successes near the limit (+ 1); an RTT over 5 s is a drop |
/// | [`vegas`](AdaptiveLimit::vegas) | 20 | 1 | 1000 | the queue the RTT shows over the lowest RTT seen |
/// | [`gradient2`](AdaptiveLimit::gradient2) | 20 | 20 | 200 | the ratio of a long-term average RTT to the last one |
///
/// No algorithm goes below a limit of 1: a limit of 0 would admit no
/// attempt, so no sample could ever raise it again. A `min`, `initial` or
/// `max` of 0 is taken as 1, and a `max` below `min` as `min`.
///
/// The engine feeds it every attempt it admitted (see [`Completion`]); a
/// test, or a caller outside the engine, can feed
/// [`on_sample`](AdaptiveLimit::on_sample) directly:
///
/// ```
/// use resilient::limit::AdaptiveLimit;
/// use std::time::Duration;
///
/// static UPSTREAM: AdaptiveLimit = AdaptiveLimit::aimd().initial(20).max(40);
///
/// // Busy and fast: the limit grows by one.
/// UPSTREAM.on_sample(Duration::from_millis(1), 10, false);
/// assert_eq!(UPSTREAM.limit(), 21);
/// // A drop: it shrinks by a tenth, not below `min`.
/// UPSTREAM.on_sample(Duration::from_millis(1), 10, true);
/// assert_eq!(UPSTREAM.limit(), 20);
/// ```
#[derive(Debug)]
pub struct AdaptiveLimit {
    limit: AtomicU32,
    in_flight: InFlight,
    initial: u32,
    min: u32,
    max: u32,
    algorithm: Algorithm,
    estimator: Mutex<Estimator>,
    name: &'static str,
    /// The shares each priority may fill, when it sheds by priority.
    priorities: Option<Priorities>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Algorithm {
    Aimd,
    Vegas,
    Gradient2,
}

/// AIMD: the share kept after a drop, and the RTT that counts as one.
const AIMD_BACKOFF_RATIO: f64 = 0.9;
const AIMD_TIMEOUT: Duration = Duration::from_secs(5);
/// Vegas: the no-load RTT is probed again every `30 × limit` samples (times
/// a jitter within [0.5, 1)).
const VEGAS_PROBE_MULTIPLIER: f64 = 30.0;
/// Gradient2: the smoothing of a new estimate, the queue it allows, the
/// windows of the long-term RTT average and the RTT ratio tolerated.
const GRADIENT2_SMOOTHING: f64 = 0.2;
const GRADIENT2_QUEUE_SIZE: f64 = 4.0;
const GRADIENT2_LONG_WINDOW: u32 = 600;
const GRADIENT2_WARMUP_WINDOW: u32 = 10;
const GRADIENT2_RTT_TOLERANCE: f64 = 1.5;

/// What the algorithms remember between samples.
#[derive(Debug)]
struct Estimator {
    /// The estimate, fractional for Vegas and Gradient2; NaN until the
    /// first sample, which starts from `initial`.
    estimate: f64,
    /// Vegas: the lowest RTT seen since the last probe (0: none yet).
    no_load_rtt: u64,
    probe_count: u64,
    /// Drawn in [0.5, 1) at each probe; 0 until the first sample.
    probe_jitter: f64,
    /// Gradient2: the long-term RTT, an average over the first samples,
    /// then exponentially smoothed.
    long_rtt: f64,
    long_rtt_sum: f64,
    long_rtt_count: u32,
}

impl AdaptiveLimit {
    const_unless_loom! {
        /// Additive increase, multiplicative decrease: + 1 after a fast
        /// sample while at least half the limit is in flight, × 0.9 after a
        /// drop or an RTT over 5 s. Initial 20, min 20, max 200.
        ///
        /// ```
        /// use resilient::limit::AdaptiveLimit;
        ///
        /// assert_eq!(AdaptiveLimit::aimd().limit(), 20);
        /// ```
        pub fn aimd() -> AdaptiveLimit {
            AdaptiveLimit::with(Algorithm::Aimd, 20, 20, 200)
        }
    }

    const_unless_loom! {
        /// TCP Vegas: the queue an RTT shows over the lowest RTT seen
        /// (`limit × (1 − no_load_rtt / rtt)`) grows the limit while it is
        /// small and shrinks it when it passes `6 × log10(limit)`. Initial
        /// 20, min 1, max 1000.
        ///
        /// ```
        /// use resilient::limit::AdaptiveLimit;
        ///
        /// assert_eq!(AdaptiveLimit::vegas().limit(), 20);
        /// ```
        pub fn vegas() -> AdaptiveLimit {
            AdaptiveLimit::with(Algorithm::Vegas, 20, 1, 1000)
        }
    }

    const_unless_loom! {
        /// Gradient2: the ratio of a long-term average RTT to the last one
        /// (within [0.5, 1], with a tolerance of 1.5) scales the limit,
        /// plus a queue of 4, smoothed by 0.2. Initial 20, min 20, max 200.
        ///
        /// ```
        /// use resilient::limit::AdaptiveLimit;
        ///
        /// assert_eq!(AdaptiveLimit::gradient2().limit(), 20);
        /// ```
        pub fn gradient2() -> AdaptiveLimit {
            AdaptiveLimit::with(Algorithm::Gradient2, 20, 20, 200)
        }
    }

    const_unless_loom! {
        fn with(algorithm: Algorithm, initial: u32, min: u32, max: u32) -> AdaptiveLimit {
            AdaptiveLimit {
                limit: AtomicU32::new(initial),
                in_flight: InFlight::new(),
                initial,
                min,
                max,
                algorithm,
                estimator: Mutex::new(Estimator {
                    estimate: f64::NAN,
                    no_load_rtt: 0,
                    probe_count: 0,
                    probe_jitter: 0.0,
                    long_rtt: 0.0,
                    long_rtt_sum: 0.0,
                    long_rtt_count: 0,
                }),
                name: "adaptive_limit",
                priorities: None,
            }
        }
    }

    const_unless_loom! {
        /// The limit before the first sample. Kept as given even outside
        /// `min..=max`, as Netflix's limits keep it; the first sample
        /// brings it within. An initial limit of 0 is taken as 1: it would
        /// admit nothing, and so never hear a sample.
        ///
        /// ```
        /// use resilient::limit::AdaptiveLimit;
        ///
        /// assert_eq!(AdaptiveLimit::vegas().initial(10).limit(), 10);
        /// assert_eq!(AdaptiveLimit::vegas().initial(0).limit(), 1);
        /// ```
        pub fn initial(self, initial: u32) -> AdaptiveLimit {
            let initial = at_least_one(initial);
            let mut limit = self;
            limit.limit = AtomicU32::new(initial);
            limit.initial = initial;
            limit
        }
    }

    /// The lowest limit the algorithm may set. A `min` of 0 is taken as
    /// 1, for every algorithm: at a limit of 0 no attempt is admitted, so
    /// no sample could raise it again.
    ///
    /// ```
    /// use resilient::limit::AdaptiveLimit;
    /// use std::time::Duration;
    ///
    /// let limit = AdaptiveLimit::aimd().initial(10).min(5);
    /// limit.on_sample(Duration::from_millis(1), 0, true);
    /// assert_eq!(limit.limit(), 9);
    ///
    /// // A drop at a limit of 1 keeps it at 1, not 0.
    /// let limit = AdaptiveLimit::aimd().initial(1).min(0);
    /// limit.on_sample(Duration::from_millis(1), 1, true);
    /// assert_eq!(limit.limit(), 1);
    /// ```
    pub const fn min(mut self, min: u32) -> AdaptiveLimit {
        self.min = at_least_one(min);
        self
    }

    /// The highest limit the algorithm may set. A `max` of 0 is taken as
    /// 1, and a `max` below `min` as `min`.
    ///
    /// ```
    /// use resilient::limit::AdaptiveLimit;
    /// use std::time::Duration;
    ///
    /// let limit = AdaptiveLimit::aimd().initial(21).max(21);
    /// limit.on_sample(Duration::from_millis(1), 21, false);
    /// assert_eq!(limit.limit(), 21);
    /// ```
    pub const fn max(mut self, max: u32) -> AdaptiveLimit {
        self.max = at_least_one(max);
        self
    }

    /// The same limit under another name, for [`LimitExceeded`] and the
    /// metrics.
    ///
    /// ```
    /// use resilient::limit::{AdaptiveLimit, Limiter};
    ///
    /// assert_eq!(AdaptiveLimit::vegas().named("search").name(), "search");
    /// ```
    pub const fn named(mut self, name: &'static str) -> AdaptiveLimit {
        self.name = name;
        self
    }

    /// The same limit, shedding by priority as its limit moves: a call
    /// may take a permit only while fewer are held than the limit in
    /// force less the reserves of the priorities above its own (see
    /// [`Priorities`], and [`Bulkhead::shed_by_priority`](super::Bulkhead::shed_by_priority)).
    ///
    /// ```
    /// use resilient::limit::{AdaptiveLimit, Limiter, Priorities, Priority};
    /// use std::time::Instant;
    ///
    /// let limit = AdaptiveLimit::aimd().initial(10).shed_by_priority(Priorities::new());
    /// let now = Instant::now();
    /// for _ in 0..8 {
    ///     limit.try_acquire_as(now, Priority::Medium).unwrap();
    /// }
    /// assert!(limit.try_acquire_as(now, Priority::Medium).unwrap_err().shed_priority().is_some());
    /// assert!(limit.try_acquire_as(now, Priority::High).is_ok());
    /// ```
    pub const fn shed_by_priority(mut self, priorities: Priorities) -> AdaptiveLimit {
        self.priorities = Some(priorities);
        self
    }

    /// The limit in force: attempts beyond it are refused.
    ///
    /// ```
    /// use resilient::limit::AdaptiveLimit;
    ///
    /// assert_eq!(AdaptiveLimit::gradient2().initial(50).limit(), 50);
    /// ```
    pub fn limit(&self) -> u32 {
        self.limit.load(Ordering::SeqCst)
    }

    /// Feeds one finished attempt: it ran for `rtt` while `in_flight`
    /// attempts (itself included) were in flight, and was `dropped` (timed
    /// out, or failed with a retryable error) or not.
    ///
    /// ```
    /// use resilient::limit::AdaptiveLimit;
    /// use std::time::Duration;
    ///
    /// let limit = AdaptiveLimit::vegas().initial(10).max(20);
    /// limit.on_sample(Duration::from_millis(10), 10, false); // the no-load RTT
    /// limit.on_sample(Duration::from_millis(10), 11, false); // no queue: grow
    /// assert_eq!(limit.limit(), 16);
    /// limit.on_sample(Duration::from_millis(50), 11, false); // a queue: shrink
    /// assert_eq!(limit.limit(), 15);
    /// ```
    pub fn on_sample(&self, rtt: Duration, in_flight: u32, dropped: bool) {
        // A zero RTT would divide by zero below; no attempt takes no time.
        let rtt = crate::time::duration_nanos(rtt).max(1);
        let mut estimator = self
            .estimator
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if estimator.estimate.is_nan() {
            estimator.estimate = f64::from(self.initial);
        }
        // `min` is at least 1 (see `at_least_one`); a `max` below it
        // yields to it.
        let (min, max) = (f64::from(self.min), f64::from(self.max.max(self.min)));
        let estimate = match self.algorithm {
            Algorithm::Aimd => aimd(estimator.estimate, rtt, in_flight, dropped, min, max),
            Algorithm::Vegas => vegas(&mut estimator, rtt, in_flight, dropped, min, max),
            Algorithm::Gradient2 => gradient2(&mut estimator, rtt, in_flight, min, max),
        };
        estimator.estimate = estimate;
        // The estimate is within `min..=max`, both u32: the cast is exact
        // after the floor.
        let limit = estimate.floor() as u32;
        let before = self.limit.swap(limit, Ordering::SeqCst);
        drop(estimator);
        if limit > before {
            self.in_flight.waiters().wake();
        }
    }
}

/// `n`, or 1 for 0: the least limit that still admits an attempt, and so
/// still hears the samples that move it.
const fn at_least_one(n: u32) -> u32 {
    if n == 0 { 1 } else { n }
}

/// Netflix `AIMDLimit._update`, on the integer limit.
fn aimd(current: f64, rtt: u64, in_flight: u32, dropped: bool, min: f64, max: f64) -> f64 {
    let current = current.floor();
    let next = if dropped || rtt > crate::time::duration_nanos(AIMD_TIMEOUT) {
        (current * AIMD_BACKOFF_RATIO).floor()
    } else if f64::from(in_flight) * 2.0 >= current {
        current + 1.0
    } else {
        current
    };
    next.max(min).min(max)
}

/// `max(1, floor(log10(n)))`: Netflix's `Log10RootIntFunction`.
fn log10_root(limit: f64) -> f64 {
    let n = limit as u64;
    f64::from(n.checked_ilog10().unwrap_or(0).max(1))
}

/// Netflix `VegasLimit._update` and `updateEstimatedLimit`, with smoothing 1.
fn vegas(
    state: &mut Estimator,
    rtt: u64,
    in_flight: u32,
    dropped: bool,
    min: f64,
    max: f64,
) -> f64 {
    let estimate = state.estimate;
    if state.probe_jitter == 0.0 {
        state.probe_jitter = crate::seed::random_in(0.5, 1.0);
    }
    state.probe_count += 1;
    if state.probe_jitter * VEGAS_PROBE_MULTIPLIER * estimate <= state.probe_count as f64 {
        // Probe: take this RTT as the no-load one, in case the lowest seen
        // is stale (the dependency got slower for good).
        state.probe_jitter = crate::seed::random_in(0.5, 1.0);
        state.probe_count = 0;
        state.no_load_rtt = rtt;
        return estimate;
    }
    if state.no_load_rtt == 0 || rtt < state.no_load_rtt {
        state.no_load_rtt = rtt;
        return estimate;
    }
    let limit = estimate.floor();
    let queue = (estimate * (1.0 - state.no_load_rtt as f64 / rtt as f64)).ceil();
    let log = log10_root(limit);
    let next = if dropped {
        estimate - log
    } else if f64::from(in_flight) * 2.0 < estimate {
        // Far from the limit: no evidence that more would fit.
        return estimate;
    } else {
        let (alpha, beta, threshold) = (3.0 * log, 6.0 * log, log);
        if queue <= threshold {
            estimate + beta
        } else if queue < alpha {
            estimate + log
        } else if queue > beta {
            estimate - log
        } else {
            return estimate;
        }
    };
    next.min(max).max(min)
}

/// Netflix `Gradient2Limit._update`.
fn gradient2(state: &mut Estimator, rtt: u64, in_flight: u32, min: f64, max: f64) -> f64 {
    let estimate = state.estimate;
    let short_rtt = rtt as f64;
    // Netflix `ExpAvgMeasurement`: a plain average over the warm-up
    // samples, then an exponential one over the long window.
    if state.long_rtt_count < GRADIENT2_WARMUP_WINDOW {
        state.long_rtt_count += 1;
        state.long_rtt_sum += short_rtt;
        state.long_rtt = state.long_rtt_sum / f64::from(state.long_rtt_count);
    } else {
        let factor = 2.0 / (f64::from(GRADIENT2_LONG_WINDOW) + 1.0);
        state.long_rtt = state.long_rtt * (1.0 - factor) + short_rtt * factor;
    }
    let long_rtt = state.long_rtt;
    // After a long spell of load the long-term RTT stays high while the
    // RTT is back to normal: decay it faster than the average would.
    if long_rtt / short_rtt > 2.0 {
        state.long_rtt *= 0.95;
    }
    if f64::from(in_flight) < estimate / 2.0 {
        // Not using the limit: no evidence either way.
        return estimate;
    }
    let gradient = (GRADIENT2_RTT_TOLERANCE * long_rtt / short_rtt).clamp(0.5, 1.0);
    let next = estimate * gradient + GRADIENT2_QUEUE_SIZE;
    let next = estimate * (1.0 - GRADIENT2_SMOOTHING) + next * GRADIENT2_SMOOTHING;
    next.min(max).max(min)
}

impl Limiter for AdaptiveLimit {
    #[inline]
    fn try_acquire(&self, now: Instant) -> Result<(), LimitExceeded> {
        self.try_acquire_as(now, Priority::Medium)
    }

    fn try_acquire_as(&self, _now: Instant, priority: Priority) -> Result<(), LimitExceeded> {
        // The limit may move between its load and the count's swap; an
        // attempt admitted under the old limit is one sample late, as in
        // Netflix's limiters.
        self.in_flight.enter_as(
            self.name,
            || self.limit.load(Ordering::SeqCst),
            self.priorities.as_ref(),
            priority,
        )
    }

    fn release(&self, _now: Instant, rtt: Duration, completion: Completion) {
        let in_flight = self.in_flight.count();
        match completion {
            Completion::Succeeded => self.on_sample(rtt, in_flight, false),
            Completion::Dropped | Completion::Throttled => self.on_sample(rtt, in_flight, true),
            Completion::Unused => {}
        }
        self.in_flight.leave();
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn waiters(&self) -> Option<&Waiters> {
        Some(self.in_flight.waiters())
    }

    fn in_flight(&self) -> Option<u32> {
        Some(self.in_flight.count())
    }

    fn current_limit(&self) -> Option<u32> {
        Some(self.limit())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// Netflix concurrency-limits `concurrency-limits-core/src/test/java/com/
    /// netflix/concurrency/limits/limit/AIMDLimitTest.java`.
    #[test]
    fn netflix_aimd_limit_test() {
        // testDefault
        assert_eq!(AdaptiveLimit::aimd().initial(10).limit(), 10);
        // increaseOnSuccess
        let limit = AdaptiveLimit::aimd().initial(20);
        limit.on_sample(MS, 10, false);
        assert_eq!(limit.limit(), 21);
        // decreaseOnDrops
        let limit = AdaptiveLimit::aimd().initial(30);
        limit.on_sample(Duration::ZERO, 0, true);
        assert_eq!(limit.limit(), 27);
        // successOverflow
        let limit = AdaptiveLimit::aimd().initial(21).max(21).min(0);
        limit.on_sample(MS, 10, false);
        assert_eq!(limit.limit(), 21);
    }

    #[test]
    fn aimd_counts_a_slow_success_as_a_drop_and_ignores_an_idle_one() {
        let limit = AdaptiveLimit::aimd().initial(100);
        limit.on_sample(Duration::from_secs(6), 100, false);
        assert_eq!(limit.limit(), 90);
        limit.on_sample(MS, 10, false);
        assert_eq!(limit.limit(), 90, "10 in flight of 90: no evidence to grow");
    }

    /// Netflix concurrency-limits `concurrency-limits-core/src/test/java/com/
    /// netflix/concurrency/limits/limit/VegasLimitTest.java`. Its `create()`
    /// sets alpha 3 and beta 6, which the defaults give at limits 10 to 99.
    fn netflix_vegas() -> AdaptiveLimit {
        AdaptiveLimit::vegas().initial(10).max(20)
    }

    #[test]
    fn netflix_vegas_limit_test() {
        // initialLimit
        assert_eq!(netflix_vegas().limit(), 10);
        // increaseLimit
        let limit = netflix_vegas();
        limit.on_sample(MS * 10, 10, false);
        assert_eq!(limit.limit(), 10);
        limit.on_sample(MS * 10, 11, false);
        assert_eq!(limit.limit(), 16);
        // decreaseLimit
        let limit = netflix_vegas();
        limit.on_sample(MS * 10, 10, false);
        assert_eq!(limit.limit(), 10);
        limit.on_sample(MS * 50, 11, false);
        assert_eq!(limit.limit(), 9);
        // noChangeIfWithinThresholds
        let limit = netflix_vegas();
        limit.on_sample(MS * 10, 10, false);
        assert_eq!(limit.limit(), 10);
        limit.on_sample(MS * 14, 14, false);
        assert_eq!(limit.limit(), 10);
        // largeLimitIncrease
        let limit = AdaptiveLimit::vegas().initial(10_000).max(20_000);
        limit.on_sample(Duration::from_secs(10), 5000, false);
        assert_eq!(limit.limit(), 10_000);
        limit.on_sample(Duration::from_secs(10), 6000, false);
        assert_eq!(limit.limit(), 10_024);
    }

    #[test]
    fn vegas_shrinks_on_a_drop_but_not_below_one() {
        let limit = AdaptiveLimit::vegas().initial(2);
        limit.on_sample(MS * 10, 2, false);
        for _ in 0..5 {
            limit.on_sample(MS * 10, 2, true);
        }
        assert_eq!(limit.limit(), 1);
    }

    /// Netflix concurrency-limits has no test file for Gradient2; these
    /// values are worked by hand from `concurrency-limits-core/src/main/java/
    /// com/netflix/concurrency/limits/limit/Gradient2Limit.java` with its
    /// defaults (smoothing 0.2, queue 4, tolerance 1.5, long window 600
    /// after 10 warm-up samples, min 20, max 200).
    #[test]
    fn netflix_gradient2_steady_state_grows_by_the_queue_smoothed() {
        let limit = AdaptiveLimit::gradient2();
        // 20 × 0.8 + (20 × 1 + 4) × 0.2 = 20.8; then 21.6; then 22.4.
        limit.on_sample(MS * 10, 20, false);
        assert_eq!(limit.limit(), 20);
        limit.on_sample(MS * 10, 20, false);
        assert_eq!(limit.limit(), 21);
        limit.on_sample(MS * 10, 20, false);
        assert_eq!(limit.limit(), 22);
        // App-limited (in flight below half the limit): unchanged.
        limit.on_sample(MS * 10, 5, false);
        assert_eq!(limit.limit(), 22);
    }

    #[test]
    fn netflix_gradient2_halves_at_most_when_latency_jumps() {
        let limit = AdaptiveLimit::gradient2().initial(100);
        // Warm-up at 10 ms: the long RTT is 10 ms; 100 × 0.8 + 104 × 0.2 = 100.8.
        limit.on_sample(MS * 10, 100, false);
        assert_eq!(limit.limit(), 100);
        // At 100 ms, the long RTT is the average 55 ms: the gradient is
        // 1.5 × 55 / 100 = 0.825; 100.8 × 0.8 + (100.8 × 0.825 + 4) × 0.2 = 98.072.
        limit.on_sample(MS * 100, 100, false);
        assert_eq!(limit.limit(), 98);
        // At 1 s, the long RTT is 370 ms: the gradient is 0.555;
        // 98.072 × 0.8 + (98.072 × 0.555 + 4) × 0.2 = 90.143592.
        limit.on_sample(Duration::from_secs(1), 100, false);
        assert_eq!(limit.limit(), 90);
        // At 10 s, the long RTT is 2777.5 ms: the gradient floors at 0.5;
        // 90.143592 × 0.9 + 0.8 = 81.9292328.
        limit.on_sample(Duration::from_secs(10), 100, false);
        assert_eq!(limit.limit(), 81);
    }

    #[test]
    fn gradient2_stays_within_min_and_max() {
        let limit = AdaptiveLimit::gradient2().initial(30).min(25).max(31);
        for _ in 0..20 {
            limit.on_sample(MS * 10, 30, false);
        }
        assert_eq!(limit.limit(), 31);
        for _ in 0..50 {
            limit.on_sample(Duration::from_secs(10), 30, false);
        }
        assert_eq!(limit.limit(), 25);
    }

    #[test]
    fn admission_follows_the_limit_and_release_feeds_samples() {
        let limit = AdaptiveLimit::aimd().initial(2).min(1);
        let now = Instant::now();
        limit.try_acquire(now).unwrap();
        limit.try_acquire(now).unwrap();
        assert!(limit.try_acquire(now).is_err());
        // The sample sees 2 in flight of 2: a success grows the limit to 3.
        limit.release(now, MS, Completion::Succeeded);
        assert_eq!(limit.limit(), 3);
        assert_eq!(limit.in_flight(), Some(1));
        // A drop shrinks it to 2 (⌊3 × 0.9⌋); an unused permit teaches nothing.
        limit.try_acquire(now).unwrap();
        limit.release(now, MS, Completion::Dropped);
        assert_eq!(limit.limit(), 2);
        limit.release(now, MS, Completion::Unused);
        assert_eq!((limit.limit(), limit.in_flight()), (2, Some(0)));
    }

    #[test]
    fn samples_never_panic_on_extreme_numbers() {
        for limit in [
            AdaptiveLimit::aimd(),
            AdaptiveLimit::vegas(),
            AdaptiveLimit::gradient2(),
        ] {
            let limit = limit.initial(u32::MAX).min(0).max(u32::MAX);
            for rtt in [Duration::ZERO, Duration::MAX, MS, Duration::ZERO] {
                limit.on_sample(rtt, u32::MAX, false);
                limit.on_sample(rtt, 0, true);
            }
        }
    }

    /// A drop at a limit of 1 with a `min` of 0 would take AIMD to 0,
    /// which admits nothing and so never hears a sample again: at a `min`
    /// of 0 no algorithm goes below 1, whatever its samples, and each
    /// keeps admitting. A `max` or `initial` of 0 admits one attempt too.
    #[test]
    fn no_algorithm_locks_out_at_a_limit_of_zero() {
        let algorithms = [
            AdaptiveLimit::aimd,
            AdaptiveLimit::vegas,
            AdaptiveLimit::gradient2,
        ];
        let now = Instant::now();
        let aimd = AdaptiveLimit::aimd().initial(1).min(0);
        aimd.try_acquire(now).unwrap();
        aimd.release(now, MS, Completion::Dropped);
        assert_eq!(aimd.limit(), 1, "AIMD after a drop at 1");
        for (index, algorithm) in algorithms.into_iter().enumerate() {
            let limit = algorithm().initial(1).min(0);
            // Drops, and successes slower and slower: what shrinks a limit.
            for step in 1..50 {
                let rtt = Duration::from_millis(step * step * 10);
                limit.try_acquire(now).unwrap();
                limit.release(now, rtt, Completion::Dropped);
                limit.try_acquire(now).unwrap();
                limit.release(now, rtt * 2, Completion::Succeeded);
                assert!(limit.limit() >= 1, "algorithm {index} at {rtt:?}");
            }
            let zero = algorithm().initial(0).min(0).max(0);
            assert_eq!(zero.limit(), 1, "algorithm {index}: an initial 0 is 1");
            for _ in 0..3 {
                zero.try_acquire(now).unwrap();
                zero.release(now, MS, Completion::Dropped);
                assert_eq!(zero.limit(), 1, "algorithm {index}: a max of 0 is 1");
            }
        }
    }

    #[test]
    fn a_max_below_min_yields_to_min() {
        let limit = AdaptiveLimit::aimd().initial(10).min(8).max(4);
        limit.on_sample(MS, 10, true);
        assert_eq!(limit.limit(), 8);
        limit.on_sample(MS, 10, false);
        assert_eq!(limit.limit(), 8);
    }

    /// Eight threads admit and release through one limit while the samples
    /// move it: the count in flight returns to 0 and never passes the most
    /// the limit ever was.
    #[test]
    fn hammer_counts_in_flight_exactly() {
        let limit = AdaptiveLimit::aimd().initial(4).min(2).max(8);
        std::thread::scope(|scope| {
            for thread in 0..8u32 {
                let limit = &limit;
                scope.spawn(move || {
                    let now = Instant::now();
                    for round in 0..2_000u32 {
                        if limit.try_acquire(now).is_ok() {
                            assert!(limit.in_flight().unwrap() <= 8);
                            let completion = if (round + thread) % 7 == 0 {
                                Completion::Dropped
                            } else {
                                Completion::Succeeded
                            };
                            limit.release(now, MS, completion);
                        }
                    }
                });
            }
        });
        assert_eq!(limit.in_flight(), Some(0));
        assert!((2..=8).contains(&limit.limit()));
    }
}
