//! [`RetryPolicy`]: a validated, immutable retry configuration, and the
//! plain `run` / `run_async` entry points that return `RetryError`.

use std::time::Duration;

use crate::attempt::Attempt;
use crate::backoff::Backoff;
use crate::clock::{Clock, SystemClock, TokioClock};
use crate::error::{ConfigError, RetryError};
use crate::operation::Operation;

/// Default total time the Retry-After path may wait.
pub const DEFAULT_MAX_RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// Default number of retries the Retry-After path may add.
pub const DEFAULT_MAX_RATE_LIMIT_RETRIES: u32 = 10;

/// The plain data of a policy. `Copy`, so operations take it by value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Settings {
    pub(crate) max_attempts: u32,
    pub(crate) backoff: Backoff,
    pub(crate) budget: Option<Duration>,
    pub(crate) max_elapsed: Option<Duration>,
    pub(crate) min_retries: u32,
    pub(crate) max_rate_limit_wait: Duration,
    pub(crate) max_rate_limit_retries: u32,
    pub(crate) seed: Option<u64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_attempts: 1,
            backoff: Backoff::default(),
            budget: None,
            max_elapsed: None,
            min_retries: 0,
            max_rate_limit_wait: DEFAULT_MAX_RATE_LIMIT_WAIT,
            max_rate_limit_retries: DEFAULT_MAX_RATE_LIMIT_RETRIES,
            seed: None,
        }
    }
}

impl Settings {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.max_attempts == 0 {
            return Err(ConfigError::ZeroAttempts);
        }
        self.backoff.validate()?;
        if self.budget == Some(Duration::ZERO) {
            return Err(ConfigError::ZeroDuration("budget"));
        }
        if let (Some(budget), Some(max_elapsed)) = (self.budget, self.max_elapsed) {
            if budget < max_elapsed {
                return Err(ConfigError::BudgetBelowMaxElapsed {
                    budget,
                    max_elapsed,
                });
            }
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
}

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
            settings: Settings::default(),
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

    /// Runs `f` until it succeeds or the policy stops, retrying every
    /// error, on the system clock.
    ///
    /// ```
    /// use resilient::{Backoff, RetryPolicy};
    ///
    /// let policy = RetryPolicy::builder().max_attempts(2).backoff(Backoff::none()).build()?;
    /// let err = policy.run(|attempt| Err::<(), _>(attempt.number())).unwrap_err();
    /// assert_eq!((err.attempts(), *err.cause()), (2, 2));
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    pub fn run<T, E, F>(&self, f: F) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Result<T, E>,
    {
        self.run_with_clock(SystemClock, f)
    }

    /// [`run`](RetryPolicy::run) on the given clock.
    pub fn run_with_clock<T, E, F, C>(&self, clock: C, f: F) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Result<T, E>,
        C: Clock,
    {
        Operation::unreported()
            .policy(self)
            .clock(clock)
            .run(f)
            .into_retry_result()
    }

    /// Runs the async `f` until it succeeds or the policy stops, retrying
    /// every error, on tokio's clock.
    ///
    /// ```
    /// use resilient::{Backoff, RetryPolicy};
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), resilient::ConfigError> {
    /// let policy = RetryPolicy::builder()
    ///     .max_attempts(3)
    ///     .backoff(Backoff::constant(Duration::from_secs(5)))
    ///     .build()?;
    /// let value = policy
    ///     .run_async(async |attempt| if attempt.number() < 3 { Err("busy") } else { Ok("done") })
    ///     .await;
    /// assert_eq!(value, Ok("done"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn run_async<T, E, F>(&self, f: F) -> Result<T, RetryError<E>>
    where
        F: AsyncFnMut(Attempt) -> Result<T, E>,
    {
        self.run_async_with_clock(TokioClock, f).await
    }

    /// [`run_async`](RetryPolicy::run_async) on the given clock.
    pub async fn run_async_with_clock<T, E, F, C>(&self, clock: C, f: F) -> Result<T, RetryError<E>>
    where
        F: AsyncFnMut(Attempt) -> Result<T, E>,
        C: Clock,
    {
        Operation::unreported()
            .policy(self)
            .clock(clock)
            .run_async(f)
            .await
            .into_retry_result()
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
    /// Attempts on the backoff path, the first included: `retries + 1`.
    pub fn max_attempts(mut self, max_attempts: u32) -> Self {
        self.settings.max_attempts = max_attempts;
        self
    }

    /// The delay schedule between retries.
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.settings.backoff = backoff;
        self
    }

    /// Hard cap on the whole operation: no attempt starts at or after it
    /// and no sleep runs into it.
    pub fn budget(mut self, budget: Duration) -> Self {
        self.settings.budget = Some(budget);
        self
    }

    /// Soft cap: once elapsed and once `min_retries` retries have run, the
    /// next failure ends the operation.
    pub fn max_elapsed(mut self, max_elapsed: Duration) -> Self {
        self.settings.max_elapsed = Some(max_elapsed);
        self
    }

    /// Retries guaranteed before the soft cap may stop the operation.
    pub fn min_retries(mut self, min_retries: u32) -> Self {
        self.settings.min_retries = min_retries;
        self
    }

    /// Total time the Retry-After path may wait (default 60 s).
    pub fn max_rate_limit_wait(mut self, max_wait: Duration) -> Self {
        self.settings.max_rate_limit_wait = max_wait;
        self
    }

    /// Retries the Retry-After path may add on top of `max_attempts`
    /// (default 10), so that even zero-second hints end.
    pub fn max_rate_limit_retries(mut self, retries: u32) -> Self {
        self.settings.max_rate_limit_retries = retries;
        self
    }

    /// Seeds the jitter so that schedules are reproducible.
    pub fn jitter_seed(mut self, seed: u64) -> Self {
        self.settings.seed = Some(seed);
        self
    }

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
