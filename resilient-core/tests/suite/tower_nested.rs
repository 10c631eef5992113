//! `nested` on the tower layer: a resilient call its service makes inside
//! any of the layer's attempts leaves the retry to the layer.
#![cfg(feature = "tower")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use resilient_core::deadline::Nested;
use resilient_core::tower::ResilientLayer;
use resilient_core::{Backoff, Operation, StopReason, TokioClock};
use tokio::time::Instant;
use tower::{BoxError, Layer};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("down")]
struct Down;

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// When the innermost body ran, and how each inner call stopped.
#[derive(Default)]
struct Log {
    calls: Mutex<Vec<Duration>>,
    stops: Mutex<Vec<(StopReason, u32)>>,
}

/// A layer of 4 attempts 500 ms apart over a service whose every request
/// makes a call of 4 attempts 50 ms apart that always fails.
async fn run(nested: Nested) -> Arc<Log> {
    let log = Arc::new(Log::default());
    let start = Instant::now();
    let service = tower::service_fn({
        let log = Arc::clone(&log);
        move |(): ()| {
            let log = Arc::clone(&log);
            async move {
                let inner = Operation::new()
                    .clock(TokioClock)
                    .max_attempts(4)
                    .backoff(Backoff::constant(ms(50)))
                    .run_async(async |_| {
                        log.calls.lock().unwrap().push(start.elapsed());
                        Err::<(), _>(Down)
                    })
                    .await;
                let report = inner.report();
                let stop = (report.stop_reason(), report.attempt_count());
                log.stops.lock().unwrap().push(stop);
                inner.into_result().map_err(BoxError::from)
            }
        }
    });
    let layer = ResilientLayer::new()
        .name("tower.nested")
        .retries(3)
        .backoff(Backoff::constant(ms(500)))
        .nested(nested);
    let answer = layer.layer(service).oneshot(()).await;
    assert!(answer.is_err(), "the inner call always fails");
    log
}

#[tokio::test(start_paused = true)]
async fn a_layer_that_holds_the_retries_makes_the_calls_inside_leave_them_to_it() {
    let log = run(Nested::NoRetry).await;
    // One inner call on each of the layer's four attempts, its last one
    // too, 500 ms apart (the layer's backoff): 4 calls, against 16.
    assert_eq!(
        *log.calls.lock().unwrap(),
        [ms(0), ms(500), ms(1000), ms(1500)]
    );
    assert_eq!(
        *log.stops.lock().unwrap(),
        [(StopReason::LeftToCaller, 1); 4]
    );
}

#[tokio::test(start_paused = true)]
async fn without_nested_the_retries_of_the_layer_and_the_call_multiply() {
    let log = run(Nested::Retry).await;
    assert_eq!(log.calls.lock().unwrap().len(), 16);
    assert!(
        log.stops
            .lock()
            .unwrap()
            .iter()
            .all(|&stop| stop == (StopReason::AttemptsExhausted, 4))
    );
}
