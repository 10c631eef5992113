//! Every option of the attribute, in one table: its name, the kind of value
//! it takes (which says how `attr.rs` parses it), an example of that value,
//! how `expand` turns it into builder calls, what it requires, and what it
//! does to the shape of the expansion (when the run reads it, whether a
//! `Recipe` holds it, whether it gates attempts, how it changes the run).
//! The parser, the generic checks (`valid.rs`) and the expansion dispatch on
//! a row's fields, never on its name: a new option is a new row, and, when
//! its syntax or its expansion is new, a new `Kind` or `Expand` beside it.

use crate::duration::Nanos;

mod spec;

pub(crate) use spec::{Conflict, ErrorNeed, Expand, Kind, Need, OptionSpec, Run, Side, WithError};

const NEEDS_RETRIES: Need = Need {
    any_of: &["retries", "retry"],
    how: "add `retries = N`, the number of retries after the first attempt",
};

const NEEDS_RETRY_AFTER: Need = Need {
    any_of: &["retry_after"],
    how: "add `retry_after = |e| e.retry_after()`; without a Retry-After hint there is no wait to cap",
};

/// Said of each option that a whole `RetryPolicy` already decides.
const DECIDED_BY_POLICY: Conflict = Conflict {
    with: "retry",
    why: "the `RetryPolicy` passed to `retry` already decides it; configure it on the policy, or remove `retry` and use `{name}`",
};

const TIMEOUT_ERROR: ErrorNeed = ErrorNeed {
    bound: "TimeoutError",
    function: "timed_out",
    only_async: false,
    unless: None,
};

pub(crate) const RETRIES: OptionSpec =
    OptionSpec::new("retries", Kind::Retries, "3", Expand::Attempts)
        .conflicts(&[DECIDED_BY_POLICY])
        .in_recipe();

pub(crate) const RETRY_ON: OptionSpec = OptionSpec::new(
    "retry_on",
    Kind::Variants {
        nothing: "retry nothing",
        every: "retry every error",
    },
    "[Timeout, Transient]",
    Expand::VariantTest("retry_if"),
)
.needs(NEEDS_RETRIES)
.conflicts(&classifier_conflicts("retry_if"))
.in_recipe();

pub(crate) const RETRY_IF: OptionSpec =
    OptionSpec::call("retry_if", Kind::Expression, "|e| e.is_transient()")
        .needs(NEEDS_RETRIES)
        .conflicts(&classifier_conflicts("retry_on"))
        .checked_by("retry_classifier");

/// The errors that end the call at once and count as neither a success nor
/// a failure for the gates, by variant.
pub(crate) const IGNORE_ON: OptionSpec = OptionSpec::new(
    "ignore_on",
    Kind::Variants {
        nothing: "ignore nothing",
        every: "ignore no error",
    },
    "[Cancelled, NotFound]",
    Expand::VariantTest("ignore_if"),
)
.conflicts(&[Conflict {
    with: "ignore_if",
    why: "both decide which errors are ignored; keep one (an `ignore_if` function can test variants with `matches!`)",
}]);

/// The errors that are ignored, by a test `Fn(&E) -> bool`.
pub(crate) const IGNORE_IF: OptionSpec =
    OptionSpec::call("ignore_if", Kind::Expression, "is_cancelled").checked_by("ignore_classifier");

/// The conflicts of an option that decides which errors are retried, with
/// the policy and with `other`, the option that decides it too.
const fn classifier_conflicts(other: &'static str) -> [Conflict; 2] {
    [
        DECIDED_BY_POLICY,
        Conflict {
            with: other,
            why: "both decide which errors are retried; keep one (a `retry_if` closure can test variants with `matches!`)",
        },
    ]
}

pub(crate) const BACKOFF: OptionSpec = OptionSpec::call(
    "backoff",
    Kind::Backoff,
    "exponential(base = \"100ms\", max = \"10s\")",
)
.needs(NEEDS_RETRIES)
.conflicts(&[DECIDED_BY_POLICY])
.in_recipe();

