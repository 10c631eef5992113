//! [`Backoff`]: the delay before each retry, and [`Jitter`].
//!
//! Delay before retry `n` (1-based) is `min(base * multiplier^(n-1), max)`,
//! then jittered. Every input saturates at `max`: no attempt number,
//! multiplier or duration can make the computation panic.

use std::time::Duration;

use crate::error::ConfigError;

/// How a delay is randomised, to keep many clients from retrying in lockstep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Jitter {
    /// Uniform in `[0, delay]`: spreads retries the most.
    #[default]
    Full,
    /// Uniform in `[delay / 2, delay]`: keeps at least half the delay.
    Equal,
    /// The exact delay.
    None,
    /// AWS's "decorrelated jitter": each delay is drawn uniformly from
    /// `[base, previous × 3]`, the previous delay starting at `base`, and
    /// cut at `max`. It ignores the multiplier; the delays wander rather
    /// than grow in steps, and never drop below `base`.
    ///
    /// ```
    /// use resilient::{Backoff, Jitter};
    /// use std::time::Duration;
    ///
    /// let backoff = Backoff::exponential(Duration::from_secs(1), Duration::from_secs(10))
    ///     .jitter(Jitter::Decorrelated);
    /// // Uniform in [1 s, 3 s] after a first delay of 1 s; cut at 10 s.
    /// assert_eq!(backoff.delay_after(Some(Duration::from_secs(1)), 0.5), Duration::from_secs(2));
    /// assert_eq!(backoff.delay_after(Some(Duration::from_secs(8)), 1.0), Duration::from_secs(10));
    /// ```
    Decorrelated,
    /// Uniform in `[delay, 2 × delay]`, cut at `max`: the delay plus up to
    /// as much again. A delay at the cap is the cap; for jitter up to a
    /// largest delay `m`, give `max = 2m`, or see
    /// [`AdditiveUncapped`](Jitter::AdditiveUncapped).
    Additive,
    /// Uniform in `[delay, 2 × delay]` with the delay capped at `max` (and
    /// `max_delay`) *before* the jitter, so a jittered delay **may exceed
    /// the cap**, up to twice it: backon's `with_jitter()` exactly, whose
    /// delays at a 180 s cap spread over 180–360 s. For a loop that
    /// retries for ever at the cap and must keep spreading its callers.
    ///
    /// ```
    /// use resilient::{Backoff, Jitter};
    /// use std::time::Duration;
    ///
    /// let at_the_cap = Backoff::exponential(Duration::from_secs(180), Duration::from_secs(180))
    ///     .jitter(Jitter::AdditiveUncapped);
    /// assert_eq!(at_the_cap.delay(9, 0.5), Duration::from_secs(270));
    /// ```
    AdditiveUncapped,
}

/// The delay schedule between retries.
///
/// ```
/// use resilient::{Backoff, Jitter};
/// use std::time::Duration;
///
/// let backoff = Backoff::exponential(Duration::from_secs(1), Duration::from_secs(5))
///     .jitter(Jitter::None);
/// let delays: Vec<_> = (1..=4).map(|n| backoff.nominal_delay(n)).collect();
/// assert_eq!(delays, [1, 2, 4, 5].map(Duration::from_secs));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    base: Duration,
    max: Duration,
    multiplier: f64,
    jitter: Jitter,
}

impl Backoff {
    /// The first delay of the default backoff: 100 ms.
    ///
    /// ```
    /// use resilient::Backoff;
    /// use std::time::Duration;
    ///
    /// assert_eq!(Backoff::DEFAULT_BASE, Duration::from_millis(100));
    /// assert_eq!(Backoff::default().base(), Backoff::DEFAULT_BASE);
    /// ```
    pub const DEFAULT_BASE: Duration = Duration::from_millis(100);

    /// The largest delay of the default backoff: 10 s.
    ///
    /// ```
    /// use resilient::Backoff;
    /// use std::time::Duration;
    ///
    /// assert_eq!(Backoff::DEFAULT_MAX, Duration::from_secs(10));
    /// assert_eq!(Backoff::default().max(), Backoff::DEFAULT_MAX);
    /// ```
    pub const DEFAULT_MAX: Duration = Duration::from_secs(10);

    /// No delay between retries.
    pub const fn none() -> Backoff {
        Backoff::constant(Duration::ZERO)
    }

    /// The same delay before every retry, without jitter.
    pub const fn constant(delay: Duration) -> Backoff {
        Backoff {
            base: delay,
            max: delay,
            multiplier: 1.0,
            jitter: Jitter::None,
        }
    }

