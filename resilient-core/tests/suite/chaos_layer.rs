//! Chaos through `resilient::tower`'s layer: the switches decide attempt by
//! attempt, an injected fault never reaches the service, and injected
//! latency waits on tokio's paused clock, inside the attempt's deadline.
#![cfg(feature = "tower")]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use resilient_core::chaos::{Chaos, Injection};
use resilient_core::tower::ResilientLayer;
use resilient_core::{Backoff, CircuitBreaker, CircuitOpen, ExecutionReport, StopReason, TimedOut};
use std::future::{Ready, ready};
use tokio::time::Instant;
use tower::util::ServiceFn;
use tower::{BoxError, Layer, service_fn};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A service that counts its calls and answers each at once.
fn counted(
    calls: &Arc<AtomicU32>,
) -> ServiceFn<impl Fn(u32) -> Ready<Result<u32, BoxError>> + Clone + use<>> {
    let calls = Arc::clone(calls);
    service_fn(move |n: u32| {
        calls.fetch_add(1, Ordering::SeqCst);
        ready(Ok(n * 2))
    })
}

/// A layer whose reports land in the returned list.
fn reporting(layer: ResilientLayer) -> (ResilientLayer, Arc<Mutex<Vec<ExecutionReport>>>) {
    let reports = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&reports);
    let layer =
        layer.on_report(move |report: &ExecutionReport| seen.lock().unwrap().push(report.clone()));
    (layer, reports)
}

fn injected(report: &ExecutionReport) -> Vec<Option<Injection>> {
    report.attempts().iter().map(|a| a.injected()).collect()
}

#[tokio::test(start_paused = true)]
async fn injected_faults_are_retried_and_never_reach_the_service() {
    static FAULTS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    let calls = Arc::new(AtomicU32::new(0));
    let (layer, reports) = reporting(
        ResilientLayer::new()
            .retries(3)
            .backoff(Backoff::constant(ms(100)))
            .chaos(&FAULTS)
            .chaos_fault(|| "injected outage"),
    );
    let error = layer.layer(counted(&calls)).oneshot(21).await.unwrap_err();

    assert_eq!(error.to_string(), "injected outage");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let report = reports.lock().unwrap().pop().unwrap();
    assert_eq!(injected(&report), [Some(Injection::Fault); 4]);
    assert_eq!(report.delays(), [ms(100); 3]);
    assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);
}

#[tokio::test(start_paused = true)]
async fn a_switch_that_is_off_injects_nothing_and_can_be_flipped() {
    static SWITCH: Chaos = Chaos::new().injection_rate(1.0);
    let calls = Arc::new(AtomicU32::new(0));
    let (layer, reports) = reporting(
        ResilientLayer::new()
            .chaos(&SWITCH)
            .chaos_fault(|| "injected"),
    );
    let service = layer.layer(counted(&calls));

    assert_eq!(service.clone().oneshot(4).await.unwrap(), 8);
    SWITCH.set_enabled(true);
    let error = service.clone().oneshot(4).await.unwrap_err();
    SWITCH.set_enabled(false);
    assert_eq!(service.oneshot(5).await.unwrap(), 10);

    assert_eq!(error.to_string(), "injected");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let injected: Vec<_> = reports.lock().unwrap().iter().map(injected).collect();
    assert_eq!(
        injected,
        [vec![None], vec![Some(Injection::Fault)], vec![None]]
    );
}

#[tokio::test(start_paused = true)]
async fn injected_latency_waits_inside_the_deadline() {
    static SLOW: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    let calls = Arc::new(AtomicU32::new(0));

    // Without a timeout the attempt waits, then is sent.
    let (layer, reports) = reporting(ResilientLayer::new().chaos(&SLOW).chaos_latency(ms(500)));
    let start = Instant::now();
    assert_eq!(layer.layer(counted(&calls)).oneshot(1).await.unwrap(), 2);
    assert_eq!(start.elapsed(), ms(500));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(
        injected(&reports.lock().unwrap()[0]),
        [Some(Injection::Latency)]
    );

    // A per-attempt timeout cuts the wait: the request is never sent.
    let (layer, reports) = reporting(
        ResilientLayer::new()
            .timeout(ms(200))
            .chaos(&SLOW)
            .chaos_latency(ms(500)),
    );
    let start = Instant::now();
    let error = layer.layer(counted(&calls)).oneshot(1).await.unwrap_err();
    assert_eq!(start.elapsed(), ms(200));
    assert!(error.is::<TimedOut>(), "{error}");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let report = reports.lock().unwrap().pop().unwrap();
    assert_eq!(report.attempts()[0].deadline(), Some(ms(200)));
}

#[tokio::test(start_paused = true)]
async fn injected_faults_trip_the_breaker() {
    static FAULTS: Chaos = Chaos::new().injection_rate(1.0);
    static BREAKER: std::sync::LazyLock<CircuitBreaker> = std::sync::LazyLock::new(|| {
        CircuitBreaker::builder()
            .failure_threshold(2)
            .break_duration(Duration::from_secs(30))
            .build()
            .unwrap()
    });
    let calls = Arc::new(AtomicU32::new(0));
    let service = ResilientLayer::new()
        .circuit_breaker(&*BREAKER)
        .chaos(&FAULTS)
        .chaos_fault(|| "injected")
        .layer(counted(&calls));

    FAULTS.set_enabled(true);
    for _ in 0..2 {
        let error = service.clone().oneshot(1).await.unwrap_err();
        assert_eq!(error.to_string(), "injected");
    }
    FAULTS.set_enabled(false);
    // Open now: the next call is refused without reaching the service.
    let error = service.oneshot(1).await.unwrap_err();
    assert!(error.is::<CircuitOpen>(), "{error}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}
