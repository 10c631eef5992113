//! A real server on 127.0.0.1 and a tower client stack (hyper's legacy
//! client behind `ResilientLayer`): 503, then 429 with `Retry-After: 1`,
//! then 200; a 404 is asked for exactly once and returned as it is.

#[path = "../examples/support/scripted_server.rs"]
mod scripted_server;
#[path = "../examples/support/tower_client.rs"]
mod tower_client;

use std::time::{Duration, Instant};

use http::StatusCode;
use resilient::{DelaySource, ExecutionReport, StopReason};

/// `(source, duration)` of each wait before an attempt.
fn waits(report: &ExecutionReport) -> Vec<(DelaySource, Duration)> {
    report
        .attempts()
        .iter()
        .filter_map(|a| a.delay_before())
        .map(|d| (d.source(), d.duration()))
        .collect()
}

/// Each attempt's failure as the report tells it; `None` for a success.
fn failures(report: &ExecutionReport) -> Vec<Option<(bool, String)>> {
    report
        .attempts()
        .iter()
        .map(|a| a.error().map(|e| (e.retryable(), e.message().to_owned())))
        .collect()
}

fn statuses(report: &ExecutionReport) -> Vec<Option<u16>> {
    report.attempts().iter().map(|a| a.status()).collect()
}

#[tokio::test]
async fn backoff_then_retry_after_then_success_and_a_404_once() {
    let started = Instant::now();
    let (addr, log) = scripted_server::start().await;
    let client = tower_client::client();

    let flaky = tower_client::get(&client, &format!("http://{addr}/flaky"))
        .await
        .unwrap();

    assert_eq!(flaky.status, StatusCode::OK);
    assert_eq!(flaky.body, "hello from the server");
    assert_eq!(flaky.report.name(), "GET");
    assert_eq!(flaky.report.attempt_count(), 3);
    assert_eq!(flaky.report.stop_reason(), StopReason::Succeeded);
    assert_eq!(
        waits(&flaky.report),
        [
            (DelaySource::Backoff, Duration::from_millis(50)),
            (DelaySource::RetryAfter, Duration::from_secs(1)),
        ]
    );
    assert_eq!(
        failures(&flaky.report),
        [
            Some((true, "HTTP 503 Service Unavailable".to_owned())),
            Some((true, "HTTP 429 Too Many Requests".to_owned())),
            None,
        ]
    );

    // Each attempt's record keeps the status its response carried.
    assert_eq!(statuses(&flaky.report), [Some(503), Some(429), Some(200)]);

    let missing = tower_client::get(&client, &format!("http://{addr}/missing"))
        .await
        .unwrap();

    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.body, "no such thing");
    assert_eq!(missing.report.attempt_count(), 1);
    assert_eq!(missing.report.stop_reason(), StopReason::NotRetryable);
    assert_eq!(
        failures(&missing.report),
        [Some((false, "HTTP 404 Not Found".to_owned()))]
    );
    assert_eq!(statuses(&missing.report), [Some(404)]);

    let paths: Vec<_> = log.requests().iter().map(|seen| seen.path).collect();
    assert_eq!(paths, ["/flaky", "/flaky", "/flaky", "/missing"]);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}
