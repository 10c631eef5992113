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
//! | `resilient_circuit_state` | gauge: 0 closed, 1 half-open, 2 open, 3 isolated | | `breaker` |
//! | `resilient_circuit_fleet_state` | gauge: a shared breaker's fleet, 0 closed, 1 half-open, 2 open | | `breaker` |
//! | `resilient_circuit_fleet_joined` | gauge: 1 when a shared breaker reaches its fleet, 0 when it decides alone | | `breaker` |
//! | `resilient_limit_in_flight` | gauge | | `limiter` |
//! | `resilient_limit_current` | gauge | | `limiter` |
//! | `resilient_operation_names_folded` | gauge | | |
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
//!         "resilient_operation_names_folded",
//!     ]
//! );
//! ```

use std::borrow::Cow;
use std::sync::OnceLock;
use std::time::Instant;

use ::metrics::{Key, Label};

use super::limits::{self, Level};
use crate::breaker::View;
use crate::catalog::{ATTEMPTS, DURATION, LIMIT_REJECTIONS};
pub use crate::catalog::{
    CIRCUIT_STATE, LIMIT_CURRENT, LIMIT_IN_FLIGHT, NAMES_FOLDED, SERIES, Series, SeriesKind,
    describe,
};
use crate::report::{AttemptKind, StopReason};

/// What the series a call records are registered with, as `metrics`'
/// macros would give it here.
pub(crate) static METADATA: ::metrics::Metadata<'static> =
    ::metrics::Metadata::new(module_path!(), ::metrics::Level::INFO, Some(module_path!()));

/// The outcomes the attempts counter is labelled with, in the order of
/// `CallKeys::attempts`' second index.
const OUTCOMES: [&str; 3] = ["success", "retryable_failure", "fatal_failure"];

/// The keys of the two series every call records, for one operation, each
/// made on its first use and kept in the operation's
/// [`Tally`](super::Tally): a key made for each call would allocate its
/// labels each time. A recorder finds its series by key, so the series
/// are the same as with keys made anew.
///
/// An operation named by a `&'static str` when its tally is written, as
/// the attribute's are, keeps the labels of its keys too, written by the
/// compiler ([`CallKeys::named`]): its keys borrow them, `metrics`' static
/// keys, so that no call allocates a key, the first included.
#[derive(Debug)]
pub(crate) struct CallKeys {
    /// The attempts counter's, by attempt kind and outcome.
    attempts: [[OnceLock<Key>; 3]; 3],
    /// The duration histogram's, by stop reason.
    durations: [OnceLock<Key>; 9],
    labels: Option<CallLabels>,
    /// Whether the keys serve every operation under the name of their
    /// labels: the overflow's, past the limit on names.
    folds: bool,
}

/// The labels of an operation's keys, for [`CallKeys::named`].
#[derive(Debug)]
struct CallLabels {
    operation: &'static str,
    /// `operation` alone: the counters labelled by operation only.
    by_operation: [Label; 1],
    /// The attempts counter's, as [`CallKeys::attempts`].
    attempts: [[[Label; 3]; 3]; 3],
    /// The duration histogram's, as [`CallKeys::durations`].
    durations: [[Label; 2]; 9],
}

impl CallLabels {
    const fn new(operation: &'static str) -> Self {
        /// Indexed as the outcomes are.
        const fn kind(operation: &'static str, kind: AttemptKind) -> [[Label; 3]; 3] {
            [
                attempt(operation, kind, 0),
                attempt(operation, kind, 1),
                attempt(operation, kind, 2),
            ]
        }
        const fn attempt(operation: &'static str, kind: AttemptKind, outcome: usize) -> [Label; 3] {
            [
                Label::from_static_parts("operation", operation),
                Label::from_static_parts("kind", kind.name()),
                Label::from_static_parts("outcome", OUTCOMES[outcome]),
            ]
        }
        const fn duration(operation: &'static str, stop: StopReason) -> [Label; 2] {
            [
                Label::from_static_parts("operation", operation),
                Label::from_static_parts("stop_reason", stop.name()),
            ]
        }
        // Indexed as the kinds and the stop reasons are numbered.
        CallLabels {
            operation,
            by_operation: [Label::from_static_parts("operation", operation)],
            attempts: [
                kind(operation, AttemptKind::Primary),
                kind(operation, AttemptKind::Fallback),
                kind(operation, AttemptKind::Hedge),
            ],
            durations: [
                duration(operation, StopReason::Succeeded),
                duration(operation, StopReason::NotRetryable),
                duration(operation, StopReason::AttemptsExhausted),
                duration(operation, StopReason::BudgetExhausted),
                duration(operation, StopReason::RateLimitExhausted),
                duration(operation, StopReason::CircuitOpen),
                duration(operation, StopReason::Throttled),
                duration(operation, StopReason::LimitExceeded),
                duration(operation, StopReason::LeftToCaller),
            ],
        }
    }
}

