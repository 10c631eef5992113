//! The tower layer's `hedge_at_percentile` and `max_extra_load`, on
//! tokio's paused clock: the hedge waits the measured percentile of
//! recent successful attempts (the fixed delay until enough exist), and
//! under a hanging backend hedges stay within their share of requests.
#![cfg(feature = "tower")]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use resilient_core::tower::ResilientLayer;
use resilient_core::{AttemptKind, ExecutionReport, TimedOut};
use tower::{BoxError, Layer, service_fn};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The calls the backend took, and a backend whose call `n` (from 0)
/// answers after `latency(n)`.
fn backend(
    latency: impl Fn(u32) -> Duration + Send + Sync + 'static,
) -> (
    Arc<AtomicU32>,
    impl tower::Service<(), Response = u32, Error = TimedOut, Future: Send> + Clone + Send + 'static,
) {
    let calls = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&calls);
    let latency = Arc::new(latency);
    let service = service_fn(move |()| {
        let call = counted.fetch_add(1, Ordering::Relaxed);
        let wait = latency(call);
        async move {
            tokio::time::sleep(wait).await;
            Ok::<_, TimedOut>(call)
        }
    });
    (calls, service)
}

#[tokio::test(start_paused = true)]
async fn the_hedge_waits_the_measured_percentile_once_enough_attempts_succeeded() {
    // Calls 0..20 answer in 100 ms; call 20, the 21st request's first
    // attempt, takes 1 s, and its hedge (call 21) 100 ms.
    let (calls, backend) = backend(|call| if call == 20 { ms(1_000) } else { ms(100) });
    let reports = Arc::new(Mutex::new(Vec::new()));
    let heard = Arc::clone(&reports);
    let service = ResilientLayer::new()
        .hedge(ms(500))
        .hedge_at_percentile(0.95)
        .max_extra_load(1.0)
        .on_report(move |report: &ExecutionReport| heard.lock().unwrap().push(report.clone()))
        .layer(backend);
    for _ in 0..20 {
        service.clone().oneshot(()).await.unwrap();
    }
    assert_eq!(
        calls.load(Ordering::Relaxed),
        20,
        "below the 500 ms fallback, no hedge"
    );

    let started = tokio::time::Instant::now();
    assert_eq!(
        service.clone().oneshot(()).await.unwrap(),
        21,
        "the hedge answered"
    );
    assert_eq!(calls.load(Ordering::Relaxed), 22);
    // p95 of twenty 100 ms samples: the upper end of their bucket,
    // 106.495 ms (a bucket is an eighth of a power of two wide), rounded
    // up to a whole millisecond.
    let p95 = ms(107);
    assert_eq!(started.elapsed(), p95 + ms(100));
    let last = reports.lock().unwrap().pop().unwrap();
    let hedges: Vec<_> = last
        .attempts()
        .iter()
        .filter(|attempt| attempt.kind() == AttemptKind::Hedge)
        .map(|attempt| attempt.started_at())
        .collect();
    assert_eq!(hedges, [p95], "the report shows the delay the hedge waited");
}

#[tokio::test(start_paused = true)]
async fn under_a_hanging_backend_hedges_stay_within_the_extra_load() {
    let (calls, service) = backend(|_| Duration::MAX);
    let service = ResilientLayer::new()
        .timeout(ms(1_000))
        .hedge(ms(50))
        .max_extra_load(0.05)
        .layer(service);
    let mut requests = tokio::task::JoinSet::new();
    for _ in 0..100 {
        requests.spawn(service.clone().oneshot(()));
    }
    let answers: Vec<Result<u32, BoxError>> = requests.join_all().await;
    assert!(answers.iter().all(Result::is_err), "every call timed out");
    // The 20th request may hedge once (0.05 × 20), the 40th once more, …:
    // five hedges for a hundred requests.
    assert_eq!(calls.load(Ordering::Relaxed), 105);
}
