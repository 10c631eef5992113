//! With the `metrics` feature, the engine counts attempts, retries,
//! fallbacks and rejections, and times each operation, under the
//! operation's name. An operation's counters appear at zero on its first
//! call, and it announces itself once per process: each test names its
//! operations apart from the others'.
#![cfg(feature = "metrics")]

use std::collections::BTreeMap;
use std::sync::LazyLock;
use std::time::Duration;

use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use resilient::resilient;
use resilient_core::__private::{Tally, with_tally};
use resilient_core::limit::{
    AdaptiveLimit, Bulkhead, Completion, Limiter, Priorities, Priority, RateLimiter,
};
use resilient_core::metrics::SERIES;
use resilient_core::{
    Backoff, CircuitBreaker, CircuitOpen, FakeClock, LimitExceeded, Operation, StopReason,
};

/// Every series recorded: `name{label=value,…}` with its value (a counter's
/// count, or a histogram's samples).
fn series(snapshotter: &Snapshotter) -> BTreeMap<String, String> {
    described(snapshotter)
        .into_iter()
        .map(|(key, (value, _))| (key, value))
        .collect()
}

/// [`series`], each with whether it was described (unit and help text).
fn described(snapshotter: &Snapshotter) -> BTreeMap<String, (String, bool)> {
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, unit, help, value)| {
            let key = key.key();
            let mut labels: Vec<String> = key
                .labels()
                .map(|label| format!("{}={}", label.key(), label.value()))
                .collect();
            labels.sort();
            let value = match value {
                DebugValue::Counter(count) => count.to_string(),
                DebugValue::Gauge(gauge) => gauge.to_string(),
                DebugValue::Histogram(samples) => format!(
                    "{:?}",
                    samples.iter().map(|s| s.into_inner()).collect::<Vec<_>>()
                ),
            };
            let name = format!("{}{{{}}}", key.name(), labels.join(","));
            (name, (value, unit.is_some() && help.is_some()))
        })
        .collect()
}

fn expected(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
    entries
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn a_failing_then_succeeding_call_through_an_operation() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let clock = FakeClock::new();
    metrics::with_local_recorder(&recorder, || {
        let outcome = Operation::new()
            .name("users.get")
            .max_attempts(3)
            .backoff(Backoff::constant(Duration::from_millis(250)))
            .clock(&clock)
            .run(|attempt| {
                clock.advance(Duration::from_millis(100));
                if attempt.number() == 1 {
                    Err("busy")
                } else {
                    Ok(7)
                }
            });
        assert_eq!(outcome.into_result(), Ok(7));
    });
    assert_eq!(
        series(&snapshotter),
        expected(&[
            (
                "resilient_attempts_total{kind=primary,operation=users.get,outcome=retryable_failure}",
                "1"
            ),
            (
                "resilient_attempts_total{kind=primary,operation=users.get,outcome=success}",
                "1"
            ),
            ("resilient_retries_total{operation=users.get}", "1"),
            // No name was folded: the gauge exists, at zero.
            ("resilient_operation_names_folded{}", "0"),
            (
                "resilient_attempts_total{kind=primary,operation=users.get,outcome=fatal_failure}",
                "0"
            ),
            (
                "resilient_circuit_rejections_total{operation=users.get}",
                "0"
            ),
            ("resilient_fallbacks_total{operation=users.get}", "0"),
            (
                "resilient_operation_duration_seconds{operation=users.get,stop_reason=succeeded}",
                "[0.45]"
            ),
        ])
    );
}

#[derive(Debug, PartialEq)]
enum ApiError {
    Down,
    NotFound,
    Open,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<CircuitOpen> for ApiError {
    fn from(_: CircuitOpen) -> Self {
        ApiError::Open
    }
}

impl From<LimitExceeded> for ApiError {
    fn from(_: LimitExceeded) -> Self {
        ApiError::Open
    }
}

/// A coalescing group counts its calls by whether they joined an
/// execution in flight.
#[test]
fn a_coalescing_group_counts_calls_that_joined_and_calls_that_ran() {
    use resilient_core::coalesce::Coalesce;
    static GROUP: Coalesce<u32, String> = Coalesce::new().named("metrics.group");
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        crate::common::paused_runtime().block_on(async {
            let slow = || async {
                tokio::time::sleep(Duration::from_secs(1)).await;
                Operation::new().run(|_| Ok::<u32, String>(1))
            };
            let (a, b, c) = tokio::join!(
                GROUP.run("k", slow),
                GROUP.run("k", slow),
                GROUP.run("k", slow)
            );
            assert_eq!(
                (a.into_result(), b.into_result(), c.into_result()),
                (Ok(1), Ok(1), Ok(1))
            );
        });
    });
    let recorded: BTreeMap<String, String> = series(&snapshotter)
        .into_iter()
        .filter(|(key, _)| key.starts_with("resilient_coalesced_calls_total"))
        .collect();
    assert_eq!(
        recorded,
        expected(&[
            (
                "resilient_coalesced_calls_total{group=metrics.group,joined=false}",
                "1"
            ),
            (
                "resilient_coalesced_calls_total{group=metrics.group,joined=true}",
                "2"
            ),
        ])
    );
}