/// Seeds the backoff's jitter, so that a test can assert an exact schedule.
pub(crate) const JITTER_SEED: OptionSpec = OptionSpec::call("jitter_seed", Kind::Expression, "7")
    .needs(NEEDS_RETRIES)
    .conflicts(&[DECIDED_BY_POLICY])
    .in_recipe();

/// A policy may bring a throttle, which gates every attempt.
pub(crate) const RETRY: OptionSpec =
    OptionSpec::new("retry", Kind::Expression, "POLICY", Expand::Policy).gate();

pub(crate) const TIMEOUT: OptionSpec = OptionSpec {
    async_only: Some(
        "a blocking fn can't be interrupted; `timeout` needs an `async fn` (use `budget` for a cap on the whole operation)",
    ),
    ..OptionSpec::call("timeout", Kind::Duration, "\"2s\"")
        .error_needs(TIMEOUT_ERROR)
        .conflicts(&[NEEDS_TIMING])
        .in_recipe()
};

/// On an `async fn`, the attempt in flight is also cut at the budget. With
/// `timeout`, which cuts it already, the budget asks nothing of the error.
pub(crate) const BUDGET: OptionSpec = OptionSpec::new(
    "budget",
    Kind::Duration,
    "\"30s\"",
    Expand::Deadline("budget"),
)
.error_needs(ErrorNeed {
    only_async: true,
    unless: Some("timeout"),
    ..TIMEOUT_ERROR
})
.conflicts(&[NEEDS_TIMING])
.in_recipe();

pub(crate) const MAX_ELAPSED: OptionSpec =
    OptionSpec::call("max_elapsed", Kind::Duration, "\"10s\"")
        .conflicts(&[NEEDS_TIMING])
        .in_recipe();

/// The longest delay before a retry, whatever the backoff; also spelt
/// inside `exponential(…)`, where it is the schedule's own `max`.
pub(crate) const MAX_DELAY: OptionSpec = OptionSpec::call("max_delay", Kind::Duration, "\"5s\"")
    .needs(NEEDS_RETRIES)
    .conflicts(&[DECIDED_BY_POLICY])
    .in_recipe();

/// The most attempt records the report keeps (64 by default).
pub(crate) const MAX_RECORDS: OptionSpec =
    OptionSpec::call("max_records", Kind::Count, "64").in_recipe();

pub(crate) const MIN_RETRIES: OptionSpec = OptionSpec::call("min_retries", Kind::Count, "1")
    .needs(NEEDS_RETRIES)
    .in_recipe();

/// The server's Retry-After hint, read from an error. Its old name,
/// `rate_limit`, was easily taken for the `RateLimiter` that `limit`
/// takes. The runtime's builders say `retry_after` too, their old names
/// kept as aliases.
pub(crate) const RETRY_AFTER: OptionSpec = OptionSpec::new(
    "retry_after",
    Kind::Expression,
    "|e| e.retry_after()",
    Expand::Method("retry_after"),
)
.formerly("rate_limit")
.conflicts(&[NEEDS_TIMING])
.checked_by("rate_limit_hint");

pub(crate) const MAX_RETRY_AFTER_WAIT: OptionSpec = OptionSpec::new(
    "max_retry_after_wait",
    Kind::Duration,
    "\"60s\"",
    Expand::Method("max_retry_after_wait"),
)
.formerly("max_rate_limit_wait")
.needs(NEEDS_RETRY_AFTER);

pub(crate) const MAX_RETRY_AFTER_RETRIES: OptionSpec = OptionSpec::new(
    "max_retry_after_retries",
    Kind::Count,
    "10",
    Expand::Method("max_retry_after_retries"),
)
.formerly("max_rate_limit_retries")
.needs(NEEDS_RETRY_AFTER);

pub(crate) const CIRCUIT_BREAKER: OptionSpec =
    OptionSpec::call("circuit_breaker", Kind::Expression, "&BREAKER")
        .error_needs(ErrorNeed {
            bound: "CircuitOpenError",
            function: "circuit_open",
            only_async: false,
            unless: None,
        })
        .gate();

