//! [`RetryPolicy`]: a validated, immutable retry configuration. Its plain
//! runs (`run`, `run_async`, returning `RetryError`) are the engine's, in
//! `engine/operation.rs`.

use std::time::Duration;

use crate::backoff::Backoff;
use crate::error::ConfigError;
use crate::settings::{Settings, settings_setters};

/// A validated retry configuration: how many attempts, the delay between
/// them, and the caps on the whole operation.
///
/// Immutable, cheap to clone, `Send + Sync`: build it once and share it
/// between operations.
///
/// ```
/// use resilient::{Backoff, FakeClock, RetryPolicy};
/// use std::time::Duration;
///
/// let policy = RetryPolicy::builder()
///     .max_attempts(4)
///     .backoff(Backoff::constant(Duration::from_secs(1)))
///     .build()?;
///
/// let clock = FakeClock::new();
/// let mut calls = 0;
/// let value = policy.run_with_clock(&clock, |_| {
///     calls += 1;
///     if calls < 3 { Err("busy") } else { Ok(calls) }
/// });
/// assert_eq!(value, Ok(3));
/// assert_eq!(clock.slept(), [Duration::from_secs(1); 2]);
/// # Ok::<(), resilient::ConfigError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    pub(crate) settings: Settings,
}

impl RetryPolicy {
    /// Starts a policy: one attempt, exponential backoff from 100 ms to
    /// 10 s with full jitter, no caps. `const`, as every setter is: see
    /// [`build_const`](RetryPolicyBuilder::build_const) for a policy in a
    /// `const` or `static`.
    pub const fn builder() -> RetryPolicyBuilder {
        RetryPolicyBuilder {
            settings: Settings::DEFAULT,
            unbounded: false,
        }
    }

    /// Attempts allowed on the backoff path, the first included.
    pub fn max_attempts(&self) -> u32 {
        self.settings.max_attempts
    }

    /// The delay schedule.
    pub fn backoff(&self) -> Backoff {
        self.settings.backoff
    }

    /// The hard cap on the whole operation, if any.
    pub fn budget(&self) -> Option<Duration> {
        self.settings.budget
    }

    /// The soft cap, if any.
    pub fn max_elapsed(&self) -> Option<Duration> {
        self.settings.max_elapsed
    }
}

/// Builds a [`RetryPolicy`]; [`build`](RetryPolicyBuilder::build) validates
/// the whole configuration once.
///
/// ```
/// use resilient::{ConfigError, RetryPolicy};
/// use std::time::Duration;
///
/// let err = RetryPolicy::builder()
///     .max_attempts(3)
///     .budget(Duration::from_secs(10))
///     .max_elapsed(Duration::from_secs(20))
///     .build()
///     .unwrap_err();
/// assert!(matches!(err, ConfigError::BudgetBelowMaxElapsed { .. }));
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct RetryPolicyBuilder {
    settings: Settings,
    /// Set by [`unbounded`](RetryPolicyBuilder::unbounded): a cap on time
    /// must end the attempts.
    unbounded: bool,
}

impl RetryPolicyBuilder {
    settings_setters!();

    /// Retries without a cap on attempts (`max_attempts(u32::MAX)`), for a
    /// call that a [`budget`](RetryPolicyBuilder::budget) or a
    /// [`max_elapsed`](RetryPolicyBuilder::max_elapsed) ends instead:
    /// `build` refuses it without one of them.
    ///
    /// ```
    /// use resilient::{ConfigError, RetryPolicy};
    /// use std::time::Duration;
    ///
    /// let policy = RetryPolicy::builder().unbounded().budget(Duration::from_secs(60)).build()?;
    /// assert_eq!(policy.max_attempts(), u32::MAX);
    /// assert_eq!(RetryPolicy::builder().unbounded().build(), Err(ConfigError::UnboundedWithoutCap));
    /// # Ok::<(), ConfigError>(())
    /// ```
    #[inline]
    pub const fn unbounded(mut self) -> Self {
        self.settings.max_attempts = u32::MAX;
        self.unbounded = true;
        self
    }

    /// Validates the configuration.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] for zero attempts, a multiplier below 1 or NaN, a
    /// base above the max, a zero budget, a budget below `max_elapsed`,
    /// `min_retries` above the retries `max_attempts` allows, or unbounded
    /// attempts without a cap on time.
    pub const fn build(self) -> Result<RetryPolicy, ConfigError> {
        if let Err(error) = self.settings.validate() {
            return Err(error);
        }
        if self.unbounded && self.settings.budget.is_none() && self.settings.max_elapsed.is_none() {
            return Err(ConfigError::UnboundedWithoutCap);
        }
        Ok(RetryPolicy {
            settings: self.settings,
        })
    }

