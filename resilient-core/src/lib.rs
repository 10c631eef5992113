//! The runtime of [`resilient`](https://docs.rs/resilient): retry policies,
//! clocks, the retry engine and execution reports.
//!
//! Most users depend on `resilient` and write `#[resilient(...)]`; the
//! attribute expands to one [`Operation`]. Everything here is usable on its
//! own too:
//!
//! ```
//! use resilient::{Backoff, FakeClock, Jitter, Operation, StopReason};
//! use std::time::Duration;
//!
//! let clock = FakeClock::new();
//! let outcome = Operation::new()
//!     .max_attempts(4)
//!     .backoff(Backoff::exponential(Duration::from_millis(100), Duration::from_secs(10)).jitter(Jitter::None))
//!     .clock(&clock)
//!     .run(|attempt| if attempt.number() < 3 { Err("flaky") } else { Ok("answer") });
//!
//! assert_eq!(outcome.result(), &Ok("answer"));
//! assert_eq!(outcome.report().retry_count(), 2);
//! assert_eq!(clock.slept(), [Duration::from_millis(100), Duration::from_millis(200)]);
//! assert_eq!(outcome.report().stop_reason(), StopReason::Succeeded);
//! ```
//!
//! # Features
//!
//! * `http`: the `http` module (status classification, Retry-After).
//! * `tracing`: the engine emits `tracing` events with stable names and
//!   fields, so retries show up in existing logs:
//!
//! | name | level | fields |
//! |---|---|---|
//! | `attempt.failed` | `WARN` if retryable, else `ERROR` | `attempt`, `kind`, `retryable`, `error` |
//! | `retry.scheduled` | `INFO` | `attempt` (the one that failed), `delay_ms`, `source` |
//! | `rate_limit.wait_exceeded` | `WARN` | `attempt`, `hint_ms`, `waited_ms`, `max_wait_ms` |
//! | `circuit.rejected` | `WARN` | `attempt` |
//! | `fallback.used` | `INFO` | `attempt`, `ok` |
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod attempt;
mod backoff;
mod breaker;
mod clock;
mod error;
mod events;
mod hooks;
#[cfg(feature = "http")]
pub mod http;
pub mod idempotency;
mod operation;
mod policy;
mod report;

pub use attempt::Attempt;
pub use backoff::{Backoff, Jitter};
pub use breaker::{CircuitBreaker, CircuitBreakerBuilder, CircuitPermit, CircuitState};
pub use clock::{Clock, FakeClock, SystemClock, TokioClock};
pub use error::{CircuitOpen, ConfigError, RetryError, TimedOut, ValidationFailed};
pub use hooks::{
    AnyValue, Classify, NoHint, OnRetry, RateLimit, RetryAll, RetryEvent, Silent, Validate,
};
pub use operation::{Execution, Operation};
pub use policy::{RetryPolicy, RetryPolicyBuilder};
pub use report::{
    AttemptKind, AttemptRecord, Delay, DelaySource, ExecutionError, ExecutionReport, FailureKind,
    Outcome, StopReason,
};
