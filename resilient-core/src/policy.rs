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
    /// 10 s with full jitter, no caps.
    pub fn builder() -> RetryPolicyBuilder {
        RetryPolicyBuilder {
            settings: Settings::DEFAULT,
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
}

impl RetryPolicyBuilder {
    settings_setters!();

    /// Validates the configuration.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] for zero attempts, a multiplier below 1 or NaN, a
    /// base above the max, a zero budget, a budget below `max_elapsed`, or
    /// `min_retries` above the retries `max_attempts` allows.
    pub fn build(self) -> Result<RetryPolicy, ConfigError> {
        self.settings.validate()?;
        Ok(RetryPolicy {
            settings: self.settings,
        })
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
    fn policies_are_shareable() {
        fn assert_shareable<T: Send + Sync + Clone + 'static>() {}
        assert_shareable::<RetryPolicy>();
    }
}