    /// `base`, doubling before each retry up to `max`, with full jitter.
    pub const fn exponential(base: Duration, max: Duration) -> Backoff {
        Backoff {
            base,
            max,
            multiplier: 2.0,
            jitter: Jitter::Full,
        }
    }

    /// Sets the growth factor between retries (default 2.0). Builders reject
    /// values below 1 or NaN; an operation built without validation treats
    /// them as 1.
    pub const fn multiplier(mut self, multiplier: f64) -> Backoff {
        self.multiplier = multiplier;
        self
    }

    /// Sets the jitter.
    pub const fn jitter(mut self, jitter: Jitter) -> Backoff {
        self.jitter = jitter;
        self
    }

    /// The same backoff, checked: in a `const` or `static`, a multiplier
    /// below 1 (or NaN) or a base above the max is a compile error; a
    /// panic at run time. A policy's `build` checks its backoff anyway;
    /// this is for a backoff kept on its own.
    ///
    /// ```
    /// use resilient::Backoff;
    /// use std::time::Duration;
    ///
    /// const BACKOFF: Backoff = Backoff::exponential(Duration::from_millis(50), Duration::from_secs(5))
    ///     .multiplier(3.0)
    ///     .checked();
    /// assert_eq!(BACKOFF.nominal_delay(2), Duration::from_millis(150));
    /// ```
    ///
    /// ```compile_fail
    /// use resilient::Backoff;
    /// use std::time::Duration;
    ///
    /// const BACKOFF: Backoff = Backoff::exponential(Duration::from_secs(1), Duration::from_secs(5))
    ///     .multiplier(0.5)
    ///     .checked();
    /// ```
    ///
    /// # Panics
    ///
    /// When the backoff is invalid, with the reason.
    #[track_caller]
    pub const fn checked(self) -> Backoff {
        match self.validate() {
            Ok(()) => self,
            Err(error) => panic!("{}", error.const_message()),
        }
    }

    /// The first delay.
    pub const fn base(&self) -> Duration {
        self.base
    }

    /// The largest delay.
    pub const fn max(&self) -> Duration {
        self.max
    }

    #[cfg(any(feature = "config", feature = "dashboard"))]
    pub(crate) const fn multiplier_value(&self) -> f64 {
        self.multiplier
    }

    pub(crate) const fn jitter_kind(&self) -> Jitter {
        self.jitter
    }

    /// The same schedule with a multiplier below 1 (or NaN) counted as 1,
    /// as an operation built without validation treats it.
    pub(crate) const fn clamped(mut self) -> Backoff {
        // `<` and `<=` are the same here: 1 is replaced by 1.
        if self.multiplier.is_nan() || self.multiplier < 1.0 {
            self.multiplier = 1.0;
        }
        self
    }

    pub(crate) const fn validate(&self) -> Result<(), ConfigError> {
        if !(self.multiplier.is_finite() && self.multiplier >= 1.0) {
            return Err(ConfigError::InvalidMultiplier(self.multiplier));
        }
        if self.base.as_nanos() > self.max.as_nanos() {
            return Err(ConfigError::BaseAboveMax {
                base: self.base,
                max: self.max,
            });
        }
        Ok(())
    }

    /// The delay before retry `retry` (1-based), before jitter.
    pub fn nominal_delay(&self, retry: u32) -> Duration {
        // A shortcut: with `&&`, a zero base still grows to zero and a
        // zero max still caps at zero.
        if self.base.is_zero() || self.max.is_zero() {
            return Duration::ZERO;
        }
        let cap = self.max;
        // A multiplier that is NaN or below 1 counts as 1 (see `multiplier`).
        let multiplier = if self.multiplier >= 1.0 {
            self.multiplier
        } else {
            1.0
        };
        let exponent = i32::try_from(retry.saturating_sub(1)).unwrap_or(i32::MAX);
        let secs = self.base.as_secs_f64() * multiplier.powi(exponent);
        // Infinity and NaN compare as not-less: both saturate at the cap.
        if secs.partial_cmp(&cap.as_secs_f64()) != Some(std::cmp::Ordering::Less) {
            return cap;
        }
        Duration::try_from_secs_f64(secs).map_or(cap, |d| d.min(cap))
    }