pub(crate) const VALIDATE: OptionSpec =
    OptionSpec::call("validate", Kind::Expression, "is_complete").error_needs(ErrorNeed {
        bound: "ValidationError",
        function: "validation_failed",
        only_async: false,
        unless: None,
    });

pub(crate) const FALLBACK: OptionSpec =
    OptionSpec::new("fallback", Kind::Path, "cached", Expand::Elsewhere);

const NEEDS_FALLBACK: Need = Need {
    any_of: &["fallback"],
    how: "add `fallback = cached`, the function that answers the errors it selects",
};

/// The errors the fallback answers, by variant; another is returned as it is.
pub(crate) const FALLBACK_ON: OptionSpec =
    OptionSpec::new(
        "fallback_on",
        Kind::Variants {
            nothing: "fall back on nothing",
            every: "fall back on every error",
        },
        "[Unavailable]",
        Expand::Elsewhere,
    )
        .needs(NEEDS_FALLBACK)
        .conflicts(&[Conflict {
            with: "fallback_if",
            why: "both decide which errors the fallback answers; keep one (a `fallback_if` function can test variants with `matches!`)",
        }]);

/// The errors the fallback answers, by a test `Fn(&E) -> bool`.
pub(crate) const FALLBACK_IF: OptionSpec = OptionSpec::new(
    "fallback_if",
    Kind::Expression,
    "is_outage",
    Expand::Elsewhere,
)
.needs(NEEDS_FALLBACK);

/// The operation's name; the function's identifier when not written.
pub(crate) const NAME: OptionSpec = OptionSpec::call("name", Kind::Expression, "\"users.get\"");

/// Keeps the declared return type and hands the report to a hook.
pub(crate) const REPORT: OptionSpec = OptionSpec::new(
    "report",
    Kind::Expression,
    "log_report",
    Expand::Method("on_report"),
)
.checked_by("report_hook");

pub(crate) const THROTTLE: OptionSpec =
    OptionSpec::call("throttle", Kind::Expression, "&THROTTLE").gate();

/// Client-side adaptive throttling: refuses a share of the attempts, the
/// first included, as the backend accepts fewer of them.
pub(crate) const ADAPTIVE_THROTTLE: OptionSpec =
    OptionSpec::call("adaptive_throttle", Kind::Expression, "&BACKEND")
        .error_needs(ErrorNeed {
            bound: "RejectedError",
            function: "rejected",
            only_async: false,
            unless: None,
        })
        .gate();

/// Each attempt takes a permit from one limiter, or from each of a list
/// (`[&A, &B]`), bound to a local array of `&dyn Limiter` by `expand.rs`.
pub(crate) const LIMIT: OptionSpec =
    OptionSpec::new("limit", Kind::Expression, "&BULKHEAD", Expand::Limits)
        .error_needs(ErrorNeed {
            bound: "LimitExceededError",
            function: "limit_exceeded",
            only_async: false,
            unless: None,
        })
        .gate();

pub(crate) const LIMIT_WAIT: OptionSpec =
    OptionSpec::call("limit_wait", Kind::Duration, "\"100ms\"").needs(Need {
        any_of: &["limit"],
        how: "add `limit = &BULKHEAD`, the limiter whose permits to wait for",
    });

/// The call's priority, for the limiters that shed by priority.
pub(crate) const PRIORITY: OptionSpec = OptionSpec::call(
    "priority",
    Kind::Choice {
        of: &["limit", "Priority"],
        choices: &[
            ("critical", "Critical"),
            ("high", "High"),
            ("medium", "Medium"),
            ("low", "Low"),
            ("very_low", "VeryLow"),
        ],
    },
    "\"high\"",
)
.needs(Need {
    any_of: &["limit"],
    how: "add `limit = &BULKHEAD`, a limiter that sheds by priority",
})
.in_recipe();

pub(crate) const HEDGE: OptionSpec = OptionSpec {
    async_only: Some(
        "a hedge is an attempt started beside one still running, and a blocking fn runs one attempt at a time: `hedge` needs an `async fn`",
    ),
    ..OptionSpec::new("hedge", Kind::Hedge, "\"200ms\"", Expand::Elsewhere).run(Run::Hedged)
};

