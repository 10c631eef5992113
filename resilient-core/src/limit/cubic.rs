//! [`AdaptiveRate`]: the AWS SDKs' "adaptive" retry mode, a client-side
//! token bucket that stays off until the first throttling response, then
//! follows CUBIC: a throttle cuts the rate to 0.7 of what was measured, and
//! successes grow it back along a cubic curve. Constants and arithmetic as
//! in smithy-rs `aws-smithy-runtime/src/client/retries/client_rate_limiter.rs`.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{Completion, LimitExceeded, Limiter};

/// The tokens one attempt costs.
const ATTEMPT_COST: f64 = 1.0;
const MIN_FILL_RATE: f64 = 0.5;
const MIN_CAPACITY: f64 = 1.0;
/// The weight of the newest half-second in the measured send rate.
const SMOOTH: f64 = 0.8;
/// The share of the rate kept after a throttle.
const BETA: f64 = 0.7;
/// How fast the rate grows back after a throttle.
const SCALE_CONSTANT: f64 = 0.4;

/// A client-side rate limit that engages when the dependency throttles:
/// off (admitting everything) until the first throttling response, then a
/// token bucket whose rate drops to 0.7 of the measured send rate at each
/// throttle and climbs back along a cubic curve while attempts succeed.
///
/// The engine reports an attempt whose error carried a Retry-After hint
/// as [`Completion::Throttled`]; another verdict can be fed with
/// [`on_response`](AdaptiveRate::on_response).
///
/// ```
/// use resilient::limit::{AdaptiveRate, Limiter};
/// use std::time::{Duration, Instant};
///
/// static PROVIDER: AdaptiveRate = AdaptiveRate::new().named("provider");
///
/// let start = Instant::now();
/// assert_eq!(PROVIDER.rate(), None, "off until throttled");
/// assert!(PROVIDER.try_acquire(start).is_ok());
///
/// PROVIDER.on_response(start, true);
/// assert_eq!(PROVIDER.rate(), Some(0.5), "the floor: nothing was measured yet");
/// let refusal = PROVIDER.try_acquire(start + Duration::from_millis(100)).unwrap_err();
/// assert_eq!(refusal.retry_after(), Some(Duration::from_millis(1900)));
/// ```
#[derive(Debug)]
pub struct AdaptiveRate {
    bucket: Mutex<Bucket>,
    name: &'static str,
}

/// smithy-rs `ClientRateLimiter`'s `Inner`, with times in seconds since
/// the first instant the limiter saw.
#[derive(Debug, Clone, PartialEq)]
struct Bucket {
    origin: Option<Instant>,
    /// Tokens added a second.
    fill_rate: f64,
    max_capacity: f64,
    current_capacity: f64,
    last_timestamp: Option<f64>,
    /// Off until the first throttle.
    enabled: bool,
    /// The smoothed send rate, measured over half-second buckets.
    measured_tx_rate: f64,
    last_tx_rate_bucket: f64,
    request_count: u64,
    /// The rate when the last throttle came, and when it came.
    last_max_rate: f64,
    time_of_last_throttle: f64,
}

impl Default for AdaptiveRate {
    fn default() -> Self {
        Self::new()
    }
}

impl AdaptiveRate {
    /// Off until the first throttling response, named `"adaptive_rate"`.
    ///
    /// ```
    /// use resilient::limit::AdaptiveRate;
    ///
    /// static RATE: AdaptiveRate = AdaptiveRate::new();
    /// assert_eq!(RATE.rate(), None);
    /// ```
    pub const fn new() -> AdaptiveRate {
        AdaptiveRate {
            bucket: Mutex::new(Bucket::new()),
            name: "adaptive_rate",
        }
    }

    /// The same limiter under another name, for [`LimitExceeded`] and the
    /// metrics.
    ///
    /// ```
    /// use resilient::limit::{AdaptiveRate, Limiter};
    ///
    /// assert_eq!(AdaptiveRate::new().named("s3").name(), "s3");
    /// ```
    pub const fn named(mut self, name: &'static str) -> AdaptiveRate {
        self.name = name;
        self
    }

