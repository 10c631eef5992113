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
//! # Layout
//!
//! * `engine/`: the operation builder and the plan it hands to one
//!   execution, the gates asked around each attempt (`gates/`: the
//!   breaker, the throttle, chaos), every decision of a run (pure
//!   functions in `decide`), the race of an attempt against its deadline,
//!   hedged attempts, idempotent runs, the user's hooks and the events;
//! * `breaker/`: the circuit breaker;
//! * `report/`: the outcome, the attempt records, their table and JSON;
//! * `observe/`: what an operator sees: each operation's counts, the
//!   registry of operations and breakers, the `metrics` series and the
//!   dashboard;
//! * `idempotency/`: the stores a key's result is kept in (memory, Redis);
//! * `limit/`: admission control: bulkheads, rate limits, adaptive limits;
//! * `tower/`: the tower layer (feature `tower`), and the run of one call
//!   that the reqwest middleware shares;
//! * `reqwest.rs`: the reqwest-middleware `Middleware` (feature `reqwest`);
//! * `retryable.rs`: the closure API, [`Retryable`] and its builder
//!   [`Retry`], which fill in and run one [`Operation`];
//! * leaves: `settings` (the plain configuration and its defaults),
//!   `policy`, `backoff`, `clock`, `time` (durations as whole
//!   nanoseconds), `race` (a future against a deadline, with one timer),
//!   `catalog` (the names and help text of the `metrics` series),
//!   `testing`, `error`, `attempt`, `throttle`, `http`, `chaos` (the
//!   switch that injects faults, outcomes and latency on purpose).
//!
//! # Features
//!
//! * `dashboard`: the `dashboard` module, a live page of every operation
//!   and breaker, served by the application itself (an axum router).
//! * `http`: the `http` module (status classification, Retry-After).
//! * `metrics`: counters and histograms of the `metrics` facade, and a
//!   gauge of each circuit breaker's state, all described and present
//!   from the start; see the `metrics` module.
//! * `quanta`: `TscClock`, the CPU's time-stamp counter, for a cheaper
//!   report on machines where it can be trusted.
//! * `redis`: `idempotency::RedisStore`, idempotent calls across a fleet;
//!   `limit::RedisRateLimiter`, one rate limit across a fleet;
//!   `breaker::RedisBreakerState`, one circuit breaker across a fleet.
//! * `reqwest`: the `reqwest` module, whose `ResilientMiddleware` is a
//!   reqwest-middleware `Middleware`; `http::HttpError` from
//!   `reqwest::Response` and `reqwest::Error`, so a reqwest call under the
//!   attribute needs no glue; and the tower layer's `HttpClassifier` and
//!   `ReportExtension` for reqwest's types.
//! * `serde`: `Serialize` for the report, with stable keys.
//! * `tower`: the `tower` module, whose `ResilientLayer` makes any tower
//!   service resilient; tower's `TpsBudget` can serve as a [`RetryBudget`].
//! * `tracing`: the engine emits `tracing` events with stable names and
//!   fields, so retries show up in existing logs. By tracing's conventions,
//!   what happens on the way (a failed attempt that the engine retries, a
//!   refusal) is `DEBUG`, and a call that failed for good is one `WARN`;
//!   so a service under load logs one line per failed call at `WARN`, not
//!   one per attempt. Every event carries the operation's name as
//!   `operation`:
//!
//! | name | level | fields |
//! |---|---|---|
//! | `call.failed` | `WARN`; `DEBUG` for an error the operation ignores | `operation`, `stop_reason`, `attempt_count`, `elapsed_ms`, `error` (a call that ended with an error: no attempt and no fallback answered) |
//! | `attempt.failed` | `DEBUG` | `operation`, `attempt`, `kind`, `retryable`, `error` |
//! | `retry.scheduled` | `DEBUG` | `operation`, `attempt` (the one that failed), `delay_ms`, `source` |
//! | `rate_limit.wait_exceeded` | `DEBUG` | `operation`, `attempt`, `hint_ms`, `waited_ms`, `max_wait_ms` |
//! | `circuit.rejected` | `DEBUG` | `operation`, `attempt` |
//! | `limit.refused` | `DEBUG` | `operation`, `limiter` |
//! | `adaptive_throttle.rejected` | `DEBUG` | `operation`, `throttle` |
//! | `replica.ejected` | `INFO` | `operation`, `replica` (its base URL), `ejection_ms` (an outlier detection ejected it) |
//! | `circuit.fleet_left` | `WARN` | `breaker`, `error` (a shared breaker can't reach its fleet: it decides alone) |
//! | `circuit.fleet_joined` | `INFO` | `breaker` (it reaches its fleet again) |
//! | `fallback.used` | `INFO` | `operation`, `attempt`, `ok` |
//! | `chaos.injected` | `INFO` | `operation`, `attempt`, `kind` (`fault`, `outcome`, `latency`) |
//! | `operation.report` | `INFO`, `WARN` if it failed | `operation`, `attempt_count`, `retry_count`, `stop_reason`, `fallback_used`, `elapsed_ms`, `report` (emitted by `trace_report`, a hook) |
//!
//! With `metrics`, the engine records through the `metrics` facade:
//!
//! | series | kind | labels |
//! |---|---|---|
//! | `resilient_attempts_total` | counter | `operation`, `kind` (`primary`, `hedge`, `fallback`), `outcome` (`success`, `retryable_failure`, `fatal_failure`) |
//! | `resilient_retries_total` | counter | `operation` |
//! | `resilient_fallbacks_total` | counter | `operation` |
//! | `resilient_circuit_rejections_total` | counter | `operation` |
//! | `resilient_chaos_injections_total` | counter | `operation`, `kind` (`fault`, `outcome`, `latency`) |
//! | `resilient_operation_duration_seconds` | histogram | `operation`, `stop_reason` |
//! | `resilient_circuit_state` | gauge: 0 closed, 1 half-open, 2 open, 3 isolated | `breaker` |
//! | `resilient_idempotent_calls_total` | counter | `operation`, `status` (`replayed`, `joined`, `executed`, `in_flight`, `conflict`, `store_error`) |
//! | `resilient_replica_ejected` | gauge: 1 ejected, 0 in the set | `operation`, `replica` |
//! | `resilient_replica_ejections_total` | counter | `operation`, `replica` |
//!
//! A hedged attempt dropped because another succeeded counts in none of
//! them: it neither succeeded nor failed. Each series has `# HELP` text
//! and a unit, an operation's counters exist at zero from its first call,
//! and a breaker's gauge from its construction (`metrics` module).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod a6;
mod attempt;
mod backoff;
pub mod breaker;
#[cfg(feature = "metrics")]
mod catalog;
pub mod chaos;
mod clock;
pub mod coalesce;
#[cfg(feature = "config")]
pub mod config;
pub mod deadline;
pub mod endpoint;
mod engine;
mod error;
#[cfg(feature = "http")]
pub mod http;
pub mod idempotency;
pub mod limit;
mod marker;
mod observe;
mod policy;
mod priority;
mod race;
#[cfg(any(feature = "config", all(test, loom)))]
mod refresh;
mod report;
#[cfg(feature = "reqwest")]
pub mod reqwest;
pub mod retryable;
mod seed;
mod settings;
#[cfg(any(feature = "config", all(test, loom)))]
mod stamped;
pub mod testing;
pub mod throttle;
mod time;
#[cfg(feature = "tower")]
pub mod tower;