/// A call shed for its priority is counted by operation, limiter and
/// priority, and among the limiter's rejections; a full limit's refusal
/// only there.
#[test]
fn a_shed_call_is_counted_with_its_priority() {
    static SHEDDING: Bulkhead = Bulkhead::new(2)
        .named("shed.pool")
        .shed_by_priority(Priorities::none().reserve(Priority::Critical, 0.5));
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let limiters: [&dyn Limiter; 1] = [&SHEDDING];
    let clock = FakeClock::new();
    let call = |priority: Priority| {
        Operation::new()
            .name("limits.shed")
            .clock(&clock)
            .limit(&limiters)
            .priority(priority)
            .run(|_| Ok::<_, ApiError>(()))
    };
    metrics::with_local_recorder(&recorder, || {
        SHEDDING.try_acquire(clock.now()).unwrap();
        assert_eq!(
            call(Priority::Low).report().stop_reason(),
            StopReason::LimitExceeded
        );
        SHEDDING
            .try_acquire_as(clock.now(), Priority::Critical)
            .unwrap();
        assert_eq!(
            call(Priority::Critical).report().stop_reason(),
            StopReason::LimitExceeded
        );
        for _ in 0..2 {
            SHEDDING.release(clock.now(), Duration::ZERO, Completion::Unused);
        }
    });
    let recorded: BTreeMap<String, String> = series(&snapshotter)
        .into_iter()
        .filter(|(key, _)| {
            key.starts_with("resilient_limit_") && key.contains("operation=limits.shed")
        })
        .collect();
    assert_eq!(
        recorded,
        expected(&[
            (
                "resilient_limit_rejections_total{limiter=shed.pool,operation=limits.shed}",
                "2"
            ),
            (
                "resilient_limit_shed_total{limiter=shed.pool,operation=limits.shed,priority=low}",
                "1"
            ),
        ])
    );
}

/// A limiter's refusals are counted by operation and limiter, from zero;
/// its gauges read its level as of the latest call, set again by
/// `refresh`; an attempt that waited for its permits is timed. A rate
/// limiter counts no attempts in flight: it has no gauge.
#[test]
fn limits_count_refusals_gauge_their_level_and_time_the_queue() {
    static POOL: Bulkhead = Bulkhead::new(1).named("metrics.pool");
    static ADAPTIVE: LazyLock<AdaptiveLimit> =
        LazyLock::new(|| AdaptiveLimit::aimd().initial(30).named("metrics.adaptive"));
    static QUOTA: RateLimiter = RateLimiter::per_second(1).burst(1).named("metrics.quota");
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let limiters: [&dyn Limiter; 2] = [&POOL, &*ADAPTIVE];
    let quota: [&dyn Limiter; 1] = [&QUOTA];
    let clock = FakeClock::new();
    let charge = || {
        Operation::new()
            .name("limits.charge")
            .clock(&clock)
            .limit(&limiters)
            .run(|_| Ok::<_, ApiError>(()))
    };
    let refund = || {
        Operation::new()
            .name("limits.refund")
            .clock(&clock)
            .limit(&quota)
            .limit_wait(Duration::from_secs(2))
            .run(|_| Ok::<_, ApiError>(()))
    };
    metrics::with_local_recorder(&recorder, || {
        assert!(charge().is_ok());
        // Another holder takes the pool's permit: the next call is refused.
        POOL.try_acquire(clock.now()).unwrap();
        assert_eq!(charge().report().stop_reason(), StopReason::LimitExceeded);
        resilient_core::metrics::refresh();
        POOL.release(clock.now(), Duration::ZERO, Completion::Unused);
        // The second waits a second for the quota's next cell.
        assert!(refund().is_ok());
        assert!(refund().is_ok());
    });
    // `refresh` gauges every limiter the process has seen, those of the
    // other tests in this binary too: keep this test's own.
    let recorded: BTreeMap<String, String> = series(&snapshotter)
        .into_iter()
        .filter(|(key, _)| {
            key.starts_with("resilient_limit")
                && (key.contains("limiter=metrics.") || key.contains("operation=limits."))
        })
        .collect();
    assert_eq!(
        recorded,
        expected(&[
            ("resilient_limit_current{limiter=metrics.adaptive}", "30"),
            ("resilient_limit_current{limiter=metrics.pool}", "1"),
            ("resilient_limit_in_flight{limiter=metrics.adaptive}", "0"),
            ("resilient_limit_in_flight{limiter=metrics.pool}", "1"),
            (
                "resilient_limit_queued_seconds{operation=limits.refund}",
                "[1.0]"
            ),
            (
                "resilient_limit_rejections_total{limiter=metrics.adaptive,operation=limits.charge}",
                "0"
            ),
            (
                "resilient_limit_rejections_total{limiter=metrics.pool,operation=limits.charge}",
                "1"
            ),
            (
                "resilient_limit_rejections_total{limiter=metrics.quota,operation=limits.refund}",
                "0"
            ),
        ])
    );
}

