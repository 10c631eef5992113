//! With `metrics`, a map of state per endpoint counts its evictions as
//! `resilient_endpoint_evictions_total{endpoints, kind}`, and 100 000 hosts
//! make at most `cardinality::limit() + 1` values of the `breaker` label of
//! `resilient_circuit_state`.
//!
//! A binary of its own, not a module of `tests/suite`: the labels of
//! breakers named at run time are bounded for the whole process, and this
//! test reaches the bound.
#![cfg(feature = "metrics")]

use std::collections::BTreeSet;
use std::time::Duration;

use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use resilient_core::endpoint::{EndpointBreakers, EndpointLimits, EndpointThrottles};
use resilient_core::limit::Bulkhead;
use resilient_core::{CircuitBreaker, FakeClock, cardinality};

/// Every series: its name, its labels as `key=value`, and its value.
fn series(snapshotter: &Snapshotter) -> Vec<(String, Vec<String>, f64)> {
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _, _, value)| {
            let key = key.key();
            let labels = key
                .labels()
                .map(|label| format!("{}={}", label.key(), label.value()))
                .collect();
            let value = match value {
                DebugValue::Counter(count) => count as f64,
                DebugValue::Gauge(gauge) => gauge.into_inner(),
                DebugValue::Histogram(_) => f64::NAN,
            };
            (key.name().to_owned(), labels, value)
        })
        .collect()
}

fn host(i: u32) -> String {
    format!("10.{}.{}.{}:443", i >> 16, (i >> 8) & 255, i & 255)
}

#[test]
fn a_hundred_thousand_hosts_make_bounded_labels_and_count_their_evictions() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let clock = FakeClock::new();
    let (breakers, throttles, limits) = metrics::with_local_recorder(&recorder, || {
        let breakers = EndpointBreakers::builder("hosts")
            .template(CircuitBreaker::builder().failure_threshold(1))
            .capacity(1024)
            .clock(clock.clone())
            .build()
            .unwrap();
        let throttles = EndpointThrottles::builder("hosts")
            .capacity(64)
            .clock(clock.clone())
            .build()
            .unwrap();
        let limits = EndpointLimits::builder("hosts")
            .limit(|| Bulkhead::new(1).named("hosts.bulkhead"))
            .capacity(64)
            .clock(clock.clone())
            .build()
            .unwrap();
        for i in 0..100_000 {
            let breaker = breakers.get(&host(i));
            throttles.get(&host(i));
            limits.get(&host(i));
            // Every 100th host is sick: its breaker opens.
            if i % 100 == 0 {
                let now = clock.now();
                breaker.try_acquire(now).unwrap().record_failure(now);
            }
            clock.advance(Duration::from_micros(10));
        }
        (breakers, throttles, limits)
    });
    let seen = series(&snapshotter);

    // The state gauges: one label per name up to the limit, then one for
    // the map's overflow.
    let labels: BTreeSet<&String> = seen
        .iter()
        .filter(|(name, _, _)| name == "resilient_circuit_state")
        .flat_map(|(_, labels, _)| labels)
        .collect();
    assert_eq!(
        labels.len(),
        cardinality::limit() + 1,
        "{} labels",
        labels.len()
    );
    assert!(labels.contains(&"breaker=hosts/10.0.0.0:443".to_owned()));
    assert!(labels.contains(&"breaker=hosts/resilient.overflow".to_owned()));
    assert!(!labels.iter().any(|label| label.contains(&host(99_999))));

    // The evictions, by map and kind, as each map counted them.
    let evictions = |kind: &str| {
        seen.iter()
            .find(|(name, labels, _)| {
                name == "resilient_endpoint_evictions_total"
                    && labels.contains(&"endpoints=hosts".to_owned())
                    && labels.contains(&format!("kind={kind}"))
            })
            .map(|(_, _, value)| *value)
    };
    assert_eq!(breakers.len(), 1024);
    assert_eq!(breakers.evictions(), 100_000 - 1024);
    assert_eq!(evictions("breaker"), Some(breakers.evictions() as f64));
    assert_eq!(throttles.len(), 64);
    assert_eq!(evictions("throttle"), Some((100_000 - 64) as f64));
    assert_eq!(evictions("limits"), Some(limits.evictions() as f64));
    assert_eq!(limits.evictions(), 100_000 - 64);
}

#[test]
fn a_map_counts_no_eviction_before_its_first() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        EndpointThrottles::builder("quiet").build().unwrap();
    });
    let seen = series(&snapshotter);
    let zero = seen.iter().find(|(name, labels, _)| {
        name == "resilient_endpoint_evictions_total"
            && labels == &["endpoints=quiet".to_owned(), "kind=throttle".to_owned()]
    });
    assert_eq!(zero.map(|(_, _, value)| *value), Some(0.0));
}
