//! Make a function resilient with one attribute: retry the errors you select,
//! with backoff, timeouts, a budget, a circuit breaker and a fallback, and get
//! a report of every attempt. [`#[resilient]`](macro@resilient) lists every
//! option, each with an example.
//!
//! ```
//! use resilient::{Attempt, StopReason, TimedOut, resilient};
//! use std::time::Duration;
//!
//! #[derive(Debug, thiserror::Error)]
//! enum ProviderError {
//!     #[error("timed out")]
//!     Timeout,
//!     #[error("overloaded")]
//!     Transient,
//! }
//!
//! impl From<TimedOut> for ProviderError {
//!     fn from(_: TimedOut) -> Self {
//!         ProviderError::Timeout
//!     }
//! }
//!
//! #[resilient(retries = 3, retry_on = [Timeout, Transient], backoff = exponential(base = "100ms", jitter = none), timeout = "10s", budget = "30s")]
//! async fn call_provider(prompt: &str, #[attempt] attempt: Attempt) -> Result<String, ProviderError> {
//!     // Stands in for a network call: overloaded twice, then an answer.
//!     if attempt.number() < 3 {
//!         return Err(ProviderError::Transient);
//!     }
//!     Ok(format!("echo: {prompt}"))
//! }
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() -> Result<(), ProviderError> {
//! let outcome = call_provider("hi").await;
//!
//! // The report: every attempt, every wait, and why the call stopped.
//! let report = outcome.report();
//! assert_eq!(report.attempt_count(), 3);
//! assert_eq!(report.delays(), [Duration::from_millis(100), Duration::from_millis(200)]);
//! assert_eq!(report.stop_reason(), StopReason::Succeeded);
//!
//! // The result, as the function declared it.
//! let text: String = outcome.into_result()?;
//! assert_eq!(text, "echo: hi");
//! # Ok(())
//! # }
//! ```
//!
//! # Two kinds of result
//!
//! A function under the attribute returns an [`Outcome<T, E>`](Outcome):
//! [`into_result`](Outcome::into_result) gives back the `Result<T, E>` it
//! declared, [`report`](Outcome::report) an [`ExecutionReport`] of every
//! attempt, and [`into_parts`](Outcome::into_parts) both. [`Operation`], the
//! builder the attribute expands to, returns the same.
//!
//! [`RetryPolicy`] runs a closure without the attribute and returns a plain
//! `Result<T, RetryError<E>>`: the value, or the last error with the number
//! of attempts made, and no report.
//!
//! ```
//! use resilient::{Backoff, RetryPolicy};
//!
//! let policy = RetryPolicy::builder().max_attempts(3).backoff(Backoff::none()).build()?;
//! let error = policy.run(|_attempt| "4x2".parse::<u32>()).unwrap_err();
//! assert_eq!(error.attempts(), 3);
//! assert_eq!(error.cause().to_string(), "invalid digit found in string");
//! # Ok::<(), resilient::ConfigError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use resilient_core::*;

/// HTTP status classification and Retry-After parsing (feature `http`).
#[cfg(feature = "http")]
pub use resilient_core::http;
#[cfg(feature = "macros")]
pub use resilient_macros::resilient;

pub mod guide;

/// README.md's examples, compiled and run as doctests so that the first
/// code a newcomer reads stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Items the expansion of `#[resilient]` names. Not public API: no
/// stability promise.
#[doc(hidden)]
pub mod __private;
mod shapes;