pub(crate) const MAX_HEDGES: OptionSpec =
    OptionSpec::new("max_hedges", Kind::Count, "2", Expand::Elsewhere)
        .needs(Need {
            any_of: &["hedge"],
            how: "add `hedge = \"200ms\"`, the delay after which a hedged attempt starts",
        })
        .run(Run::Hedged);

const NEEDS_IDEMPOTENCY: Need = Need {
    any_of: &["idempotency"],
    how: "add `idempotency = &STORE`, the store that keeps the key's result",
};

/// Runs the whole operation under a key in a store.
pub(crate) const IDEMPOTENCY: OptionSpec = OptionSpec::new(
    "idempotency",
    Kind::Expression,
    "&PAYMENTS",
    Expand::Elsewhere,
)
.needs(Need {
    any_of: &["idempotency_key"],
    how: "add `idempotency_key = order.id.to_string()`, the key that identifies the side effect",
})
.error_needs(ErrorNeed {
    bound: "IdempotencyFailure",
    function: "in_flight",
    only_async: false,
    unless: None,
})
.run(Run::Keyed);

pub(crate) const IDEMPOTENCY_KEY: OptionSpec = OptionSpec::new(
    "idempotency_key",
    Kind::Expression,
    "order.id.to_string()",
    Expand::Elsewhere,
)
.needs(NEEDS_IDEMPOTENCY)
.run(Run::Keyed);

pub(crate) const IDEMPOTENCY_TTL: OptionSpec = OptionSpec::new(
    "idempotency_ttl",
    Kind::Duration,
    "\"24h\"",
    Expand::Elsewhere,
)
.needs(NEEDS_IDEMPOTENCY)
.run(Run::Keyed);

/// A hash of the call's parameters: a reused key with others is a conflict.
pub(crate) const IDEMPOTENCY_FINGERPRINT: OptionSpec = OptionSpec::new(
    "idempotency_fingerprint",
    Kind::Expression,
    "(order.id, order.cents)",
    Expand::Elsewhere,
)
.needs(NEEDS_IDEMPOTENCY)
.error_needs(ErrorNeed {
    bound: "IdempotencyConflictFailure",
    function: "conflict",
    only_async: false,
    unless: None,
})
.run(Run::Keyed);

/// Concurrent calls with the same key share one execution, each handed a
/// clone of its outcome (`resilient::coalesce::Coalesce`, in a `static` of
/// the function's own).
pub(crate) const COALESCE: OptionSpec = OptionSpec {
    async_only: Some(
        "concurrent calls share one execution by awaiting it, and a blocking fn can't await: `coalesce` needs an `async fn`",
    ),
    ..OptionSpec::new(
        "coalesce",
        Kind::Expression,
        "id.to_string()",
        Expand::Elsewhere,
    )
    .in_recipe()
};

const NEEDS_CHAOS: Need = Need {
    any_of: &["chaos"],
    how: "add `chaos = &CHAOS`, the switch (a `static` `resilient::chaos::Chaos`) that decides which attempts are injected",
};

/// The switch, or one switch per kind, that decides which attempts chaos
/// injects into.
pub(crate) const CHAOS: OptionSpec = OptionSpec::call("chaos", Kind::Expression, "&CHAOS")
    .needs(Need {
        any_of: &["chaos_fault", "chaos_outcome", "chaos_latency"],
        how: "say what to inject: `chaos_fault = MyError::Unavailable`, `chaos_outcome = cached_value()` or `chaos_latency = \"2s\"`",
    })
    .gate();

/// The error an injected attempt fails with.
pub(crate) const CHAOS_FAULT: OptionSpec = OptionSpec::new(
    "chaos_fault",
    Kind::Expression,
    "MyError::Unavailable",
    Expand::Inject {
        method: "chaos_fault",
        of: Side::Error,
    },
)
.needs(NEEDS_CHAOS);

