//! The bound on operation names, with `metrics` and `dashboard`: 100 000
//! names made at run time keep the names counted apart, the series a
//! recorder holds and the dashboard's snapshot under fixed bounds.
//!
//! A binary of its own, not a module of `tests/suite`: these tests fill
//! the process's registry of names past its limit, which would fold the
//! names of every other test that came after.
#![cfg(all(feature = "metrics", feature = "dashboard"))]

use std::collections::BTreeSet;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use resilient::resilient;
use resilient_core::{Backoff, FakeClock, Operation, cardinality};
use serde_json::Value;
use tower::ServiceExt;

/// The names counted apart by default, the overflow's, and `checkout`,
/// the function under the attribute below.
const TILES: usize = 1_000 + 1 + 1;

/// What the dashboard's `/snapshot` serves now, and its size in bytes.
fn snapshot() -> (Value, usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let body = runtime.block_on(async {
        let app = axum::Router::new().nest_service("/resilience", resilient::dashboard::router());
        let request = Request::get("/resilience/snapshot")
            .body(Body::empty())
            .unwrap();
        let response = app.oneshot(request).await.unwrap();
        axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap()
    });
    (serde_json::from_slice(&body).unwrap(), body.len())
}

/// Every series recorded so far: its name, its `operation` label and its
/// value (a counter's count, a gauge's value, a histogram's samples).
type Series = Vec<(String, Option<String>, f64)>;

/// The series of `snapshotter`, read once: a reading drains a histogram.
fn series(snapshotter: &Snapshotter) -> Series {
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _, _, value)| {
            let key = key.key();
            let operation = key
                .labels()
                .find(|label| label.key() == "operation")
                .map(|label| label.value().to_owned());
            let value = match value {
                DebugValue::Counter(count) => count as f64,
                DebugValue::Gauge(gauge) => gauge.into_inner(),
                DebugValue::Histogram(samples) => samples.len() as f64,
            };
            (key.name().to_owned(), operation, value)
        })
        .collect()
}

/// The values of the `operation` label over `series`.
fn operations(series: &Series) -> BTreeSet<&str> {
    series
        .iter()
        .filter_map(|(_, operation, _)| operation.as_deref())
        .collect()
}

/// The sum of the series called `name` labelled `operation` (over their
/// other labels), if any is recorded.
fn value(series: &Series, name: &str, operation: Option<&str>) -> Option<f64> {
    series
        .iter()
        .filter(|(series, labelled, _)| series == name && labelled.as_deref() == operation)
        .map(|(.., value)| *value)
        .reduce(|sum, value| sum + value)
}

/// A call of the operation called `name`, whose first attempt fails when
/// `retried`.
fn call(name: String, retried: bool, clock: &FakeClock) {
    let result = Operation::new()
        .name(name)
        .max_attempts(2)
        .backoff(Backoff::constant(Duration::from_millis(10)))
        .clock(clock)
        .run(|attempt| {
            if retried && attempt.number() == 1 {
                Err("busy")
            } else {
                Ok(())
            }
        })
        .into_result();
    assert_eq!(result, Ok(()));
}

#[test]
fn a_hundred_thousand_names_keep_the_series_and_the_snapshot_bounded() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let clock = FakeClock::new();
    metrics::with_local_recorder(&recorder, || {
        for tenant in 0..100_000 {
            call(format!("tenant-{tenant}"), tenant % 10 == 0, &clock);
        }
    });
    // The series: a set per name counted apart, and the overflow's.
    let series = series(&snapshotter);
    let labelled = operations(&series);
    assert!(
        labelled.len() <= TILES,
        "{} operation names on the series",
        labelled.len()
    );
    assert!(labelled.contains("resilient.overflow"));
    // The overflow's calls: every tenant past the limit, each counted once
    // however many other tests folded names too.
    let overflow = Some("resilient.overflow");
    let durations = value(&series, "resilient_operation_duration_seconds", overflow);
    assert!(
        durations.is_some_and(|calls| calls >= 99_000.0),
        "the overflow's calls: {durations:?}"
    );
    // Its retries, a series recorded without the tally, too.
    let retries = value(&series, "resilient_retries_total", overflow);
    assert!(
        retries.is_some_and(|retries| retries >= 9_900.0),
        "the overflow's retries: {retries:?}"
    );
    // The dashboard: a tile per name counted apart, the overflow's, and a
    // snapshot of a bounded size.
    let (snapshot, bytes) = snapshot();
    let tiles = snapshot["operations"].as_array().unwrap();
    assert!(tiles.len() <= TILES, "{} tiles", tiles.len());
    assert!(
        tiles
            .iter()
            .any(|tile| tile["name"] == "resilient.overflow")
    );
    assert!(bytes <= 1_000_000, "a snapshot of {bytes} bytes");
}