impl CallKeys {
    /// The keys of an operation whose name is found at each call.
    pub(crate) const fn new() -> Self {
        CallKeys::with_labels(None, false)
    }

    /// The keys of the operation called `operation`, with their labels.
    pub(crate) const fn named(operation: &'static str) -> Self {
        CallKeys::with_labels(Some(CallLabels::new(operation)), false)
    }

    /// The keys labelled `operation` of every operation whose counts are
    /// folded into one: whatever name a call gives, its series are these.
    pub(crate) const fn folding(operation: &'static str) -> Self {
        CallKeys::with_labels(Some(CallLabels::new(operation)), true)
    }

    const fn with_labels(labels: Option<CallLabels>, folds: bool) -> Self {
        CallKeys {
            attempts: [const { [const { OnceLock::new() }; 3] }; 3],
            durations: [const { OnceLock::new() }; 9],
            labels,
            folds,
        }
    }

    /// The labels kept, if they are `operation`'s (or serve any).
    fn labels_of(&'static self, operation: &str) -> Option<&'static CallLabels> {
        self.labels
            .as_ref()
            .filter(|labels| self.folds || labels.operation == operation)
    }

    /// The attempts counter's key for `operation`, `kind` and the
    /// `outcome`-th of [`OUTCOMES`].
    #[inline]
    pub(crate) fn attempt(
        &'static self,
        operation: &str,
        kind: AttemptKind,
        outcome: usize,
    ) -> Cow<'static, Key> {
        let cell = self
            .attempts
            .get(kind as usize)
            .and_then(|outcomes| outcomes.get(outcome));
        match cell.and_then(|cell| kept_for(cell, operation)) {
            Some(key) => Cow::Borrowed(key),
            None => self.first_attempt_key(cell, operation, kind, outcome),
        }
    }

    /// [`attempt`](CallKeys::attempt), the first time: the key is kept,
    /// made of the labels written beside it if they are `operation`'s.
    #[cold]
    #[inline(never)]
    fn first_attempt_key(
        &'static self,
        cell: Option<&'static OnceLock<Key>>,
        operation: &str,
        kind: AttemptKind,
        outcome: usize,
    ) -> Cow<'static, Key> {
        let written = || {
            let labels = self.labels_of(operation)?;
            let labels = labels.attempts.get(kind as usize)?.get(outcome)?;
            Some(Key::from_static_parts(ATTEMPTS, labels))
        };
        self.keep(cell, operation, written, || {
            Key::from_parts(
                ATTEMPTS,
                vec![
                    Label::new("operation", operation.to_owned()),
                    Label::from_static_parts("kind", kind.name()),
                    Label::from_static_parts("outcome", OUTCOMES[outcome]),
                ],
            )
        })
    }

    /// The duration histogram's key for `operation` and `stop`.
    #[inline]
    pub(crate) fn duration(&'static self, operation: &str, stop: StopReason) -> Cow<'static, Key> {
        let cell = self.durations.get(stop as usize);
        match cell.and_then(|cell| kept_for(cell, operation)) {
            Some(key) => Cow::Borrowed(key),
            None => self.first_duration_key(cell, operation, stop),
        }
    }

    /// [`duration`](CallKeys::duration), the first time, as
    /// [`first_attempt_key`](CallKeys::first_attempt_key).
    #[cold]
    #[inline(never)]
    fn first_duration_key(
        &'static self,
        cell: Option<&'static OnceLock<Key>>,
        operation: &str,
        stop: StopReason,
    ) -> Cow<'static, Key> {
        let written = || {
            let labels = self.labels_of(operation)?.durations.get(stop as usize)?;
            Some(Key::from_static_parts(DURATION, labels))
        };
        self.keep(cell, operation, written, || {
            Key::from_parts(
                DURATION,
                vec![
                    Label::new("operation", operation.to_owned()),
                    Label::from_static_parts("stop_reason", stop.name()),
                ],
            )
        })
    }

    /// The key of the counter `name`, labelled by `operation` alone.
    fn by_operation(&'static self, name: &'static str, operation: &str) -> Key {
        match self.labels_of(operation) {
            Some(labels) => Key::from_static_parts(name, &labels.by_operation),
            None => Key::from_parts(name, vec![Label::new("operation", operation.to_owned())]),
        }
    }
    /// The key `cell` keeps, kept now if it holds none: the key `written`
    /// makes of the labels written beside it, or else the key `make`
    /// makes; a key that is not `operation`'s (an operation whose name
    /// changed, or a label value with no cell) is the key `make` makes
    /// now, unless these keys fold every name into theirs.
    ///
    /// A kept key is retained: its name and labels are shared, so that a
    /// recorder that clones it (to store it, on first sight) allocates
    /// nothing either.
    fn keep(
        &'static self,
        cell: Option<&'static OnceLock<Key>>,
        operation: &str,
        written: impl FnOnce() -> Option<Key>,
        make: impl Fn() -> Key,
    ) -> Cow<'static, Key> {
        let Some(cell) = cell else {
            return Cow::Owned(make());
        };
        let kept = cell.get_or_init(|| written().unwrap_or_else(|| make().to_retained()));
        match kept_for(cell, operation) {
            Some(key) => Cow::Borrowed(key),
            None if self.folds => Cow::Borrowed(kept),
            None => Cow::Owned(make()),
        }
    }
}