/// The value an injected attempt succeeds with.
pub(crate) const CHAOS_OUTCOME: OptionSpec = OptionSpec::new(
    "chaos_outcome",
    Kind::Expression,
    "cached_value()",
    Expand::Inject {
        method: "chaos_outcome",
        of: Side::Success,
    },
)
.needs(NEEDS_CHAOS);

/// The wait before an injected attempt goes on.
pub(crate) const CHAOS_LATENCY: OptionSpec =
    OptionSpec::call("chaos_latency", Kind::Duration, "\"2s\"").needs(NEEDS_CHAOS);

/// Said of each option that needs the clock that `timing = false` turns off.
const NEEDS_TIMING: Conflict = Conflict {
    with: "timing",
    why: "`timing = false` reads no clock, and `{name}` is measured on one; remove one of the two",
};

pub(crate) const TIMING: OptionSpec =
    OptionSpec::new("timing", Kind::Off, "false", Expand::Method("untimed"));

pub(crate) const CLOCK: OptionSpec = OptionSpec::new(
    "clock",
    Kind::Expression,
    "clock.clone()",
    Expand::Elsewhere,
);

pub(crate) const ON_RETRY: OptionSpec =
    OptionSpec::call("on_retry", Kind::Expression, "|event| log(event)")
        .checked_by("retry_listener")
        .with_error(WithError {
            closure: ("on_retry_error", "retry_error_listener"),
            path: ("listen", "retry_listener_of"),
        });

/// What the calls made inside an attempt do with a retryable failure of
/// their own: `"no_retry"` leaves the retry to this call, on every attempt
/// of it, the first and the last included.
pub(crate) const NESTED: OptionSpec = OptionSpec::call(
    "nested",
    Kind::Choice {
        of: &["deadline", "Nested"],
        choices: &[("retry", "Retry"), ("no_retry", "NoRetry")],
    },
    "\"no_retry\"",
)
.in_recipe();

/// Names the runtime's path in the expansion, and is no part of the
/// operation.
pub(crate) const CRATE: OptionSpec = OptionSpec::new(
    "crate",
    Kind::CratePath,
    "\"my_crate::resilient\"",
    Expand::Elsewhere,
)
.in_recipe();

/// Every option, in the order of the docs; builder calls follow this order
/// too, so `retry`'s whole policy comes before the caps that refine it.
pub(crate) const OPTIONS: &[OptionSpec] = &[
    RETRIES,
    RETRY_ON,
    RETRY_IF,
    IGNORE_ON,
    IGNORE_IF,
    BACKOFF,
    JITTER_SEED,
    RETRY,
    TIMEOUT,
    BUDGET,
    MAX_ELAPSED,
    MAX_DELAY,
    MIN_RETRIES,
    RETRY_AFTER,
    MAX_RETRY_AFTER_WAIT,
    MAX_RETRY_AFTER_RETRIES,
    MAX_RECORDS,
    NESTED,
    CIRCUIT_BREAKER,
    VALIDATE,
    FALLBACK,
    FALLBACK_ON,
    FALLBACK_IF,
    CLOCK,
    TIMING,
    ON_RETRY,
    NAME,
    REPORT,
    THROTTLE,
    ADAPTIVE_THROTTLE,
    LIMIT,
    LIMIT_WAIT,
    PRIORITY,
    CHAOS,
    CHAOS_FAULT,
    CHAOS_OUTCOME,
    CHAOS_LATENCY,
    HEDGE,
    MAX_HEDGES,
    IDEMPOTENCY,
    IDEMPOTENCY_KEY,
    IDEMPOTENCY_TTL,
    IDEMPOTENCY_FINGERPRINT,
    COALESCE,
    CRATE,
];

/// The option called `name`, by its name or its old name.
pub(crate) fn find(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS
        .iter()
        .find(|spec| spec.name == name || spec.old_name == Some(name))
}

/// The option names, in order.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    OPTIONS.iter().map(|spec| spec.name)
}