#[resilient(retries = 1, retry_on = [Down], backoff = none, clock = clock, fallback = [stale, cached])]
fn lookup(clock: &FakeClock, id: u32) -> Result<u32, ApiError> {
    let _ = (clock, id);
    Err(ApiError::Down)
}

fn stale(_: &FakeClock, _: u32) -> Result<u32, ApiError> {
    Err(ApiError::NotFound)
}

fn cached(_: &FakeClock, id: u32) -> Result<u32, ApiError> {
    Ok(id)
}

#[test]
fn a_failing_call_and_its_fallbacks_through_the_attribute() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        assert_eq!(lookup(&FakeClock::new(), 9).into_result(), Ok(9));
    });
    assert_eq!(
        series(&snapshotter),
        expected(&[
            (
                "resilient_attempts_total{kind=fallback,operation=lookup,outcome=fatal_failure}",
                "1"
            ),
            (
                "resilient_attempts_total{kind=fallback,operation=lookup,outcome=success}",
                "1"
            ),
            (
                "resilient_attempts_total{kind=primary,operation=lookup,outcome=retryable_failure}",
                "2"
            ),
            ("resilient_fallbacks_total{operation=lookup}", "2"),
            ("resilient_retries_total{operation=lookup}", "1"),
            // No name was folded: the gauge exists, at zero.
            ("resilient_operation_names_folded{}", "0"),
            (
                "resilient_attempts_total{kind=primary,operation=lookup,outcome=fatal_failure}",
                "0"
            ),
            (
                "resilient_attempts_total{kind=primary,operation=lookup,outcome=success}",
                "0"
            ),
            ("resilient_circuit_rejections_total{operation=lookup}", "0"),
            (
                "resilient_operation_duration_seconds{operation=lookup,stop_reason=attempts_exhausted}",
                "[0.0]"
            ),
        ])
    );
}

#[test]
fn a_rejection_by_an_open_breaker_is_counted() {
    let breaker = CircuitBreaker::builder()
        .name("users")
        .failure_threshold(1)
        .build()
        .unwrap();
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        for _ in 0..2 {
            let _ = Operation::new()
                .name("users.delete")
                .circuit_breaker(&breaker)
                .clock(FakeClock::new())
                .run(|_| Err::<(), _>(ApiError::Down));
        }
    });
    let recorded = series(&snapshotter);
    assert_eq!(
        recorded.get("resilient_circuit_rejections_total{operation=users.delete}"),
        Some(&"1".to_owned()),
        "{recorded:#?}"
    );
    assert_eq!(
        recorded.get("resilient_circuit_state{breaker=users}"),
        Some(&"2".to_owned()),
        "{recorded:#?}"
    );
    assert_eq!(
        recorded.get(
            "resilient_operation_duration_seconds{operation=users.delete,stop_reason=circuit_open}"
        ),
        Some(&"[0.0]".to_owned())
    );
}

/// The error of an idempotent call in this file.
#[derive(Debug)]
struct Refused;

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("refused")
    }
}

impl From<resilient_core::idempotency::IdempotencyInFlight> for Refused {
    fn from(_: resilient_core::idempotency::IdempotencyInFlight) -> Self {
        Refused
    }
}

impl From<resilient_core::idempotency::StoreError> for Refused {
    fn from(_: resilient_core::idempotency::StoreError) -> Self {
        Refused
    }
}

