//! The series `resilient` records through the `metrics` facade (feature
//! `metrics`): their names, kinds, units, labels and help text, and
//! [`describe`]. Data only, below the breaker, which describes them and
//! sets its gauge when it is built; `observe::series` records the rest and
//! re-exports what is public here as [`resilient::metrics`](crate::metrics).

use ::metrics::Unit;

/// The gauge of a breaker's state, labelled `breaker`: 0 closed, 1
/// half-open, 2 open, 3 isolated.
pub const CIRCUIT_STATE: &str = "resilient_circuit_state";

/// The gauge of a shared breaker's fleet state, labelled `breaker`: 0
/// closed, 1 half-open, 2 open, as of the breaker's latest word with its
/// fleet.
pub(crate) const CIRCUIT_FLEET_STATE: &str = "resilient_circuit_fleet_state";

/// The gauge of whether a shared breaker reaches its fleet, labelled
/// `breaker`: 1 joined, 0 alone (it decides on its own).
pub(crate) const CIRCUIT_FLEET_JOINED: &str = "resilient_circuit_fleet_joined";

/// The gauge of the attempts holding a limiter's permits, labelled
/// `limiter`.
pub const LIMIT_IN_FLIGHT: &str = "resilient_limit_in_flight";

/// The gauge of a concurrency limiter's limit in force (a bulkhead's max,
/// an adaptive limit's current limit), labelled `limiter`.
pub const LIMIT_CURRENT: &str = "resilient_limit_current";

/// The gauge of the distinct operation names counted under
/// [`OVERFLOW`](crate::cardinality::OVERFLOW), past the limit on names: an
/// estimate.
pub const NAMES_FOLDED: &str = "resilient_operation_names_folded";

/// The counter of keys a per-endpoint map evicted, for capacity or
/// idleness, labelled `endpoints` (the map's prefix) and `kind`
/// (`breaker`, `throttle` or `limits`).
pub const ENDPOINT_EVICTIONS: &str = "resilient_endpoint_evictions_total";

/// The gauge of whether a replica is ejected, labelled `operation` and
/// `replica` (its base URL): 1 while ejected, by the outlier detection
/// or by hand, 0 otherwise.
pub const REPLICA_EJECTED: &str = "resilient_replica_ejected";

/// The counter of a replica's ejections by the outlier detection,
/// labelled `operation` and `replica`.
pub const REPLICA_EJECTIONS: &str = "resilient_replica_ejections_total";

/// The counter of attempts an adaptive throttle refused locally, labelled
/// `operation` and `throttle`.
pub(crate) const ADAPTIVE_REJECTIONS: &str = "resilient_adaptive_throttle_rejections_total";

/// The gauge of an adaptive throttle's rejection probability, labelled
/// `throttle`, as of the latest call that used it.
pub const ADAPTIVE_PROBABILITY: &str = "resilient_adaptive_throttle_probability";

/// The counter of attempts a limiter refused, labelled `operation` and
/// `limiter`.
pub(crate) const LIMIT_REJECTIONS: &str = "resilient_limit_rejections_total";

/// The counter of calls of a coalescing group, labelled `group` and
/// `joined` (`true` for a call that joined an execution in flight).
pub(crate) const COALESCED: &str = "resilient_coalesced_calls_total";

/// The counter of attempts a limiter shed for their priority, labelled
/// `operation`, `limiter` and `priority`.
pub(crate) const LIMIT_SHED: &str = "resilient_limit_shed_total";

/// The counter of attempts, labelled `operation`, `kind` and `outcome`.
pub(crate) const ATTEMPTS: &str = "resilient_attempts_total";

/// The histogram of operations' durations, labelled `operation` and
/// `stop_reason`.
pub(crate) const DURATION: &str = "resilient_operation_duration_seconds";

/// The kind of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SeriesKind {
    /// Only grows; read as a rate.
    Counter,
    /// Set to a value.
    Gauge,
    /// A distribution of observations.
    Histogram,
}

/// One series `resilient` records.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Series {
    /// Its name, as the recorder receives it.
    pub name: &'static str,
    /// Counter, gauge or histogram.
    pub kind: SeriesKind,
    /// The unit of its values.
    pub unit: Unit,
    /// The labels every observation carries.
    pub labels: &'static [&'static str],
    /// What it counts: the `# HELP` text.
    pub help: &'static str,
}