/// Every name the attribute accepts: the options' names, then their old
/// names.
pub(crate) fn spellings() -> impl Iterator<Item = &'static str> {
    names().chain(OPTIONS.iter().filter_map(|spec| spec.old_name))
}

/// The arguments of `backoff = exponential(…)`.
pub(crate) const EXPONENTIAL_ARGS: &[&str] = &["base", "max", "max_delay", "multiplier", "jitter"];

/// The runtime's `Backoff::DEFAULT_BASE`, which the expansion names rather
/// than copies; known here too so that a literal `max` below it is caught
/// at compile time. A test pins the two together.
pub(crate) const DEFAULT_BASE: Nanos = Nanos::from_millis(100);

/// The runtime's `Backoff::DEFAULT_MAX`; see [`DEFAULT_BASE`].
pub(crate) const DEFAULT_MAX: Nanos = Nanos::from_millis(10_000);

#[cfg(test)]
mod tests {
    use super::*;
    use resilient::{Backoff, Jitter};
    use std::time::Duration;

    fn duration(nanos: Nanos) -> Duration {
        Duration::from_nanos(u64::try_from(nanos.0).unwrap())
    }

    #[test]
    fn backoff_defaults_are_the_runtimes() {
        assert_eq!(duration(DEFAULT_BASE), Backoff::DEFAULT_BASE);
        assert_eq!(duration(DEFAULT_MAX), Backoff::DEFAULT_MAX);
    }

    /// The expansion writes `.multiplier(..)` and `.jitter(..)` only when
    /// given: `exponential` alone must be the default backoff.
    #[test]
    fn exponential_alone_is_the_default_backoff() {
        let written = Backoff::exponential(Backoff::DEFAULT_BASE, Backoff::DEFAULT_MAX);
        assert_eq!(written, Backoff::default());
        assert_eq!(
            written,
            written.multiplier(2.0).jitter(Jitter::Full),
            "`exponential` defaults to multiplier 2.0 and full jitter"
        );
    }

    /// Each expansion step reads the kind of value its row parses: a step
    /// given another kind would expand to nothing.
    #[test]
    fn every_step_reads_its_rows_kind_of_value() {
        for spec in OPTIONS {
            let fits = match spec.expand {
                Expand::Attempts => spec.kind == Kind::Retries,
                Expand::VariantTest(_) => matches!(spec.kind, Kind::Variants { .. }),
                Expand::Policy | Expand::Limits | Expand::Inject { .. } => {
                    spec.kind == Kind::Expression
                }
                Expand::Deadline(_) => spec.kind == Kind::Duration,
                Expand::Method(_) => !matches!(
                    spec.kind,
                    Kind::Path | Kind::Variants { .. } | Kind::CratePath
                ),
                Expand::Elsewhere => true,
            };
            assert!(
                fits,
                "`{}`: its expansion does not read its kind of value",
                spec.name
            );
            let unless = spec.error_needs.as_ref().and_then(|need| need.unless);
            assert!(
                unless.is_none_or(|other| find(other).is_some()),
                "`{}`",
                spec.name
            );
        }
    }

    /// The shape of the expansion is read from these flags (see
    /// `expand::Expansion`): a `Recipe` is the operation of a function
    /// without gates, and an option the run never reads sets nothing.
    #[test]
    fn the_shape_flags_agree() {
        for spec in OPTIONS {
            assert!(!(spec.recipe && spec.gate), "`{}`", spec.name);
        }
    }

    #[test]
    fn names_are_unique_and_every_reference_is_an_option() {
        let spellings: Vec<&str> = spellings().collect();
        for (i, name) in spellings.iter().enumerate() {
            assert!(!spellings[..i].contains(name), "`{name}` is listed twice");
        }
        for spec in OPTIONS {
            let needs = spec.needs.iter().flat_map(|need| need.any_of);
            let conflicts = spec.conflicts.iter().map(|conflict| &conflict.with);
            // By its name: a message names the other option so.
            for other in needs.chain(conflicts) {
                assert!(
                    find(other).is_some_and(|found| found.name == *other),
                    "`{}` names `{other}`",
                    spec.name
                );
            }
        }
    }
}
