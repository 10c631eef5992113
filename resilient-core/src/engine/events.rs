//! What the engine tells the outside world as it runs: `tracing` events
//! (feature `tracing`) and `metrics` counters and a histogram (feature
//! `metrics`), both named and labelled as the crate documentation lists.
//! Every event and every series carries the operation's name (a series,
//! the overflow's past the limit on names: `observe::cardinality`). The two
//! series every call records (attempts and duration) go through keys kept
//! per operation, so that a call builds none. Without the features every
//! function here is empty and compiles away.

// Which arguments a function uses depends on which features are on.
#![cfg_attr(
    not(all(feature = "tracing", feature = "metrics")),
    allow(unused_variables)
)]

use std::borrow::Cow;
use std::time::Duration;

use crate::chaos::Injection;
use crate::idempotency::IdempotencyStored;
use crate::observe::Tally;
use crate::report::{AttemptKind, DelaySource, ExecutionError, StopReason};

/// The operation's name, as events and series carry it.
pub(crate) type Name = Cow<'static, str>;

#[cfg(feature = "metrics")]
use crate::observe::keys::METADATA;

#[cfg(feature = "tracing")]
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// How an attempt ended, as the attempts counter labels it: numbered as
/// the series' outcome labels are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutcomeLabel {
    Success,
    RetryableFailure,
    FatalFailure,
}

impl OutcomeLabel {
    pub(crate) fn of_failure(retryable: bool) -> OutcomeLabel {
        if retryable {
            OutcomeLabel::RetryableFailure
        } else {
            OutcomeLabel::FatalFailure
        }
    }
}

/// An attempt of `kind` ended. Recorded with the keys kept in `tally`,
/// the operation's own, or (`None`) the one found by its name.
#[inline]
pub(crate) fn attempt_ended(
    operation: &Name,
    tally: Option<&'static Tally>,
    kind: AttemptKind,
    ended: OutcomeLabel,
) {
    #[cfg(feature = "metrics")]
    {
        let keys = crate::observe::call_keys(operation, tally);
        // Numbered as `OUTCOMES` lists them.
        let key = keys.attempt(operation, kind, ended as usize);
        metrics::with_recorder(|recorder| recorder.register_counter(&key, &METADATA)).increment(1);
    }
}

/// The operation ended after `elapsed`, for `stop`. Recorded with the
/// keys kept in `tally`, as [`attempt_ended`].
#[inline]
pub(crate) fn finished(
    operation: &Name,
    tally: Option<&'static Tally>,
    elapsed: Duration,
    stop: StopReason,
) {
    #[cfg(feature = "metrics")]
    {
        let key = crate::observe::call_keys(operation, tally).duration(operation, stop);
        metrics::with_recorder(|recorder| recorder.register_histogram(&key, &METADATA))
            .record(elapsed.as_secs_f64());
    }
}

/// An idempotent call ended: `status` is how it got its result
/// (`replayed`, `joined`, `executed`) or why it got none (`in_flight`,
/// `conflict`, `store_error`).
#[inline]
pub(crate) fn idempotent_call(operation: &Name, status: &'static str) {
    #[cfg(feature = "metrics")]
    metrics::counter!(
        "resilient_idempotent_calls_total",
        "operation" => crate::observe::cardinality::label(operation),
        "status" => status
    )
    .increment(1);
}

/// An executed idempotent call's value was not stored for a reason the
/// caller may not expect (the store refused it, failed, or the claim was
/// lost): a warning naming the key, since every later call runs again.
#[inline]
pub(crate) fn value_not_stored(operation: &Name, key: &str, stored: IdempotencyStored) {
    let unexpected = matches!(
        stored,
        IdempotencyStored::Unserializable
            | IdempotencyStored::DoesNotReadBack
            | IdempotencyStored::StoreFailed
            | IdempotencyStored::ClaimLost
    );
    #[cfg(feature = "tracing")]
    if unexpected {
        tracing::warn!(
            operation = %operation,
            idempotency_key = key,
            reason = stored.as_str(),
            "the value of an idempotent call was not stored: later calls with this key run again"
        );
    }
    #[cfg(not(feature = "tracing"))]
    let _ = unexpected;
}

pub(crate) fn attempt_failed(operation: &Name, attempt: u32, error: &ExecutionError) {
    #[cfg(feature = "tracing")]
    {
        let operation = operation.as_ref();
        let (kind, retryable, message) = (error.kind(), error.retryable(), error.message());
        // One attempt is not the call: the call's end says whether it
        // failed for good (`call.failed`).
        tracing::debug!(name: "attempt.failed", operation, attempt, ?kind, retryable, error = message);
    }
}

pub(crate) fn retry_scheduled(
    operation: &Name,
    attempt: u32,
    delay: Duration,
    source: DelaySource,
) {
    #[cfg(feature = "tracing")]
    tracing::debug!(
        name: "retry.scheduled",
        operation = operation.as_ref(),
        attempt,
        delay_ms = millis(delay),
        ?source
    );
    #[cfg(feature = "metrics")]
    metrics::counter!("resilient_retries_total", "operation" => crate::observe::cardinality::label(operation)).increment(1);
}

