//! [`Settings`]: the plain data of a retry configuration, its one set of
//! defaults, and the two ways a value is made safe: [`Settings::validate`]
//! for builders, which return `Err(ConfigError)`, and [`Settings::clamped`]
//! for operations built on every call, which have no error to return.
//!
//! The setters that write these fields are declared once, by
//! [`settings_setters!`], for every type that carries a `Settings`.

use std::time::Duration;

use crate::backoff::Backoff;
use crate::deadline::Nested;
use crate::error::ConfigError;
use crate::time::Nanos;

/// Default total time the Retry-After path may wait.
pub const DEFAULT_MAX_RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// Default number of retries the Retry-After path may add.
pub const DEFAULT_MAX_RATE_LIMIT_RETRIES: u32 = 10;

/// How many attempt records a report keeps unless told otherwise: the
/// first 32 and the last 32.
pub(crate) const DEFAULT_MAX_RECORDS: u16 = 64;

/// The longest wait or deadline the engine uses: 584 years, what the report
/// can record exactly. Longer values (`Duration::MAX`) are cut to it, so the
/// report always shows what was slept and granted.
pub(crate) const LONGEST: Duration = Duration::from_nanos(u64::MAX - 1);

/// The plain data of a policy. `Copy`, so operations take it by value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Settings {
    pub(crate) max_attempts: u32,
    pub(crate) backoff: Backoff,
    pub(crate) budget: Option<Duration>,
    pub(crate) max_elapsed: Option<Duration>,
    /// The longest delay before a retry, whatever the backoff says.
    pub(crate) max_delay: Nanos,
    pub(crate) min_retries: u32,
    /// In nanoseconds, as the hints it bounds are capped (`LONGEST`): a
    /// field of 8 bytes, where a `Duration` takes 16.
    pub(crate) max_retry_after_wait: Nanos,
    pub(crate) max_retry_after_retries: u32,
    /// The jitter's seed, when `seeded`: two fields rather than an
    /// `Option<u64>`, whose tag would take 8 bytes where `seeded` takes 1.
    pub(crate) seed: u64,
    /// Time allowed to each attempt: set on an operation (by the attribute,
    /// the layer or by hand), never by a `RetryPolicy`, whose runs are not
    /// cut at a deadline.
    pub(crate) timeout: Option<Duration>,
    /// The run's report is handed to the hook and the metrics by its
    /// caller, not by the run (an idempotent call, which completes it).
    pub(crate) report_deferred: bool,
    /// What the calls made inside an attempt do with a retryable failure of
    /// their own.
    pub(crate) nested: Nested,
    /// The attempts can't change, whatever the installed configuration
    /// says: a request the tower layer can't copy is sent once.
    pub(crate) attempts_fixed: bool,
    /// Its caller makes each attempt's `tracing` span (the tower layer,
    /// the reqwest middleware): the engine makes none.
    pub(crate) spans_elsewhere: bool,
    /// The most attempt records a report keeps (see
    /// [`ExecutionReport::attempts`](crate::ExecutionReport::attempts)),
    /// at most 65 535: 2 bytes, in what was padding, so that the futures
    /// that hold settings stay their size.
    pub(crate) max_records: u16,
    pub(crate) seeded: bool,
    /// The call's priority, for the limiters that shed by priority.
    pub(crate) priority: crate::priority::Priority,
}

impl Settings {
    /// One attempt, exponential backoff from 100 ms to 10 s with full
    /// jitter, no caps, the Retry-After path bounded by 60 s and 10 retries.
    pub(crate) const DEFAULT: Settings = Settings {
        max_attempts: 1,
        backoff: Backoff::exponential(Backoff::DEFAULT_BASE, Backoff::DEFAULT_MAX),
        budget: None,
        max_elapsed: None,
        max_delay: Nanos::NONE,
        min_retries: 0,
        max_retry_after_wait: Nanos::from_duration(DEFAULT_MAX_RATE_LIMIT_WAIT),
        max_retry_after_retries: DEFAULT_MAX_RATE_LIMIT_RETRIES,
        seed: 0,
        timeout: None,
        report_deferred: false,
        nested: Nested::Retry,
        attempts_fixed: false,
        spans_elsewhere: false,
        max_records: DEFAULT_MAX_RECORDS,
        seeded: false,
        priority: crate::priority::Priority::Medium,
    };

