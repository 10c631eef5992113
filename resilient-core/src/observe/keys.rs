//! The keys of the series every call records, made once per operation
//! and kept in its [`Tally`](super::Tally), and the metadata they are
//! registered with.

use std::borrow::Cow;
use std::sync::OnceLock;

use ::metrics::{Key, Label};

use crate::catalog::{ATTEMPTS, DURATION};
use crate::report::{AttemptKind, StopReason};

/// What the series a call records are registered with, as `metrics`'
/// macros would give it here.
pub(crate) static METADATA: ::metrics::Metadata<'static> =
    ::metrics::Metadata::new(module_path!(), ::metrics::Level::INFO, Some(module_path!()));

/// The outcomes the attempts counter is labelled with, in the order of
/// `CallKeys::attempts`' second index.
pub(super) const OUTCOMES: [&str; 3] = ["success", "retryable_failure", "fatal_failure"];

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
    durations: [OnceLock<Key>; 10],
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
    durations: [[Label; 2]; 10],
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
                duration(operation, StopReason::Ignored),
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
            durations: [const { OnceLock::new() }; 10],
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
    pub(super) fn by_operation(&'static self, name: &'static str, operation: &str) -> Key {
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

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [AttemptKind; 3] = [
        AttemptKind::Primary,
        AttemptKind::Fallback,
        AttemptKind::Hedge,
    ];

    const STOPS: [StopReason; 10] = [
        StopReason::Succeeded,
        StopReason::NotRetryable,
        StopReason::AttemptsExhausted,
        StopReason::BudgetExhausted,
        StopReason::RateLimitExhausted,
        StopReason::CircuitOpen,
        StopReason::Throttled,
        StopReason::LimitExceeded,
        StopReason::LeftToCaller,
        StopReason::Ignored,
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