#[test]
fn the_names_past_the_limit_are_counted_as_folded() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let clock = FakeClock::new();
    // Enough names to fill the limit whatever the other tests did first.
    metrics::with_local_recorder(&recorder, || {
        for name in 0..(cardinality::limit() + 20_000) {
            call(format!("folded-{name}"), false, &clock);
        }
    });
    assert_eq!(cardinality::counted(), cardinality::limit());
    // At least these 20 000 were folded: an estimate within a tenth.
    let folded = cardinality::folded() as f64;
    assert!(folded >= 18_000.0, "{folded} names folded");
    let gauge = value(
        &series(&snapshotter),
        "resilient_operation_names_folded",
        None,
    );
    assert!(
        gauge.is_some_and(|gauge| gauge >= 18_000.0 && gauge <= folded),
        "the gauge of names folded: {gauge:?}, the estimate {folded}"
    );
    let (snapshot, _) = snapshot();
    let names = &snapshot["names"];
    assert_eq!(names["limit"], cardinality::limit());
    assert_eq!(names["overflow"], cardinality::OVERFLOW);
    assert!(
        names["folded"]
            .as_f64()
            .is_some_and(|shown| shown >= 18_000.0)
    );
}

#[test]
fn concurrent_first_calls_never_count_more_names_than_the_limit() {
    let limit = cardinality::limit();
    std::thread::scope(|scope| {
        for thread in 0..4 {
            scope.spawn(move || {
                let clock = FakeClock::new();
                for name in 0..2_000 {
                    call(format!("hammer-{thread}-{name}"), name % 3 == 0, &clock);
                    let counted = cardinality::counted();
                    assert!(counted <= limit, "{counted} names counted apart");
                }
            });
        }
    });
    // 8 000 names from four threads at once: the limit is reached exactly.
    assert_eq!(cardinality::counted(), limit);
}

#[resilient(retries = 1, backoff = none, clock = clock)]
fn checkout(
    clock: &FakeClock,
    #[attempt] attempt: resilient::Attempt,
) -> Result<u32, &'static str> {
    if attempt.number() == 1 {
        Err("busy")
    } else {
        Ok(1)
    }
}

#[test]
fn a_function_of_the_attribute_is_counted_under_its_own_name_past_the_limit() {
    let clock = FakeClock::new();
    for name in 0..=cardinality::limit() {
        call(format!("filler-{name}"), false, &clock);
    }
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        assert_eq!(checkout(&clock).into_result(), Ok(1));
        call("made-late".to_owned(), true, &clock);
    });
    let series = series(&snapshotter);
    let labelled = operations(&series);
    assert!(labelled.contains("checkout"), "{labelled:?}");
    assert!(!labelled.contains("made-late"), "{labelled:?}");
    assert_eq!(
        value(&series, "resilient_retries_total", Some("checkout")),
        Some(1.0)
    );
    assert_eq!(
        value(
            &series,
            "resilient_retries_total",
            Some("resilient.overflow")
        ),
        Some(1.0),
        "the retry of a name made past the limit"
    );
    let (snapshot, _) = snapshot();
    let tiles = snapshot["operations"].as_array().unwrap();
    assert!(tiles.iter().any(|tile| tile["name"] == "checkout"));
    assert!(!tiles.iter().any(|tile| tile["name"] == "made-late"));
}