/// The key `cell` keeps, if it is the one of `operation`.
#[inline]
fn kept_for(cell: &'static OnceLock<Key>, operation: &str) -> Option<&'static Key> {
    cell.get()
        .filter(|key| key.labels().next().map(Label::value) == Some(operation))
}

/// Sets every live breaker's gauge to its state now: half-open for an
/// open breaker whose break has ended, though no call has come to notice;
/// and every limiter's gauges to its latest reading.
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
    for level in limits::levels() {
        gauge_level(level);
    }
    folded_gauge(super::cardinality::folded());
}

/// Sets the gauge of names counted under the overflow name.
pub(crate) fn folded_gauge(estimate: u64) {
    ::metrics::gauge!(NAMES_FOLDED).set(estimate as f64);
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

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [AttemptKind; 3] = [
        AttemptKind::Primary,
        AttemptKind::Fallback,
        AttemptKind::Hedge,
    ];

    const STOPS: [StopReason; 9] = [
        StopReason::Succeeded,
        StopReason::NotRetryable,
        StopReason::AttemptsExhausted,
        StopReason::BudgetExhausted,
        StopReason::RateLimitExhausted,
        StopReason::CircuitOpen,
        StopReason::Throttled,
        StopReason::LimitExceeded,
        StopReason::LeftToCaller,
    ];

    fn labels(key: &Key) -> Vec<(&str, &str)> {
        key.labels()
            .map(|label| (label.key(), label.value()))
            .collect()
    }

    static NAMED: CallKeys = CallKeys::named("checkout");
    static UNNAMED: CallKeys = CallKeys::new();

    #[test]
    fn the_keys_of_written_labels_are_the_keys_made_at_run_time() {
        for keys in [&NAMED, &UNNAMED] {
            for kind in KINDS {
                for (outcome, label) in OUTCOMES.into_iter().enumerate() {
                    let key = keys.attempt("checkout", kind, outcome);
                    assert!(matches!(key, Cow::Borrowed(_)), "kept");
                    assert_eq!(key.name(), ATTEMPTS);
                    assert_eq!(
                        labels(&key),
                        [
                            ("operation", "checkout"),
                            ("kind", kind.name()),
                            ("outcome", label)
                        ]
                    );
                    // The recorder finds the series by key: its hash too.
                    let made = Key::from_parts(ATTEMPTS, key.labels().cloned().collect::<Vec<_>>());
                    assert_eq!(key.get_hash(), made.get_hash());
                }
            }
            for stop in STOPS {
                let key = keys.duration("checkout", stop);
                assert!(matches!(key, Cow::Borrowed(_)), "kept");
                assert_eq!(
                    labels(&key),
                    [("operation", "checkout"), ("stop_reason", stop.name())]
                );
            }
            let retries = keys.by_operation("resilient_retries_total", "checkout");
            assert_eq!(retries.name(), "resilient_retries_total");
            assert_eq!(labels(&retries), [("operation", "checkout")]);
        }
    }

    #[test]
    fn written_labels_serve_only_the_operation_they_name() {
        static OTHER: CallKeys = CallKeys::named("carts");
        let key = OTHER.attempt("checkout", AttemptKind::Primary, 0);
        assert_eq!(
            labels(&key),
            [
                ("operation", "checkout"),
                ("kind", "primary"),
                ("outcome", "success")
            ]
        );
        let key = OTHER.duration("checkout", StopReason::Succeeded);
        assert_eq!(labels(&key)[0], ("operation", "checkout"));
        let key = OTHER.by_operation("resilient_fallbacks_total", "checkout");
        assert_eq!(labels(&key), [("operation", "checkout")]);
    }

    #[test]
    fn the_labels_are_numbered_as_the_kinds_and_stop_reasons() {
        for (index, kind) in KINDS.into_iter().enumerate() {
            assert_eq!(kind as usize, index);
        }
        for (index, stop) in STOPS.into_iter().enumerate() {
            assert_eq!(stop as usize, index);
        }
        assert_eq!(STOPS.len(), UNNAMED.durations.len());
    }
}