pub use attempt::Attempt;
pub use backoff::{Backoff, Jitter};
pub use breaker::{CircuitBreaker, CircuitBreakerBuilder, CircuitPermit, CircuitState};
#[cfg(feature = "quanta")]
pub use clock::TscClock;
pub use clock::{Clock, Mark, SystemClock, TokioClock, Untimed};
#[doc(hidden)]
pub use clock::{ReadsSince, Timeline};
pub use engine::hedge_window::HedgeWindow;
/// The former name of [`RetryAfterHint`].
#[doc(hidden)]
#[allow(deprecated)]
pub use engine::hooks::RateLimit;
pub use engine::hooks::{
    self, Classify, HookSet, Hooks, OnReport, OnRetry, OnRetryError, RetryAfterHint, RetryEvent,
    Validate,
};
#[cfg(feature = "tracing")]
pub use engine::trace_report;
pub use engine::{Execution, Hedged, Idempotent, Operation, ThrottledPolicy};

/// What `#[resilient]` expands to: the protocol between the attribute and
/// the engine, one entry per shape of generated code. Not an API: it
/// changes with the attribute, in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::engine::expansion::{
        built, chosen_fallback_due, drive, finish_after, first_attempt_async, next_running,
        outcome_from, outcome_of, resume, resume_async, run_after, run_blocking_on_demand,
        with_expiring, with_tally,
    };
    pub use crate::engine::{
        Fingerprint, FirstFailure, FirstReads, FirstSuccess, IdempotentCall, MakeOperation, Next,
        Recipe, RunsOperation, fingerprint as idempotency_fingerprint, first_attempt_async_of,
        first_attempt_of, first_untimed_async_of,
    };
    pub use crate::observe::Tally;
    // `hedge = p95`'s delay until its window holds enough samples.
    pub use crate::engine::hedge_window::FALLBACK as HEDGE_FALLBACK;
    // Named by `MakeOperation`'s methods, which the expansion implements.
    pub use crate::engine::attempt::terms::FirstTerms;
    pub use crate::engine::plan::NamedListeners;
    // The idempotent run's claims, and a store behind one trait object.
    pub use crate::idempotency::coordinator::{Held, HeldInMemory};
    pub use crate::idempotency::erased::{ErasedStore, erase};
}
pub use error::{
    CircuitOpen, CircuitOpenError, ConfigError, EngineFailure, Rejected, RejectedError,
    ReportableError, RetryError, TimedOut, TimeoutError, ValidationError, ValidationFailed,
};
pub use limit::{LimitExceeded, LimitExceededError};
#[cfg(any(feature = "metrics", feature = "dashboard"))]
pub use observe::cardinality;
#[cfg(feature = "dashboard")]
pub use observe::dashboard;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
pub use observe::health;
#[cfg(feature = "metrics")]
pub use observe::series as metrics;
pub use policy::{RetryPolicy, RetryPolicyBuilder};
#[cfg(feature = "config")]
pub use report::SettingsSource;
pub use report::{
    AttemptKind, AttemptRecord, Delay, DelaySource, ExecutionError, ExecutionReport, FailureKind,
    Outcome, StopReason,
};
pub use retryable::{Retry, Retryable};
pub use settings::{DEFAULT_MAX_RATE_LIMIT_RETRIES, DEFAULT_MAX_RATE_LIMIT_WAIT};
pub use testing::FakeClock;
pub use throttle::{RetryBudget, RetryThrottle};