    /// Feeds one response at `now`: `throttled` if the dependency asked to
    /// slow down.
    ///
    /// ```
    /// use resilient::limit::AdaptiveRate;
    /// use std::time::Instant;
    ///
    /// let rate = AdaptiveRate::new();
    /// rate.on_response(Instant::now(), false);
    /// assert_eq!(rate.rate(), None, "successes alone never engage it");
    /// ```
    pub fn on_response(&self, now: Instant, throttled: bool) {
        let mut bucket = self.lock();
        let seconds = bucket.seconds(now);
        bucket.update(seconds, throttled);
    }

    /// The rate in force, in attempts a second, once a throttle engaged
    /// it; `None` before.
    ///
    /// ```
    /// use resilient::limit::AdaptiveRate;
    /// use std::time::Instant;
    ///
    /// let rate = AdaptiveRate::new();
    /// rate.on_response(Instant::now(), true);
    /// assert_eq!(rate.rate(), Some(0.5));
    /// ```
    pub fn rate(&self) -> Option<f64> {
        let bucket = self.lock();
        bucket.enabled.then_some(bucket.fill_rate)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Bucket> {
        self.bucket.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Bucket {
    const fn new() -> Bucket {
        Bucket {
            origin: None,
            fill_rate: 0.0,
            max_capacity: f64::MAX,
            current_capacity: 0.0,
            last_timestamp: None,
            enabled: false,
            measured_tx_rate: 0.0,
            last_tx_rate_bucket: 0.0,
            request_count: 0,
            last_max_rate: 0.0,
            time_of_last_throttle: 0.0,
        }
    }

    /// `now` in seconds since the first instant this bucket saw.
    fn seconds(&mut self, now: Instant) -> f64 {
        let origin = *self.origin.get_or_insert(now);
        now.saturating_duration_since(origin).as_secs_f64()
    }

    /// Takes one token, or says how long until there is one.
    fn acquire(&mut self, seconds: f64) -> Result<(), Duration> {
        if !self.enabled {
            return Ok(());
        }
        self.refill(seconds);
        if ATTEMPT_COST <= self.current_capacity {
            self.current_capacity -= ATTEMPT_COST;
            return Ok(());
        }
        let wait = (ATTEMPT_COST - self.current_capacity) / self.fill_rate;
        match Duration::try_from_secs_f64(wait) {
            // A shortfall below a nanosecond would ask for a wait of zero
            // forever: grant it, keeping the capacity non-negative.
            Ok(Duration::ZERO) => {
                self.current_capacity = (self.current_capacity - ATTEMPT_COST).max(0.0);
                Ok(())
            }
            Ok(wait) => Err(wait),
            Err(_) => Err(Duration::MAX),
        }
    }

    fn update(&mut self, seconds: f64, throttled: bool) {
        self.measure_tx_rate(seconds);
        let rate = if throttled {
            let rate_to_use = if self.enabled {
                self.measured_tx_rate.min(self.fill_rate)
            } else {
                self.measured_tx_rate
            };
            self.last_max_rate = rate_to_use;
            self.time_of_last_throttle = seconds;
            self.enabled = true;
            cubic_throttle(rate_to_use)
        } else {
            self.cubic_success(seconds)
        };
        let rate = rate.min(2.0 * self.measured_tx_rate);
        self.refill(seconds);
        self.fill_rate = rate.max(MIN_FILL_RATE);
        self.max_capacity = rate.max(MIN_CAPACITY);
        self.current_capacity = self.current_capacity.min(self.max_capacity);
    }

    fn refill(&mut self, seconds: f64) {
        if let Some(last) = self.last_timestamp {
            let fill = (seconds - last) * self.fill_rate;
            self.current_capacity = self.max_capacity.min(self.current_capacity + fill);
        }
        self.last_timestamp = Some(seconds);
    }

    fn measure_tx_rate(&mut self, seconds: f64) {
        let bucket = (seconds * 2.0).floor() / 2.0;
        self.request_count += 1;
        if bucket > self.last_tx_rate_bucket {
            let rate = self.request_count as f64 / (bucket - self.last_tx_rate_bucket);
            self.measured_tx_rate = rate * SMOOTH + self.measured_tx_rate * (1.0 - SMOOTH);
            self.request_count = 0;
            self.last_tx_rate_bucket = bucket;
        }
    }

    /// How long after a throttle the cubic curve is back at the rate the
    /// throttle cut.
    fn time_window(&self) -> f64 {
        (self.last_max_rate * (1.0 - BETA) / SCALE_CONSTANT).cbrt()
    }

    fn cubic_success(&self, seconds: f64) -> f64 {
        let dt = seconds - self.time_of_last_throttle - self.time_window();
        SCALE_CONSTANT * dt.powi(3) + self.last_max_rate
    }
}

fn cubic_throttle(rate: f64) -> f64 {
    rate * BETA
}

impl Limiter for AdaptiveRate {
    fn try_acquire(&self, now: Instant) -> Result<(), LimitExceeded> {
        let mut bucket = self.lock();
        let seconds = bucket.seconds(now);
        bucket.acquire(seconds).map_err(|wait| {
            let after = (wait != Duration::MAX).then_some(wait);
            LimitExceeded::new(self.name, after)
        })
    }

    fn release(&self, now: Instant, _rtt: Duration, completion: Completion) {
        match completion {
            Completion::Throttled => self.on_response(now, true),
            Completion::Succeeded | Completion::Dropped => self.on_response(now, false),
            Completion::Unused => {}
        }
    }

    fn name(&self) -> &'static str {
        self.name
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    //! Ported from smithy-rs `rust-runtime/aws-smithy-runtime/src/client/
    //! retries/client_rate_limiter.rs`, whose vectors come from the AWS SDK
    //! for Go v2 (`aws/retry/adaptive_ratelimit_test.go`).

    use super::*;

    fn assert_close(expected: f64, actual: f64) {
        let scale = expected.abs().max(actual.abs()).max(1.0);
        assert!(
            (expected - actual).abs() <= 1e-9 * scale,
            "expected {expected}, got {actual}"
        );
    }

    /// A bucket last throttled at `at` while sending `rate` a second.
    fn throttled_at(at: f64, rate: f64) -> Bucket {
        Bucket {
            time_of_last_throttle: at,
            last_max_rate: rate,
            ..Bucket::new()
        }
    }

    /// `should_match_beta_decrease`.
    #[test]
    fn smithy_should_match_beta_decrease() {
        assert_close(7.0, cubic_throttle(10.0));
        assert_close(7.0, throttled_at(1.0, 10.0).cubic_success(1.0));
    }

    /// `throttling_is_enabled_once_throttling_error_is_received`.
    #[test]
    fn smithy_throttling_is_enabled_once_throttling_error_is_received() {
        let mut bucket = Bucket::new();
        assert!(!bucket.enabled);
        bucket.update(0.0, true);
        assert!(bucket.enabled);
    }

    /// `test_calculated_rate_with_successes`: the success curve from t = 5
    /// to 11.
    #[test]
    fn smithy_calculated_rate_with_successes() {
        let bucket = throttled_at(5.0, 10.0);
        let curve = [
            (5.0, 7.0),
            (6.0, 9.64893600966),
            (7.0, 10.000030849917364),
            (8.0, 10.453284520772092),
            (9.0, 13.408697022224185),
            (10.0, 21.26626835427364),
            (11.0, 36.425998516920465),
        ];
        for (seconds, rate) in curve {
            assert_close(rate, bucket.cubic_success(seconds));
        }
    }

    /// `test_calculated_rate_with_throttles`.
    #[test]
    fn smithy_calculated_rate_with_throttles() {
        let mut bucket = throttled_at(5.0, 10.0);
        let attempts = [
            (false, 5.0, 7.0),
            (false, 6.0, 9.64893600966),
            (true, 7.0, 6.754255206761999),
            (true, 8.0, 4.727978644733399),
            (false, 9.0, 4.670125557970046),
            (false, 10.0, 4.770870456867401),
            (false, 11.0, 6.011819748005445),
            (false, 12.0, 10.792973431384178),
        ];
        let mut rate = 0.0;
        for (throttled, seconds, expected) in attempts {
            if throttled {
                rate = cubic_throttle(rate);
                bucket.time_of_last_throttle = seconds;
                bucket.last_max_rate = rate;
            } else {
                rate = bucket.cubic_success(seconds);
            }
            assert_close(expected, rate);
        }
    }

    /// `test_client_sending_rates`: an attempt every 200 ms, throttled at
    /// 2.0 s and 3.2 s; the measured send rate and the fill rate after each.
    #[test]
    fn smithy_client_sending_rates() {
        let mut bucket = Bucket::new();
        let attempts = [
            (false, 0.2, 0.0, 0.5),
            (false, 0.4, 0.0, 0.5),
            (false, 0.6, 4.800000000000001, 0.5),
            (false, 0.8, 4.800000000000001, 0.5),
            (false, 1.0, 4.16, 0.5),
            (false, 1.2, 4.16, 0.6912),
            (false, 1.4, 4.16, 1.0975999999999997),
            (false, 1.6, 5.632000000000001, 1.6384000000000005),
            (false, 1.8, 5.632000000000001, 2.3328),
            (true, 2.0, 4.3264, 3.0284799999999996),
            (false, 2.2, 4.3264, 3.48663917347026),
            (false, 2.4, 4.3264, 3.821874416040255),
            (false, 2.6, 5.66528, 4.053385727709987),
            (false, 2.8, 5.66528, 4.200373108479454),
            (false, 3.0, 4.333056, 4.282036558348658),
            (true, 3.2, 4.333056, 2.99742559084406),
            (false, 3.4, 4.333056, 3.4522263943863463),
        ];
        for (throttled, at, measured, fill) in attempts {
            bucket.update(at, throttled);
            assert_close(measured, bucket.measured_tx_rate);
            assert_close(fill, bucket.fill_rate);
        }
    }

    /// `test_capacity_never_goes_negative` and
    /// `test_acquire_succeeds_after_sufficient_refill`.
    #[test]
    fn smithy_capacity_never_goes_negative_and_refills() {
        let mut bucket = Bucket::new();
        bucket.update(0.0, true);
        // 0.5 tokens a second, 0.1 s later: 0.05 tokens, 1.9 s short of one.
        let wait = bucket.acquire(0.1).unwrap_err();
        assert_close(1.9, wait.as_secs_f64());
        assert_close(0.05, bucket.current_capacity);
        assert_eq!(bucket.acquire(2.1), Ok(()));
        assert_close(0.0, bucket.current_capacity);
    }

    /// `test_sub_nanosecond_shortfall_grants_instead_of_returning_zero_delay`.
    #[test]
    fn smithy_sub_nanosecond_shortfall_grants() {
        let mut bucket = Bucket::new();
        bucket.update(0.0, true);
        bucket.current_capacity = ATTEMPT_COST - 1e-12;
        bucket.last_timestamp = Some(0.5);
        assert_eq!(bucket.acquire(0.5), Ok(()));
        assert!(bucket.current_capacity >= 0.0);
    }

    /// `test_multi_task_recovery_after_throttle_blip`: 50 tasks throttled at
    /// once, then 20 s of rounds every 100 ms; the rate recovers.
    #[test]
    fn smithy_multi_task_recovery_after_throttle_blip() {
        let mut bucket = Bucket::new();
        let mut time = 0.0;
        for _ in 0..50 {
            time += 0.001;
            bucket.update(time, true);
        }
        assert!((bucket.fill_rate - 0.5).abs() < 0.01);
        let mut total = 0;
        for _ in 0..200 {
            time += 0.1;
            let admitted = (0..50)
                .filter(|task| bucket.acquire(time + f64::from(*task) * 0.0001).is_ok())
                .count();
            for _ in 0..admitted {
                time += 0.001;
                bucket.update(time, false);
            }
            total += admitted;
        }
        assert!(total > 100, "only {total} admitted");
        assert!(bucket.current_capacity >= 0.0);
    }

    #[test]
    fn limiter_reads_instants_from_its_first_one_and_learns_from_releases() {
        let rate = AdaptiveRate::new();
        let start = Instant::now();
        assert!(rate.try_acquire(start).is_ok());
        rate.release(start, Duration::ZERO, Completion::Unused);
        assert_eq!(rate.rate(), None);
        rate.release(start, Duration::ZERO, Completion::Throttled);
        assert_eq!(rate.rate(), Some(0.5));
        // Refills from the throttle: one token after 2 s, none left after.
        let later = start + Duration::from_secs(2);
        assert!(rate.try_acquire(later).is_ok());
        assert_eq!(
            rate.try_acquire(later),
            Err(LimitExceeded::new(
                "adaptive_rate",
                Some(Duration::from_secs(2))
            ))
        );
    }
}