#[test]
fn an_idempotent_call_is_counted_and_timed_whether_it_ran_or_replayed() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let clock = FakeClock::new();
    let store = resilient_core::idempotency::MemoryStore::new();
    metrics::with_local_recorder(&recorder, || {
        for _ in 0..3 {
            let outcome = Operation::new()
                .name("charge")
                .clock(&clock)
                .idempotent(&store, "order-7")
                .run(|_| {
                    clock.advance(Duration::from_millis(100));
                    Ok::<_, Refused>(7)
                });
            assert_eq!(outcome.into_result().unwrap(), 7);
        }
    });
    assert_eq!(
        series(&snapshotter),
        expected(&[
            (
                "resilient_attempts_total{kind=primary,operation=charge,outcome=success}",
                "1"
            ),
            (
                "resilient_attempts_total{kind=primary,operation=charge,outcome=retryable_failure}",
                "0"
            ),
            (
                "resilient_attempts_total{kind=primary,operation=charge,outcome=fatal_failure}",
                "0"
            ),
            ("resilient_retries_total{operation=charge}", "0"),
            // No name was folded: the gauge exists, at zero.
            ("resilient_operation_names_folded{}", "0"),
            ("resilient_fallbacks_total{operation=charge}", "0"),
            ("resilient_circuit_rejections_total{operation=charge}", "0"),
            (
                "resilient_idempotent_calls_total{operation=charge,status=executed}",
                "1"
            ),
            (
                "resilient_idempotent_calls_total{operation=charge,status=replayed}",
                "2"
            ),
            (
                "resilient_operation_duration_seconds{operation=charge,stop_reason=succeeded}",
                "[0.1, 0.0, 0.0]"
            ),
        ])
    );
}

#[test]
fn each_injection_is_counted_by_operation_and_kind() {
    static SLOW_FAULTS: resilient_core::chaos::Chaos = resilient_core::chaos::Chaos::new()
        .enabled(true)
        .injection_rate(1.0);
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let clock = FakeClock::new();
    metrics::with_local_recorder(&recorder, || {
        let outcome = Operation::new()
            .name("users.search")
            .max_attempts(2)
            .backoff(Backoff::none())
            .clock(&clock)
            .chaos(&SLOW_FAULTS)
            .chaos_fault(|| "injected")
            .chaos_latency(Duration::from_millis(50))
            .run(|_| Ok::<_, &str>(7));
        assert_eq!(outcome.into_result(), Err("injected"));
    });
    let series = series(&snapshotter);
    let chaos: Vec<_> = series
        .iter()
        .filter(|(key, _)| key.starts_with("resilient_chaos"))
        .collect();
    assert_eq!(
        chaos,
        [
            (
                &"resilient_chaos_injections_total{kind=fault,operation=users.search}".to_owned(),
                &"2".to_owned()
            ),
            (
                &"resilient_chaos_injections_total{kind=latency,operation=users.search}".to_owned(),
                &"2".to_owned()
            ),
        ]
    );
}

#[test]
fn an_operations_counters_are_zero_after_a_first_call_that_succeeded() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _ = metrics::with_local_recorder(&recorder, || {
        Operation::new()
            .name("lifecycle.first")
            .clock(FakeClock::new())
            .run(|_| Ok::<_, String>(1))
    });
    let seen = series(&snapshotter);
    let attempts = |outcome: &str| {
        let key = format!(
            "resilient_attempts_total{{kind=primary,operation=lifecycle.first,outcome={outcome}}}"
        );
        seen.get(&key).cloned()
    };
    assert_eq!(attempts("success").as_deref(), Some("1"));
    assert_eq!(attempts("retryable_failure").as_deref(), Some("0"));
    assert_eq!(attempts("fatal_failure").as_deref(), Some("0"));
    for counter in ["retries", "fallbacks", "circuit_rejections"] {
        let key = format!("resilient_{counter}_total{{operation=lifecycle.first}}");
        assert_eq!(seen.get(&key).map(String::as_str), Some("0"), "{key}");
    }
}

#[test]
fn an_adaptive_throttle_counts_its_refusals_by_operation_and_gauges_its_probability() {
    use resilient_core::throttle::{AdaptiveThrottle, Rejected};

    #[derive(Debug)]
    struct Down;
    impl From<Rejected> for Down {
        fn from(_: Rejected) -> Self {
            Down
        }
    }
    impl std::fmt::Display for Down {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("down")
        }
    }

    static BACKEND: AdaptiveThrottle = AdaptiveThrottle::new().seed(3).named("metrics.backend");
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let clock = FakeClock::new();
    let stops: Vec<StopReason> = metrics::with_local_recorder(&recorder, || {
        (0..30)
            .map(|_| {
                Operation::new()
                    .name("adaptive.call")
                    .adaptive_throttle(&BACKEND)
                    .clock(&clock)
                    .run(|_| Err::<u32, _>(Down))
                    .report()
                    .stop_reason()
            })
            .collect()
    });
    let refused = stops
        .iter()
        .filter(|stop| **stop == StopReason::Throttled)
        .count();
    assert!(refused > 10, "{refused} refused");
    let seen = series(&snapshotter);
    assert_eq!(
        seen["resilient_adaptive_throttle_rejections_total{operation=adaptive.call,throttle=metrics.backend}"],
        refused.to_string()
    );
    assert_eq!(
        seen["resilient_adaptive_throttle_probability{throttle=metrics.backend}"],
        BACKEND.rejection_probability().to_string()
    );
}

