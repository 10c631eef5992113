//! Make a function resilient with one attribute.
//!
//! ```
//! use resilient::{resilient, Attempt, TimedOut};
//!
//! #[derive(Debug, thiserror::Error)]
//! enum ProviderError {
//!     #[error("timed out")]
//!     Timeout,
//!     #[error("overloaded")]
//!     Transient,
//!     #[error("bad request: {0}")]
//!     BadRequest(String),
//! }
//!
//! impl From<TimedOut> for ProviderError {
//!     fn from(_: TimedOut) -> Self {
//!         ProviderError::Timeout
//!     }
//! }
//!
//! #[resilient(retries = 3, retry_on = [Timeout, Transient], backoff = exponential(base = "100ms", max = "2s"), timeout = "10s", budget = "30s")]
//! async fn call_provider(prompt: &str, #[attempt] attempt: Attempt) -> Result<String, ProviderError> {
//!     if attempt.number() < 3 {
//!         return Err(ProviderError::Transient);
//!     }
//!     Ok(format!("echo: {prompt}"))
//! }
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() {
//! let outcome = call_provider("hi").await;
//! assert_eq!(outcome.report().attempt_count(), 3);
//! assert_eq!(outcome.report().retry_count(), 2);
//! assert_eq!(outcome.into_result().unwrap(), "echo: hi");
//! # }
//! ```
//!
//! The attribute makes the function return an [`Outcome`]: the result plus
//! an [`ExecutionReport`] of every attempt, every delay and why the
//! operation stopped. Everything the attribute does is also available as a
//! plain API: [`RetryPolicy`] and [`Operation`].
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use resilient_core::*;

/// HTTP status classification and Retry-After parsing (feature `http`).
#[cfg(feature = "http")]
pub use resilient_core::http;
pub use resilient_macros::resilient;

/// Items the expansion of `#[resilient]` names. Not public API: no
/// stability promise.
#[doc(hidden)]
pub mod __private;