    /// The delay before retry `retry` (1-based), jittered with `sample`, a
    /// number drawn uniformly from `[0, 1)`: full jitter gives
    /// `nominal * sample`, equal jitter `nominal / 2 * (1 + sample)`.
    /// Samples outside `[0, 1]` (or NaN) are cut to that range.
    ///
    /// ```
    /// use resilient::{Backoff, Jitter};
    /// use std::time::Duration;
    ///
    /// let backoff = Backoff::exponential(Duration::from_secs(1), Duration::from_secs(60));
    /// assert_eq!(backoff.delay(3, 0.5), Duration::from_secs(2));
    /// let equal = backoff.jitter(Jitter::Equal);
    /// assert_eq!(equal.delay(3, 0.5), Duration::from_secs(3));
    /// ```
    pub fn delay(&self, retry: u32, sample: f64) -> Duration {
        self.jitter_nominal(self.nominal_delay(retry), None, sample)
    }

    /// The delay of [`Jitter::Decorrelated`] after a backoff delay of
    /// `previous` (`None` before the first retry), with `sample` drawn
    /// uniformly from `[0, 1)`: `min(max, base + (min(max, previous × 3)
    /// − base) × sample)`. The other jitters don't look at `previous`:
    /// theirs is [`delay`](Backoff::delay) of the next retry.
    pub fn delay_after(&self, previous: Option<Duration>, sample: f64) -> Duration {
        let sample = unit(sample);
        let low = self.base.min(self.max);
        let high = previous
            .unwrap_or(self.base)
            .max(low)
            .saturating_mul(3)
            .min(self.max);
        low.saturating_add(scale(high.saturating_sub(low), sample))
    }

    /// `nominal` jittered with `sample`, as [`delay`](Backoff::delay) does;
    /// `previous` is the backoff delay before, which only decorrelated
    /// jitter reads.
    pub(crate) fn jitter_nominal(
        &self,
        nominal: Duration,
        previous: Option<Duration>,
        sample: f64,
    ) -> Duration {
        let sample = unit(sample);
        match self.jitter {
            Jitter::None => nominal,
            _ if nominal.is_zero() => nominal,
            Jitter::Full => scale(nominal, sample),
            Jitter::Equal => {
                let half = nominal / 2;
                half.saturating_add(scale(nominal - half, sample))
            }
            Jitter::Decorrelated => self.delay_after(previous, sample),
            Jitter::Additive => nominal.saturating_add(scale(nominal, sample)).min(self.max),
            Jitter::AdditiveUncapped => nominal.saturating_add(scale(nominal, sample)),
        }
    }
}

impl Default for Backoff {
    /// Exponential from [`DEFAULT_BASE`](Backoff::DEFAULT_BASE) (100 ms) to
    /// [`DEFAULT_MAX`](Backoff::DEFAULT_MAX) (10 s), multiplier 2, full jitter.
    fn default() -> Self {
        Backoff::exponential(Backoff::DEFAULT_BASE, Backoff::DEFAULT_MAX)
    }
}

/// `sample` cut to `[0, 1]`, NaN to 0.
fn unit(sample: f64) -> f64 {
    if sample >= 0.0 { sample.min(1.0) } else { 0.0 }
}

