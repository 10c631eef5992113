//! A real server on 127.0.0.1 and a real client: 503, then 429 with
//! `Retry-After: 1`, then 200; a 404 is asked for exactly once.

#[path = "../examples/support/client.rs"]
mod client;
#[path = "../examples/support/scripted_server.rs"]
mod scripted_server;

use std::time::{Duration, Instant};

use resilient::{DelaySource, StopReason};
use scripted_server::Seen;

fn seen(path: &'static str, retry_count: Option<&str>) -> Seen {
    Seen {
        path,
        retry_count: retry_count.map(str::to_owned),
    }
}

#[tokio::test]
async fn backoff_then_retry_after_then_success_and_a_404_once() {
    let started = Instant::now();
    let (addr, log) = scripted_server::start().await;
    let http = reqwest::Client::new();

    let outcome = client::fetch(&http, &format!("http://{addr}/flaky")).await;
    let report = outcome.report().clone();
    assert_eq!(outcome.into_result().unwrap(), "hello from the server");
    assert_eq!(
        log.requests(),
        [
            seen("/flaky", None),
            seen("/flaky", Some("1")),
            seen("/flaky", Some("2")),
        ]
    );
    let delays: Vec<_> = report
        .attempts()
        .iter()
        .filter_map(|r| r.delay_before())
        .map(|d| (d.source(), d.duration()))
        .collect();
    assert_eq!(
        delays,
        [
            (DelaySource::Backoff, Duration::from_millis(50)),
            (DelaySource::RetryAfter, Duration::from_secs(1)),
        ]
    );
    let statuses: Vec<_> = report
        .attempts()
        .iter()
        .map(|r| r.error().map(|e| e.message().to_owned()))
        .collect();
    assert!(
        statuses[0].as_deref().unwrap().contains("503"),
        "{statuses:?}"
    );
    assert!(
        statuses[1].as_deref().unwrap().contains("429"),
        "{statuses:?}"
    );
    assert_eq!(statuses[2], None);

    let outcome = client::fetch(&http, &format!("http://{addr}/missing")).await;
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    let misses = log
        .requests()
        .iter()
        .filter(|s| s.path == "/missing")
        .count();
    assert_eq!(misses, 1);

    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
}

/// `HttpError::from(reqwest::Error)`: a refused connection is a transport
/// error, retried, and the report shows its cause; a URL that can't be
/// parsed fails the same way every time, so it is tried once.
#[tokio::test]
async fn reqwest_errors_convert_without_glue() {
    // A port nobody listens on: bind one, then let it go.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let http = reqwest::Client::new();

    let outcome = client::fetch(&http, &format!("http://{addr}/")).await;
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 4);
    assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);
    assert_eq!(
        report.delays(),
        [50, 100, 200].map(Duration::from_millis),
        "the backoff's schedule, no Retry-After"
    );
    let error = outcome.into_result().unwrap_err();
    assert_eq!(error.status(), None);
    assert!(
        error.message().contains("error sending request") && error.message().contains("refused"),
        "{error}"
    );

    let outcome = client::fetch(&http, "http://[::1").await;
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
}