static LIFECYCLE_BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("lifecycle.breaker")
        .failure_threshold(1)
        .break_duration(Duration::from_secs(60))
        .build()
        .unwrap()
});

#[test]
fn every_series_recorded_is_listed_and_described_with_a_unit() {
    // The counts of a function under the attribute live in a static.
    static TALLY: Tally = Tally::new();
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        let clock = FakeClock::new();
        // Fails, retries, falls back; the failure opens the breaker...
        let operation = with_tally(Operation::new().name("lifecycle.all"), &TALLY)
            .max_attempts(2)
            .backoff(Backoff::none())
            .circuit_breaker(&LIFECYCLE_BREAKER)
            .clock(&clock);
        let mut failing = operation.start();
        while failing.next_blocking() {
            failing.attempt_blocking(|_| Err::<u32, _>(CircuitOpen));
        }
        failing.fallback_blocking(|_, _| Ok(0));
        let _ = failing.finish();
    });
    let seen = described(&snapshotter);
    let names: Vec<&str> = SERIES.iter().map(|series| series.name).collect();
    for (series, (_, described)) in &seen {
        let name = series.split('{').next().unwrap();
        assert!(names.contains(&name), "{series} is not listed in SERIES");
        assert!(*described, "{series} has no unit or help text");
    }
    // ...so that every series was recorded, but those of options this call
    // doesn't use (an idempotency key, chaos, limits: see the tests above).
    let unused = [
        "resilient_idempotent_calls_total",
        "resilient_chaos_injections_total",
        "resilient_limit_rejections_total",
        // A limiter that sheds by priority, a coalescing group (the tests below).
        "resilient_limit_shed_total",
        "resilient_coalesced_calls_total",
        "resilient_limit_queued_seconds",
        "resilient_limit_in_flight",
        "resilient_limit_current",
        // An adaptive throttle's (the test below).
        "resilient_adaptive_throttle_rejections_total",
        "resilient_adaptive_throttle_probability",
        // A shared breaker's, set by its publisher (`breaker/redis_state.rs`).
        "resilient_circuit_fleet_state",
        "resilient_circuit_fleet_joined",
        // A per-endpoint map's (`tests/endpoint_metrics.rs`).
        "resilient_endpoint_evictions_total",
        // A replica set's (`endpoint/watched.rs`).
        "resilient_replica_ejected",
        "resilient_replica_ejections_total",
    ];
    for series in SERIES
        .iter()
        .filter(|series| !unused.contains(&series.name))
    {
        assert!(
            seen.keys().any(|key| key.starts_with(series.name)),
            "{} was not recorded",
            series.name
        );
    }
    assert_eq!(
        seen["resilient_circuit_rejections_total{operation=lifecycle.all}"].0,
        "1"
    );
    assert_eq!(
        seen["resilient_circuit_state{breaker=lifecycle.breaker}"].0,
        "2"
    );
}

#[test]
fn the_keys_kept_for_an_operation_follow_its_name() {
    // The keys of the series a call records are kept in its tally; an
    // operation given the same tally under another name is recorded under
    // that name, not the one the keys were first made for.
    static TALLY: Tally = Tally::new();
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        for name in ["renamed.first", "renamed.second", "renamed.second"] {
            let outcome = with_tally(Operation::new().name(name), &TALLY)
                .clock(FakeClock::new())
                .run(|_| Ok::<_, String>(1));
            assert_eq!(outcome.into_result(), Ok(1));
        }
    });
    let seen = series(&snapshotter);
    // Each call took no time on its fake clock.
    for (name, calls, samples) in [
        ("renamed.first", "1", "[0.0]"),
        ("renamed.second", "2", "[0.0, 0.0]"),
    ] {
        let attempts =
            format!("resilient_attempts_total{{kind=primary,operation={name},outcome=success}}");
        assert_eq!(seen[&attempts], calls, "{attempts}");
        let durations = format!(
            "resilient_operation_duration_seconds{{operation={name},stop_reason=succeeded}}"
        );
        assert_eq!(seen[&durations], samples, "{durations}");
    }
}