pub(crate) fn rate_limit_wait_exceeded(
    operation: &Name,
    attempt: u32,
    hint: Duration,
    waited: Duration,
    max_wait: Duration,
) {
    #[cfg(feature = "tracing")]
    tracing::debug!(
        name: "rate_limit.wait_exceeded",
        operation = operation.as_ref(),
        attempt,
        hint_ms = millis(hint),
        waited_ms = millis(waited),
        max_wait_ms = millis(max_wait)
    );
}

pub(crate) fn circuit_rejected(operation: &Name, attempt: u32) {
    #[cfg(feature = "tracing")]
    tracing::debug!(name: "circuit.rejected", operation = operation.as_ref(), attempt);
    #[cfg(feature = "metrics")]
    metrics::counter!("resilient_circuit_rejections_total", "operation" => crate::observe::cardinality::label(operation))
        .increment(1);
}

/// The limiter called `limiter` refused an attempt; `shed`, the call's
/// priority, when it kept its last permits for higher ones.
#[cold]
pub(crate) fn limit_refused(
    operation: &Name,
    limiter: &'static str,
    shed: Option<crate::limit::Priority>,
) {
    #[cfg(feature = "tracing")]
    match shed {
        Some(priority) => tracing::debug!(
            name: "limit.refused",
            operation = operation.as_ref(),
            limiter,
            shed = priority.as_str()
        ),
        None => tracing::debug!(name: "limit.refused", operation = operation.as_ref(), limiter),
    }
    #[cfg(feature = "metrics")]
    {
        let operation = crate::observe::cardinality::label(operation);
        metrics::counter!(
            "resilient_limit_rejections_total",
            "operation" => operation.clone(),
            "limiter" => limiter
        )
        .increment(1);
        if let Some(priority) = shed {
            metrics::counter!(
                crate::catalog::LIMIT_SHED,
                "operation" => operation,
                "limiter" => limiter,
                "priority" => priority.as_str()
            )
            .increment(1);
        }
    }
    #[cfg(not(any(feature = "tracing", feature = "metrics")))]
    let _ = (operation, limiter, shed);
}

/// The adaptive throttle called `throttle` refused an attempt locally.
#[cold]
pub(crate) fn adaptive_rejected(operation: &Name, throttle: &'static str) {
    #[cfg(feature = "tracing")]
    tracing::debug!(name: "adaptive_throttle.rejected", operation = operation.as_ref(), throttle);
    #[cfg(feature = "metrics")]
    metrics::counter!(
        "resilient_adaptive_throttle_rejections_total",
        "operation" => crate::observe::cardinality::label(operation),
        "throttle" => throttle
    )
    .increment(1);
}

/// An attempt waited `queued` for its limiters' permits (and got them, or
/// was refused at the end of its wait).
#[cold]
pub(crate) fn limit_queued(operation: &Name, queued: Duration) {
    #[cfg(feature = "metrics")]
    metrics::histogram!(
        "resilient_limit_queued_seconds",
        "operation" => crate::observe::cardinality::label(operation)
    )
    .record(queued.as_secs_f64());
}

/// The call ended: `call.failed` at `WARN` if it failed for good, with no
/// attempt and no fallback answering, and its error is not one the
/// operation ignores, nor its caller's giving up (`DEBUG` then). A call
/// that succeeded says nothing.
#[inline]
pub(crate) fn call_ended(report: &crate::ExecutionReport) {
    #[cfg(feature = "tracing")]
    if report.stop_reason() != StopReason::Succeeded {
        call_failed(report);
    }
    #[cfg(not(feature = "tracing"))]
    let _ = report;
}

#[cfg(feature = "tracing")]
#[cold]
fn call_failed(report: &crate::ExecutionReport) {
    let last = report.attempts().last();
    if last.is_some_and(|last| last.error().is_none()) {
        // A fallback answered: `fallback.used` said so.
        return;
    }
    let (operation, stop_reason) = (report.name(), report.stop_reason().name());
    let (attempt_count, elapsed_ms) = (report.attempt_count(), millis(report.elapsed()));
    let error = last
        .and_then(|last| last.error())
        .map(|error| error.message());
    if matches!(
        report.stop_reason(),
        StopReason::Ignored | StopReason::Cancelled
    ) {
        tracing::debug!(name: "call.failed", operation, stop_reason, attempt_count, elapsed_ms, error);
    } else {
        tracing::warn!(name: "call.failed", operation, stop_reason, attempt_count, elapsed_ms, error);
    }
}

pub(crate) fn fallback_used(operation: &Name, attempt: u32, ok: bool) {
    #[cfg(feature = "tracing")]
    tracing::info!(name: "fallback.used", operation = operation.as_ref(), attempt, ok);
    #[cfg(feature = "metrics")]
    metrics::counter!("resilient_fallbacks_total", "operation" => crate::observe::cardinality::label(operation)).increment(1);
}