    /// Checks every value a builder must reject. `const`, so that a
    /// policy built in a `const` or `static` is checked by the compiler.
    pub(crate) const fn validate(&self) -> Result<(), ConfigError> {
        if self.max_attempts == 0 {
            return Err(ConfigError::ZeroAttempts);
        }
        if let Err(error) = self.backoff.validate() {
            return Err(error);
        }
        if let Some(budget) = self.budget
            && budget.is_zero()
        {
            return Err(ConfigError::ZeroDuration("budget"));
        }
        if let (Some(budget), Some(max_elapsed)) = (self.budget, self.max_elapsed)
            && budget.as_nanos() < max_elapsed.as_nanos()
        {
            return Err(ConfigError::BudgetBelowMaxElapsed {
                budget,
                max_elapsed,
            });
        }
        let retries = self.max_attempts - 1;
        if self.min_retries > retries {
            return Err(ConfigError::MinRetriesAboveRetries {
                min_retries: self.min_retries,
                retries,
            });
        }
        Ok(())
    }

    /// Whether the calls made inside this call's attempts leave it their
    /// retries: its first attempt then takes the engine's general path,
    /// which tells them.
    #[inline(always)]
    pub(crate) const fn holds_nested(&self) -> bool {
        matches!(self.nested, Nested::NoRetry)
    }

    /// Whether every attempt of a call with these settings holds the
    /// retries of the calls made inside it: it asks to ([`Nested::NoRetry`])
    /// and it can retry at all (retries above 0). Its last attempt too:
    /// only the outermost call that retries does.
    #[inline(always)]
    pub(crate) const fn holds_retries(&self) -> bool {
        self.holds_nested() && self.max_attempts > 1
    }

    /// The same settings made harmless instead of rejected: the first
    /// attempt always runs, a multiplier below 1 (or NaN) counts as 1, and
    /// a retry floor above the retries allowed counts as all of them.
    /// Durations need nothing: waits and deadlines stop at [`LONGEST`]
    /// where they are computed.
    pub(crate) fn clamped(mut self) -> Settings {
        self.max_attempts = self.max_attempts.max(1);
        self.backoff = self.backoff.clamped();
        self.min_retries = self.min_retries.min(self.max_attempts - 1);
        self
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::DEFAULT
    }
}

/// Declares the setters of the plain settings, once, for a type with a
/// `settings: Settings` field (or at the path given, `plan.settings`): the
/// policy builder (which validates in `build`) and the operation (which
/// clamps when it runs). `const`, so that `#[resilient]` can have the
/// compiler write the values it holds (see `Recipe`).
macro_rules! settings_setters {
    () => {
        $crate::settings::settings_setters!(settings);
    };
    ($($settings:ident).+) => {
        /// Attempts on the backoff path, the first included: `retries + 1`.
        #[inline]
        pub const fn max_attempts(mut self, max_attempts: u32) -> Self {
            self.$($settings).+.max_attempts = max_attempts;
            self
        }

        /// The delay schedule between retries.
        #[inline]
        pub const fn backoff(mut self, backoff: $crate::Backoff) -> Self {
            self.$($settings).+.backoff = backoff;
            self
        }

        /// Hard cap on the whole operation: no attempt starts at or after
        /// it and no sleep runs into it.
        #[inline]
        pub const fn budget(mut self, budget: ::std::time::Duration) -> Self {
            self.$($settings).+.budget = Some(budget);
            self
        }

        /// Soft cap: once elapsed, and once `min_retries` retries have run,
        /// the next failure ends the operation.
        #[inline]
        pub const fn max_elapsed(mut self, max_elapsed: ::std::time::Duration) -> Self {
            self.$($settings).+.max_elapsed = Some(max_elapsed);
            self
        }

        /// The longest delay before a retry: the backoff's delay is capped
        /// here before it is jittered, whatever the backoff (a constant one
        /// too). A server's Retry-After hint is not a backoff delay and is
        /// not capped here; `max_retry_after_wait` bounds it.
        #[inline]
        pub const fn max_delay(mut self, max_delay: ::std::time::Duration) -> Self {
            self.$($settings).+.max_delay = $crate::time::Nanos::from_duration(max_delay);
            self
        }

        /// Retries guaranteed before the soft cap may stop the operation.
        #[inline]
        pub const fn min_retries(mut self, min_retries: u32) -> Self {
            self.$($settings).+.min_retries = min_retries;
            self
        }

        /// Total time the Retry-After path may wait (default 60 s).
        #[inline]
        pub const fn max_retry_after_wait(mut self, max_wait: ::std::time::Duration) -> Self {
            self.$($settings).+.max_retry_after_wait = $crate::time::Nanos::from_duration(max_wait);
            self
        }

        /// Retries the Retry-After path may add on top of `max_attempts`
        /// (default 10), so that even zero-second hints end.
        #[inline]
        pub const fn max_retry_after_retries(mut self, retries: u32) -> Self {
            self.$($settings).+.max_retry_after_retries = retries;
            self
        }

        /// The former name of `max_retry_after_wait`, easily taken for a
        /// rate limiter's setting.
        #[doc(hidden)]
        #[deprecated(since = "0.1.0", note = "renamed `max_retry_after_wait`")]
        #[inline]
        pub const fn max_rate_limit_wait(self, max_wait: ::std::time::Duration) -> Self {
            self.max_retry_after_wait(max_wait)
        }

        /// The former name of `max_retry_after_retries`.
        #[doc(hidden)]
        #[deprecated(since = "0.1.0", note = "renamed `max_retry_after_retries`")]
        #[inline]
        pub const fn max_rate_limit_retries(self, retries: u32) -> Self {
            self.max_retry_after_retries(retries)
        }

        /// The call's priority (default [`Medium`](crate::priority::Priority::Medium)):
        /// a limiter that sheds by priority refuses the lowest first as
        /// it fills (see [`Priorities`](crate::priority::Priorities)).
        #[inline]
        pub const fn priority(mut self, priority: $crate::priority::Priority) -> Self {
            self.$($settings).+.priority = priority;
            self
        }

        /// The most attempt records the report keeps (64 by default; 0
        /// counts as 1, and more than 65 535 as 65 535): past it, the first half and the latest, while
        /// `attempt_count()` and `retry_count()` stay exact and
        /// `records_left_out()` says how many were left out. So a call
        /// that retries for ever keeps constant memory.
        #[inline]
        pub const fn max_records(mut self, records: u32) -> Self {
            self.$($settings).+.max_records = if records > u16::MAX as u32 {
                u16::MAX
            } else {
                records as u16
            };
            self
        }

        /// Seeds the jitter so that schedules are reproducible.
        #[inline]
        pub const fn jitter_seed(mut self, seed: u64) -> Self {
            self.$($settings).+.seed = seed;
            self.$($settings).+.seeded = true;
            self
        }

        /// What the calls made inside an attempt do with a retryable
        /// failure of their own: with `Nested::NoRetry`, on a call that can
        /// retry, they leave the retry to this call, on every attempt of it
        /// (see [`Nested`]($crate::deadline::Nested)).
        #[inline]
        pub const fn nested(mut self, nested: $crate::deadline::Nested) -> Self {
            self.$($settings).+.nested = nested;
            self
        }
    };
}