/// `duration * fraction` for a fraction in `[0, 1]`, never above `duration`.
fn scale(duration: Duration, fraction: f64) -> Duration {
    Duration::try_from_secs_f64(duration.as_secs_f64() * fraction)
        .map_or(duration, |d| d.min(duration))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples spread over `[0, 1)`, the same on every run.
    fn samples(n: u32) -> impl Iterator<Item = f64> {
        (0..n).map(move |i| f64::from(i) / f64::from(n))
    }

    const fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    #[test]
    fn clamped_counts_a_multiplier_below_one_or_nan_as_one_and_keeps_the_rest() {
        let b = Backoff::exponential(secs(1), secs(10));
        for (given, kept) in [
            (0.5, 1.0),
            (-3.0, 1.0),
            (f64::NAN, 1.0),
            (1.0, 1.0),
            (1.5, 1.5),
        ] {
            let clamped = b.multiplier(given).clamped();
            assert_eq!(clamped, b.multiplier(kept), "multiplier {given}");
        }
        assert_eq!(
            b.multiplier(f64::INFINITY).clamped().multiplier,
            f64::INFINITY
        );
    }

    #[test]
    fn a_zero_delay_stays_zero_whatever_the_jitter_and_the_delay_before() {
        for jitter in [
            Jitter::Full,
            Jitter::Equal,
            Jitter::Decorrelated,
            Jitter::Additive,
            Jitter::AdditiveUncapped,
        ] {
            let b = Backoff::exponential(Duration::ZERO, secs(10)).jitter(jitter);
            for previous in [None, Some(secs(2))] {
                let delay = b.jitter_nominal(Duration::ZERO, previous, 0.5);
                assert_eq!(delay, Duration::ZERO, "{jitter:?} after {previous:?}");
            }
        }
    }

    #[test]
    fn exponential_grows_then_caps_at_max() {
        let b = Backoff::exponential(secs(1), secs(10)).jitter(Jitter::None);
        let got: Vec<_> = (1..=6).map(|n| b.nominal_delay(n)).collect();
        assert_eq!(got, [1, 2, 4, 8, 10, 10].map(secs));
    }

    #[test]
    fn huge_inputs_saturate_at_max() {
        let b = Backoff::exponential(secs(1), secs(60)).multiplier(1e9);
        for n in [1, 2, 3, 10_000, u32::MAX] {
            assert!(b.delay(n, 0.999) <= secs(60));
        }
        assert_eq!(b.delay(u32::MAX, f64::INFINITY), secs(60));
        assert_eq!(b.delay(u32::MAX, f64::NAN), Duration::ZERO);
        let b = Backoff::exponential(Duration::MAX, Duration::MAX).multiplier(f64::MAX);
        assert_eq!(b.nominal_delay(u32::MAX), Duration::MAX);
        assert_eq!(b.nominal_delay(1), Duration::MAX);
    }

    #[test]
    fn invalid_multiplier_counts_as_one_at_run_time() {
        for m in [f64::NAN, 0.5, -3.0] {
            let b = Backoff::exponential(secs(2), secs(60)).multiplier(m);
            assert_eq!(b.nominal_delay(5), secs(2), "multiplier {m}");
            assert!(b.validate().is_err());
        }
        assert_eq!(
            Backoff::exponential(secs(2), secs(1)).validate(),
            Err(ConfigError::BaseAboveMax {
                base: secs(2),
                max: secs(1)
            })
        );
    }

    #[test]
    fn full_jitter_stays_within_zero_and_nominal() {
        let b = Backoff::exponential(secs(1), secs(30));
        for n in 1..200 {
            for sample in samples(10) {
                assert!(b.delay(n, sample) <= b.nominal_delay(n));
            }
        }
        assert_eq!(b.delay(2, 0.25), Duration::from_millis(500));
    }

    #[test]
    fn equal_jitter_keeps_at_least_half() {
        let b = Backoff::exponential(secs(4), secs(4)).jitter(Jitter::Equal);
        for sample in samples(1000) {
            let d = b.delay(1, sample);
            assert!(d >= secs(2) && d <= secs(4), "{d:?}");
        }
        assert_eq!(b.delay(1, 0.0), secs(2));
    }

    #[test]
    fn decorrelated_jitter_draws_between_base_and_three_times_the_previous_delay() {
        let b = Backoff::exponential(secs(1), secs(10)).jitter(Jitter::Decorrelated);
        // Before the first retry, the previous delay counts as the base.
        assert_eq!(b.delay_after(None, 0.0), secs(1));
        assert_eq!(b.delay_after(None, 1.0), secs(3));
        assert_eq!(
            b.delay_after(Some(secs(2)), 0.5),
            Duration::from_millis(3_500)
        );
        // Cut at max, and never below base, whatever came before.
        assert_eq!(b.delay_after(Some(secs(9)), 1.0), secs(10));
        assert_eq!(b.delay_after(Some(Duration::ZERO), 1.0), secs(3));
        assert_eq!(
            b.delay_after(Some(Duration::MAX), 0.999),
            b.delay_after(Some(secs(10)), 0.999)
        );
        assert_eq!(
            b.jitter_nominal(secs(4), Some(secs(2)), 0.5),
            Duration::from_millis(3_500)
        );
    }

    #[test]
    fn additive_jitter_adds_up_to_the_delay_again_within_max() {
        let b = Backoff::exponential(secs(1), secs(10)).jitter(Jitter::Additive);
        assert_eq!(b.delay(1, 0.0), secs(1));
        assert_eq!(b.delay(2, 0.5), secs(3));
        assert_eq!(b.delay(3, 1.0), secs(8));
        assert_eq!(b.delay(4, 1.0), secs(10), "cut at max");
        assert_eq!(b.delay(u32::MAX, f64::NAN), secs(10));
    }

    #[test]
    fn checked_passes_a_valid_backoff_through() {
        const B: Backoff = Backoff::exponential(secs(1), secs(10))
            .multiplier(3.0)
            .checked();
        assert_eq!(B.nominal_delay(3), secs(9));
        assert!(
            std::panic::catch_unwind(|| Backoff::exponential(secs(2), secs(1)).checked()).is_err()
        );
    }

    #[test]
    fn constant_and_none() {
        assert_eq!(Backoff::constant(secs(3)).delay(9, 0.3), secs(3));
        assert_eq!(Backoff::none().delay(9, 0.3), Duration::ZERO);
    }
}