/// Emits a finished report as one `tracing` event, `operation.report` at
/// `INFO` (`WARN` when the operation failed), with the fields `operation`,
/// `attempt_count`, `retry_count`, `stop_reason`, `fallback_used`,
/// `elapsed_ms`, and the report's table as `report`. A ready hook for the
/// attribute's `report = resilient::trace_report` (feature `tracing`).
///
/// ```
/// use resilient::{FakeClock, Operation};
///
/// let result = Operation::new()
///     .name("users.get")
///     .clock(FakeClock::new())
///     .on_report(resilient::trace_report)
///     .run(|_| Ok::<_, String>(1))
///     .into_result();
/// assert_eq!(result, Ok(1));
/// ```
#[cfg(feature = "tracing")]
pub fn trace_report(report: &crate::ExecutionReport) {
    let (operation, attempt_count, retry_count) =
        (report.name(), report.attempt_count(), report.retry_count());
    let (stop_reason, fallback_used, elapsed_ms) = (
        report.stop_reason().name(),
        report.fallback_used(),
        millis(report.elapsed()),
    );
    let succeeded = report.stop_reason() == StopReason::Succeeded
        || report
            .attempts()
            .last()
            .is_some_and(|last| last.error().is_none());
    if succeeded {
        tracing::info!(name: "operation.report", operation, attempt_count, retry_count, stop_reason, fallback_used, elapsed_ms, report = %report);
    } else {
        tracing::warn!(name: "operation.report", operation, attempt_count, retry_count, stop_reason, fallback_used, elapsed_ms, report = %report);
    }
}

/// Chaos injected `kind` into attempt `attempt`.
#[cold]
pub(crate) fn chaos_injected(operation: &Name, attempt: u32, kind: Injection) {
    #[cfg(feature = "tracing")]
    tracing::info!(
        name: "chaos.injected",
        operation = operation.as_ref(),
        attempt,
        kind = kind.as_str()
    );
    #[cfg(feature = "metrics")]
    metrics::counter!(
        "resilient_chaos_injections_total",
        "operation" => crate::observe::cardinality::label(operation),
        "kind" => kind.as_str()
    )
    .increment(1);
}

/// A `tracing` subscriber that keeps each event's level and name, for the
/// tests of which events are emitted at which level.
#[cfg(all(test, feature = "tracing"))]
pub(crate) mod seen {
    use std::sync::{Arc, Mutex};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Level, Metadata, Subscriber};

    #[derive(Clone, Default)]
    pub(crate) struct Seen(Arc<Mutex<Vec<(Level, &'static str)>>>);

    impl Seen {
        /// The events seen while `run` ran, in order.
        pub(crate) fn during(run: impl FnOnce()) -> Vec<(Level, &'static str)> {
            let seen = Seen::default();
            tracing::subscriber::with_default(seen.clone(), run);
            seen.0.lock().unwrap().clone()
        }
    }

    impl Subscriber for Seen {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let meta = event.metadata();
            self.0.lock().unwrap().push((*meta.level(), meta.name()));
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}

#[cfg(all(test, feature = "tracing"))]
mod tests {
    use super::seen::Seen;
    use crate::{Backoff, FakeClock, Operation};
    use tracing::Level;

    #[derive(Debug, PartialEq, thiserror::Error)]
    enum Failure {
        #[error("flaky")]
        Flaky,
        #[error("gone")]
        Gone,
    }

    fn run(errors: Vec<Failure>, fallback: bool) -> Vec<(Level, &'static str)> {
        Seen::during(move || {
            let mut errors = errors.into_iter();
            let operation = Operation::new()
                .name("events.levels")
                .clock(FakeClock::new())
                .max_attempts(3)
                .backoff(Backoff::constant(std::time::Duration::from_millis(1)))
                .retry_if(|error: &Failure| *error == Failure::Flaky);
            let fallback = fallback.then_some(|_| Ok(0));
            let outcome =
                operation.run_with_fallback(|_| errors.next().map_or(Ok(1), Err), fallback);
            let _ = outcome.into_result();
        })
        .into_iter()
        .filter(|(_, name)| !name.starts_with("event "))
        .collect()
    }

    #[test]
    fn retried_attempts_are_debug_and_a_call_that_failed_for_good_is_one_warning() {
        assert_eq!(
            run(vec![Failure::Flaky, Failure::Flaky, Failure::Flaky], false),
            [
                (Level::DEBUG, "attempt.failed"),
                (Level::DEBUG, "retry.scheduled"),
                (Level::DEBUG, "attempt.failed"),
                (Level::DEBUG, "retry.scheduled"),
                (Level::DEBUG, "attempt.failed"),
                (Level::WARN, "call.failed"),
            ]
        );
        assert_eq!(
            run(vec![Failure::Gone], false),
            [
                (Level::DEBUG, "attempt.failed"),
                (Level::WARN, "call.failed")
            ]
        );
    }

    #[test]
    fn a_call_that_recovered_says_nothing_above_debug_but_its_fallback() {
        assert_eq!(
            run(vec![Failure::Flaky], false),
            [
                (Level::DEBUG, "attempt.failed"),
                (Level::DEBUG, "retry.scheduled")
            ]
        );
        assert_eq!(
            run(vec![Failure::Gone], true),
            [
                (Level::DEBUG, "attempt.failed"),
                (Level::INFO, "fallback.used")
            ]
        );
    }
}
