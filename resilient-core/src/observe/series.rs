//! The series `resilient` records through the [`metrics`](https://docs.rs/metrics)
//! facade (feature `metrics`), what each means, and the refresh of the
//! breakers' gauges.
//!
//! Every series exists from the start, so that a query or an alert over it
//! never meets an absent series where it should read zero:
//!
//! * each is described once (`# HELP` text and unit) when the first
//!   operation runs or the first breaker is built, and again by
//!   [`describe`], for a recorder installed later;
//! * an operation's counters appear at zero on its first call, labelled
//!   `kind = "primary"` for the attempts;
//! * a breaker's gauge appears, closed, when the breaker is built, and
//!   follows every transition. Open → half-open happens by the passing of
//!   time, with no call to notice it, and no task is spawned to watch the
//!   clock: [`refresh`] sets every breaker's gauge to its state now. Call
//!   it where the scrape is rendered, or on a timer of your own; the
//!   dashboard (feature `dashboard`) calls it every second while its page
//!   is open.
//!
//! A call records its attempts and its duration with keys made on their
//! first use and kept, so that it allocates nothing: only the recorder's
//! own lookup of the series remains. An `#[resilient]` function's keys are
//! `metrics`' static keys, whose labels the compiler writes into the
//! function's `static`: its first call makes none either.
//!
//! [`SERIES`] lists them all:
//!
//! | series | kind | unit | labels |
//! |---|---|---|---|
//! | `resilient_attempts_total` | counter | | `operation`, `kind` (`primary`, `hedge`, `fallback`), `outcome` (`success`, `retryable_failure`, `fatal_failure`) |
//! | `resilient_retries_total` | counter | | `operation` |
//! | `resilient_fallbacks_total` | counter | | `operation` |
//! | `resilient_circuit_rejections_total` | counter | | `operation` |
//! | `resilient_operation_duration_seconds` | histogram | seconds | `operation`, `stop_reason` |
//! | `resilient_idempotent_calls_total` | counter | | `operation`, `status` (`replayed`, `joined`, `executed`, `in_flight`, `conflict`, `store_error`) |
//! | `resilient_chaos_injections_total` | counter | | `operation`, `kind` (`fault`, `outcome`, `latency`) |
//! | `resilient_limit_rejections_total` | counter | | `operation`, `limiter` |
//! | `resilient_limit_queued_seconds` | histogram | seconds | `operation` |
//! | `resilient_adaptive_throttle_rejections_total` | counter | | `operation`, `throttle` |
//! | `resilient_circuit_state` | gauge: 0 closed, 1 half-open, 2 open, 3 isolated | | `breaker` |
//! | `resilient_circuit_fleet_state` | gauge: a shared breaker's fleet, 0 closed, 1 half-open, 2 open | | `breaker` |
//! | `resilient_circuit_fleet_joined` | gauge: 1 when a shared breaker reaches its fleet, 0 when it decides alone | | `breaker` |
//! | `resilient_limit_in_flight` | gauge | | `limiter` |
//! | `resilient_limit_current` | gauge | | `limiter` |
//! | `resilient_adaptive_throttle_probability` | gauge: within 0..=1 | | `throttle` |
//! | `resilient_operation_names_folded` | gauge | | |
//! | `resilient_endpoint_evictions_total` | counter | | `endpoints` (a per-endpoint map's prefix), `kind` (`breaker`, `throttle`, `limits`) |
//! | `resilient_replica_ejected` | gauge: 1 ejected, 0 in the set | | `operation`, `replica` |
//! | `resilient_replica_ejections_total` | counter | | `operation`, `replica` |
//!
//! # Cardinality
//!
//! Every series labelled `operation` has one set per operation name, kept
//! by the recorder for as long as the process runs. The first 1 000 names
//! given at run time ([`cardinality::limit`](crate::cardinality::limit))
//! are labelled as given; the calls of every later one are labelled
//! [`resilient.overflow`](crate::cardinality::OVERFLOW), and
//! `resilient_operation_names_folded` estimates how many distinct names
//! were folded so. The function of an attribute without `name` is never
//! folded: there are as many as the program has.
//!
//! The breakers of an [`EndpointBreakers`](crate::endpoint::EndpointBreakers),
//! one per key, label their `resilient_circuit_state` gauge by name for
//! the first 1 000 names, and `"{prefix}/resilient.overflow"` past them,
//! so that 100 000 hosts make at most 1 001 label values per map.
//! `resilient_endpoint_evictions_total` appears at zero when the map is
//! built.
//!
//! A limiter's series appear with the first call of an operation that
//! uses it: its rejections at zero for that operation, its gauges at its
//! level then. A limiter is borrowed by each call, so its gauges are
//! readings: taken as each call that used it ends, and set by [`refresh`]
//! (and at each refusal). `resilient_limit_current` is the concurrency
//! limit in force of a limiter that counts attempts in flight (a
//! `Bulkhead`'s max, an `AdaptiveLimit`'s current limit, which moves);
//! `resilient_limit_queued_seconds` has a sample for each
//! attempt that waited for its permits, none for one admitted at once.
//! `resilient_operation_names_folded` is set when the estimate grows, and
//! by [`refresh`].
//!
//! The replicas of a tower layer or a reqwest middleware with an
//! [`OutlierDetection`](crate::endpoint::OutlierDetection) appear at zero
//! (in the set, never ejected) with the first call of the operation, one
//! pair of series per replica in the set then, labelled by its base URL;
//! a replica that joins a dynamic set later appears with its first
//! ejection. An ejection ends by the passing of time: [`refresh`] sets
//! each replica's gauge as of now. The labels are bounded by the set,
//! whose replicas the detection forgets once they leave it.
//!
//! An adaptive throttle's rejections appear at zero with the first call
//! of an operation that uses it, and count each attempt it refused
//! locally; its probability gauge is set as each call that used it ends.
//! An unnamed throttle is labelled `adaptive`.
//!
//! ```
//! use resilient::metrics::{self, SeriesKind};
//!
//! let gauges: Vec<&str> = metrics::SERIES
//!     .iter()
//!     .filter(|series| series.kind == SeriesKind::Gauge)
//!     .map(|series| series.name)
//!     .collect();
//! assert_eq!(
//!     gauges,
//!     [
//!         "resilient_circuit_state",
//!         "resilient_circuit_fleet_state",
//!         "resilient_circuit_fleet_joined",
//!         "resilient_limit_in_flight",
//!         "resilient_limit_current",
//!         "resilient_adaptive_throttle_probability",
//!         "resilient_operation_names_folded",
//!         "resilient_replica_ejected",
//!     ]
//! );
//! ```