/// Every series `resilient` records, in the order of the table of
/// [`metrics`](crate::metrics).
pub const SERIES: &[Series] = &[
    Series {
        name: ATTEMPTS,
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation", "kind", "outcome"],
        help: "Attempts made, by operation, kind (primary, hedge, fallback) and outcome (success, retryable_failure, fatal_failure).",
    },
    Series {
        name: "resilient_retries_total",
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation"],
        help: "Retries scheduled after a failed attempt, by operation.",
    },
    Series {
        name: "resilient_fallbacks_total",
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation"],
        help: "Fallbacks run after the primary attempts failed, by operation.",
    },
    Series {
        name: "resilient_circuit_rejections_total",
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation"],
        help: "Attempts an open circuit breaker refused to run, by operation.",
    },
    Series {
        name: DURATION,
        kind: SeriesKind::Histogram,
        unit: Unit::Seconds,
        labels: &["operation", "stop_reason"],
        help: "Time from an operation's start to its result, fallback included, by operation and the reason its primary attempts stopped.",
    },
    Series {
        name: "resilient_idempotent_calls_total",
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation", "status"],
        help: "Calls under an idempotency key, by operation and status (replayed, joined, executed, in_flight, conflict, store_error).",
    },
    Series {
        name: "resilient_chaos_injections_total",
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation", "kind"],
        help: "Faults, outcomes and latencies injected by chaos, by operation and kind (fault, outcome, latency).",
    },
    Series {
        name: LIMIT_REJECTIONS,
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation", "limiter"],
        help: "Attempts a limiter refused to admit, by operation and limiter.",
    },
    Series {
        name: COALESCED,
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["group", "joined"],
        help: "Calls of a coalescing group, by group: joined (true) an execution of their key in flight, or started their own (false).",
    },
    Series {
        name: LIMIT_SHED,
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation", "limiter", "priority"],
        help: "Attempts a limiter shed for their priority, keeping its last permits for higher ones; counted among its rejections too.",
    },
    Series {
        name: "resilient_limit_queued_seconds",
        kind: SeriesKind::Histogram,
        unit: Unit::Seconds,
        labels: &["operation"],
        help: "Time an attempt waited for its limiters' permits, by operation; attempts admitted at once are not recorded.",
    },
    Series {
        name: ADAPTIVE_REJECTIONS,
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation", "throttle"],
        help: "Attempts an adaptive throttle refused locally, before they reached the backend, by operation and throttle.",
    },
    Series {
        name: CIRCUIT_STATE,
        kind: SeriesKind::Gauge,
        unit: Unit::Count,
        labels: &["breaker"],
        help: "State of a circuit breaker: 0 closed, 1 half-open, 2 open, 3 isolated.",
    },
    Series {
        name: CIRCUIT_FLEET_STATE,
        kind: SeriesKind::Gauge,
        unit: Unit::Count,
        labels: &["breaker"],
        help: "State of a shared circuit breaker's fleet, as the instance last read it: 0 closed, 1 half-open, 2 open.",
    },
    Series {
        name: CIRCUIT_FLEET_JOINED,
        kind: SeriesKind::Gauge,
        unit: Unit::Count,
        labels: &["breaker"],
        help: "Whether a shared circuit breaker reaches its fleet: 1 joined, 0 alone (Redis out of reach: the breaker decides on its own).",
    },
    Series {
        name: LIMIT_IN_FLIGHT,
        kind: SeriesKind::Gauge,
        unit: Unit::Count,
        labels: &["limiter"],
        help: "Attempts holding a permit of a limiter, as of the latest call that used it.",
    },
    Series {
        name: LIMIT_CURRENT,
        kind: SeriesKind::Gauge,
        unit: Unit::Count,
        labels: &["limiter"],
        help: "Attempts a concurrency limiter lets hold a permit at once now: a bulkhead's max, an adaptive limit's current limit.",
    },
    Series {
        name: ADAPTIVE_PROBABILITY,
        kind: SeriesKind::Gauge,
        unit: Unit::Count,
        labels: &["throttle"],
        help: "The probability an adaptive throttle refuses an attempt with, within 0..=1, as of the latest call that used it.",
    },
    Series {
        name: NAMES_FOLDED,
        kind: SeriesKind::Gauge,
        unit: Unit::Count,
        labels: &[],
        help: "Distinct operation names counted under resilient.overflow because the limit on names was reached, estimated within a few percent.",
    },
    Series {
        name: ENDPOINT_EVICTIONS,
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["endpoints", "kind"],
        help: "Keys a per-endpoint map dropped to stay within its capacity or because they were idle, by map (its prefix) and kind (breaker, throttle, limits).",
    },
    Series {
        name: REPLICA_EJECTED,
        kind: SeriesKind::Gauge,
        unit: Unit::Count,
        labels: &["operation", "replica"],
        help: "Whether a replica of an operation's set is ejected, by its outlier detection or by hand: 1 ejected, 0 in the set.",
    },
    Series {
        name: REPLICA_EJECTIONS,
        kind: SeriesKind::Counter,
        unit: Unit::Count,
        labels: &["operation", "replica"],
        help: "Ejections of a replica by an operation's outlier detection (consecutive failures, or a failure percentage over an interval).",
    },
];

/// Describes every series of [`SERIES`] to the installed recorder: its
/// help text and unit. Done on its own when the first operation runs or
/// the first breaker is built; call it after installing a recorder later
/// than that.
///
/// ```
/// resilient::metrics::describe();
/// ```
pub fn describe() {
    for series in SERIES {
        let (name, unit, help) = (series.name, series.unit, series.help);
        match series.kind {
            SeriesKind::Counter => ::metrics::describe_counter!(name, unit, help),
            SeriesKind::Gauge => ::metrics::describe_gauge!(name, unit, help),
            SeriesKind::Histogram => ::metrics::describe_histogram!(name, unit, help),
        }
    }
}
