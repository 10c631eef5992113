//! [`ConfigError`]: what a builder's `build()` refuses, and why.

use std::time::Duration;

/// A builder rejected its configuration.
///
/// Builders validate once, in `build()`, and never panic: every value that
/// would make the schedule meaningless is reported here instead.
///
/// ```
/// use resilient::{ConfigError, RetryPolicy};
///
/// let err = RetryPolicy::builder().max_attempts(0).build().unwrap_err();
/// assert_eq!(err, ConfigError::ZeroAttempts);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ConfigError {
    /// `max_attempts` was 0; the first attempt always counts, so use 1 for "no retries".
    ZeroAttempts,
    /// The backoff multiplier was NaN, infinite or below 1.
    InvalidMultiplier(f64),
    /// The backoff's base delay exceeds its maximum.
    BaseAboveMax {
        /// The configured base delay.
        base: Duration,
        /// The configured maximum delay.
        max: Duration,
    },
    /// The hard `budget` is below the soft `max_elapsed` cap, so the soft cap could never apply.
    BudgetBelowMaxElapsed {
        /// The configured hard cap.
        budget: Duration,
        /// The configured soft cap.
        max_elapsed: Duration,
    },
    /// `min_retries` asks for more retries than `max_attempts` allows.
    MinRetriesAboveRetries {
        /// The configured floor.
        min_retries: u32,
        /// `max_attempts - 1`.
        retries: u32,
    },
    /// Attempts without a cap ([`unbounded`](crate::RetryPolicyBuilder::unbounded))
    /// and neither a `budget` nor a `max_elapsed` to end them.
    UnboundedWithoutCap,
    /// A duration that must be positive was zero.
    ZeroDuration(&'static str),
    /// The circuit breaker's `failure_threshold` was 0.
    ZeroFailureThreshold,
    /// The circuit breaker's failure ratio was not within (0, 1].
    InvalidFailureRatio(f64),
    /// The circuit breaker allows no half-open probe, so it could never close again.
    ZeroHalfOpenProbes,
    /// A retry throttle's `max_tokens` was outside `1..=1000`, the range gRPC's A6 allows.
    InvalidMaxTokens(u32),
    /// A retry throttle's `token_ratio` was not finite, or below one thousandth once rounded to three decimals.
    InvalidTokenRatio(f64),
    /// A shared breaker's `quorum_share` was not within [0, 1].
    InvalidQuorumShare(f64),
    /// A shared breaker allows no probe across its fleet, so the fleet's
    /// breaker could never close again.
    ZeroFleetProbes,
    /// The dashboard's control panel was given an empty token (or one of
    /// spaces only), which would let anyone in.
    EmptyControlToken,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::ZeroAttempts => {
                f.write_str("max_attempts must be at least 1 (1 means no retries)")
            }
            ConfigError::InvalidMultiplier(factor) => write!(
                f,
                "backoff multiplier must be a finite number >= 1.0, got {factor}"
            ),
            ConfigError::BaseAboveMax { base, max } => {
                write!(
                    f,
                    "backoff base ({base:?}) must not exceed its max ({max:?})"
                )
            }
            ConfigError::BudgetBelowMaxElapsed {
                budget,
                max_elapsed,
            } => write!(
                f,
                "budget ({budget:?}) must not be below max_elapsed ({max_elapsed:?})"
            ),
            ConfigError::MinRetriesAboveRetries {
                min_retries,
                retries,
            } => write!(
                f,
                "min_retries ({min_retries}) must not exceed the retries max_attempts allows ({retries})"
            ),
            ConfigError::UnboundedWithoutCap => {
                f.write_str("unbounded attempts need a budget or max_elapsed to end them")
            }
            ConfigError::ZeroDuration(what) => write!(f, "{what} must be greater than zero"),
            ConfigError::ZeroFailureThreshold => {
                f.write_str("failure_threshold must be at least 1")
            }
            ConfigError::InvalidFailureRatio(ratio) => {
                write!(f, "failure_ratio must be within (0.0, 1.0], got {ratio}")
            }
            ConfigError::ZeroHalfOpenProbes => f.write_str("half_open_probes must be at least 1"),
            ConfigError::InvalidMaxTokens(tokens) => {
                write!(f, "max_tokens must be within 1..=1000, got {tokens}")
            }
            ConfigError::InvalidTokenRatio(ratio) => write!(
                f,
                "token_ratio must be a finite number of at least 0.001 (three decimals are kept), got {ratio}"
            ),
            ConfigError::InvalidQuorumShare(share) => {
                write!(f, "quorum_share must be within [0.0, 1.0], got {share}")
            }
            ConfigError::ZeroFleetProbes => f.write_str("fleet_probes must be at least 1"),
            ConfigError::EmptyControlToken => {
                f.write_str("the control panel's token must not be empty")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// What went wrong, without the values: the message of a policy
    /// refused in a `const`, where formatting is not available.
    pub(crate) const fn const_message(&self) -> &'static str {
        match self {
            ConfigError::ZeroAttempts => "max_attempts must be at least 1 (1 means no retries)",
            ConfigError::InvalidMultiplier(_) => {
                "backoff multiplier must be a finite number >= 1.0"
            }
            ConfigError::BaseAboveMax { .. } => "backoff base must not exceed its max",
            ConfigError::BudgetBelowMaxElapsed { .. } => "budget must not be below max_elapsed",
            ConfigError::MinRetriesAboveRetries { .. } => {
                "min_retries must not exceed the retries max_attempts allows"
            }
            ConfigError::UnboundedWithoutCap => {
                "unbounded attempts need a budget or max_elapsed to end them"
            }
            ConfigError::ZeroDuration(_) => "a duration that must be positive is zero",
            _ => "invalid configuration",
        }
    }
}