    /// Validates the configuration in a `const` or `static`, where an
    /// invalid value is a compile error; a panic where it runs at run
    /// time. Values read at run time go through
    /// [`build`](RetryPolicyBuilder::build), which returns the error.
    ///
    /// ```
    /// use resilient::{Backoff, Jitter, RetryPolicy};
    /// use std::time::Duration;
    ///
    /// static POLICY: RetryPolicy = RetryPolicy::builder()
    ///     .max_attempts(4)
    ///     .backoff(Backoff::exponential(Duration::from_millis(100), Duration::from_secs(2)).jitter(Jitter::Equal))
    ///     .budget(Duration::from_secs(10))
    ///     .build_const();
    /// assert_eq!(POLICY.max_attempts(), 4);
    /// ```
    ///
    /// A base above the max doesn't compile:
    ///
    /// ```compile_fail
    /// use resilient::{Backoff, RetryPolicy};
    /// use std::time::Duration;
    ///
    /// const POLICY: RetryPolicy = RetryPolicy::builder()
    ///     .max_attempts(4)
    ///     .backoff(Backoff::exponential(Duration::from_secs(5), Duration::from_secs(1)))
    ///     .build_const();
    /// ```
    ///
    /// Nor do zero attempts:
    ///
    /// ```compile_fail
    /// use resilient::RetryPolicy;
    ///
    /// static POLICY: RetryPolicy = RetryPolicy::builder().max_attempts(0).build_const();
    /// ```
    ///
    /// # Panics
    ///
    /// When the configuration is one [`build`](RetryPolicyBuilder::build)
    /// rejects, with that error's message.
    #[track_caller]
    pub const fn build_const(self) -> RetryPolicy {
        match self.build() {
            Ok(policy) => policy,
            Err(error) => panic!("{}", error.const_message()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_rejects_each_invalid_setting() {
        let b = RetryPolicy::builder;
        let secs = Duration::from_secs;
        assert_eq!(b().max_attempts(0).build(), Err(ConfigError::ZeroAttempts));
        assert!(matches!(
            b().backoff(Backoff::default().multiplier(f64::NAN)).build(),
            Err(ConfigError::InvalidMultiplier(m)) if m.is_nan()
        ));
        assert_eq!(
            b().backoff(Backoff::default().multiplier(0.5)).build(),
            Err(ConfigError::InvalidMultiplier(0.5))
        );
        assert!(matches!(
            b().backoff(Backoff::exponential(secs(5), secs(1))).build(),
            Err(ConfigError::BaseAboveMax { .. })
        ));
        assert_eq!(
            b().budget(Duration::ZERO).build(),
            Err(ConfigError::ZeroDuration("budget"))
        );
        assert_eq!(
            b().max_attempts(3).min_retries(3).build(),
            Err(ConfigError::MinRetriesAboveRetries {
                min_retries: 3,
                retries: 2
            })
        );
        assert!(b().max_attempts(3).min_retries(2).build().is_ok());
    }

    #[test]
    fn unbounded_attempts_need_a_cap_on_time() {
        let b = RetryPolicy::builder;
        let secs = Duration::from_secs;
        assert_eq!(
            b().unbounded().build(),
            Err(ConfigError::UnboundedWithoutCap)
        );
        let capped = b().unbounded().budget(secs(60)).build().unwrap();
        assert_eq!(capped.max_attempts(), u32::MAX);
        assert!(b().unbounded().max_elapsed(secs(60)).build().is_ok());
        // A floor of retries is within any count of them.
        assert!(
            b().unbounded()
                .budget(secs(60))
                .min_retries(1_000)
                .build()
                .is_ok()
        );
    }

    #[test]
    fn a_constant_policy_is_the_built_one() {
        const POLICY: RetryPolicy = RetryPolicy::builder()
            .max_attempts(3)
            .budget(Duration::from_secs(5))
            .build_const();
        let built = RetryPolicy::builder()
            .max_attempts(3)
            .budget(Duration::from_secs(5))
            .build();
        assert_eq!(Ok(POLICY), built);
        assert!(
            std::panic::catch_unwind(|| RetryPolicy::builder().max_attempts(0).build_const())
                .is_err()
        );
    }

    #[test]
    fn policies_are_shareable() {
        fn assert_shareable<T: Send + Sync + Clone + 'static>() {}
        assert_shareable::<RetryPolicy>();
    }
}