use std::time::Instant;

use ::metrics::Key;

use super::keys::{CallKeys, METADATA, OUTCOMES};
use super::levels::{self, Level};
use crate::breaker::View;
pub use crate::catalog::{
    ADAPTIVE_PROBABILITY, CIRCUIT_STATE, ENDPOINT_EVICTIONS, LIMIT_CURRENT, LIMIT_IN_FLIGHT,
    NAMES_FOLDED, REPLICA_EJECTED, REPLICA_EJECTIONS, SERIES, Series, SeriesKind, describe,
};
use crate::catalog::{ADAPTIVE_REJECTIONS, LIMIT_REJECTIONS};
use crate::report::AttemptKind;

/// Sets every live breaker's gauge to its state now: half-open for an
/// open breaker whose break has ended, though no call has come to notice;
/// every limiter's gauges to its latest reading; and every replica's
/// ejection gauge, 0 for one whose ejection ended.
///
/// Cheap (a few loads per breaker) and spawns nothing: call it where the
/// scrape is rendered, or from a timer of your own.
///
/// ```
/// use resilient::CircuitBreaker;
/// use std::time::Duration;
///
/// let breaker = CircuitBreaker::builder()
///     .name("payments")
///     .break_duration(Duration::from_secs(2))
///     .build()
///     .unwrap();
/// // In the handler that renders the scrape, right before rendering:
/// resilient::metrics::refresh();
/// # drop(breaker);
/// ```
///
/// Or, on a tokio runtime, a task of your own:
///
/// ```no_run
/// # async fn run() {
/// let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
/// tokio::spawn(async move {
///     loop {
///         every.tick().await;
///         resilient::metrics::refresh();
///     }
/// });
/// # }
/// ```
pub fn refresh() {
    refresh_at(Instant::now());
}

/// [`refresh`], as of `now`: for breakers consulted with a virtual clock.
///
/// ```
/// use resilient::CircuitBreaker;
/// use std::time::Instant;
///
/// let breaker = CircuitBreaker::default();
/// resilient::metrics::refresh_at(Instant::now());
/// # drop(breaker);
/// ```
pub fn refresh_at(now: Instant) {
    for breaker in View::live() {
        breaker.gauge(breaker.state_at(now).0);
    }
    for level in levels::all() {
        gauge_level(level);
    }
    super::replicas::refresh(now);
    super::cardinality::folded_gauge(super::cardinality::folded());
}

/// Sets a limiter's gauges to its latest reading.
fn gauge_level(level: &Level) {
    if let Some(in_flight) = level.in_flight() {
        ::metrics::gauge!(LIMIT_IN_FLIGHT, "limiter" => level.name).set(in_flight as f64);
    }
    if let Some(current) = level.current() {
        ::metrics::gauge!(LIMIT_CURRENT, "limiter" => level.name).set(current as f64);
    }
}

/// A limiter joined the operation called `operation`: its rejections
/// there start at zero, and its gauges read its level.
pub(crate) fn limiter_joined(operation: &str, level: &Level) {
    ::metrics::counter!(
        LIMIT_REJECTIONS,
        "operation" => operation.to_owned(),
        "limiter" => level.name
    )
    .increment(0);
    gauge_level(level);
}

/// An adaptive throttle named `throttle` joined the operation called
/// `operation`: its rejections there start at zero.
pub(crate) fn adaptive_joined(operation: &str, throttle: &'static str) {
    ::metrics::counter!(
        ADAPTIVE_REJECTIONS,
        "operation" => operation.to_owned(),
        "throttle" => throttle
    )
    .increment(0);
}

/// Sets an adaptive throttle's gauge to its reading.
pub(crate) fn adaptive_level(reading: &crate::throttle::Reading) {
    ::metrics::gauge!(ADAPTIVE_PROBABILITY, "throttle" => reading.name).set(reading.probability);
}

/// The counters of the operation called `operation`, made to exist at
/// zero, with the keys in `keys`, the operation's own.
pub(crate) fn zero(operation: &str, keys: &'static CallKeys) {
    let register = |key: &Key| {
        ::metrics::with_recorder(|recorder| recorder.register_counter(key, &METADATA)).increment(0);
    };
    for outcome in 0..OUTCOMES.len() {
        register(&keys.attempt(operation, AttemptKind::Primary, outcome));
    }
    for name in [
        "resilient_retries_total",
        "resilient_fallbacks_total",
        "resilient_circuit_rejections_total",
    ] {
        register(&keys.by_operation(name, operation));
    }
}