pub(crate) use settings_setters;

/// The time granted to an attempt starting `started_at` nanoseconds into
/// the operation: `min(timeout, budget - started_at)`, at most 584 years.
#[inline]
pub(crate) fn deadline(settings: &Settings, started_at: u64) -> Option<Duration> {
    let remaining = settings
        .budget
        .map(|budget| budget.saturating_sub(Duration::from_nanos(started_at)));
    let deadline = match (settings.timeout, remaining) {
        (Some(timeout), Some(remaining)) => Some(timeout.min(remaining)),
        (timeout, remaining) => timeout.or(remaining),
    };
    deadline.map(|d| d.min(LONGEST))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamping_makes_every_value_harmless() {
        let wild = Settings {
            max_attempts: 0,
            backoff: Backoff::exponential(Duration::from_secs(1), Duration::from_secs(9))
                .multiplier(f64::NAN),
            budget: Some(Duration::MAX),
            max_elapsed: Some(Duration::MAX),
            min_retries: 7,
            timeout: Some(Duration::MAX),
            ..Settings::DEFAULT
        };
        assert!(wild.validate().is_err());
        let safe = wild.clamped();
        assert_eq!(safe.max_attempts, 1);
        assert_eq!(safe.min_retries, 0);
        assert_eq!(safe.budget, Some(Duration::MAX), "never reached, as asked");
        assert_eq!(safe.backoff.nominal_delay(4), Duration::from_secs(1));
        let five = Settings {
            max_attempts: 5,
            min_retries: 9,
            ..Settings::DEFAULT
        };
        assert_eq!(five.clamped().min_retries, 4);
    }

    #[test]
    fn valid_settings_pass_unchanged_through_clamping() {
        let settings = Settings {
            max_attempts: 4,
            min_retries: 2,
            budget: Some(Duration::from_secs(30)),
            max_elapsed: Some(Duration::from_secs(10)),
            timeout: Some(Duration::from_secs(5)),
            ..Settings::DEFAULT
        };
        assert_eq!(settings.validate(), Ok(()));
        assert_eq!(settings.clamped(), settings);
    }
}
