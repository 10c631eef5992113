//! Server pushback through the tower layer's `HttpClassifier`: each
//! header (none, `Retry-After`, gRPC A6's `grpc-retry-pushback-ms` as a
//! wait, as a stop and malformed, and both at once) against each method
//! class (idempotent, a POST, a POST with an `Idempotency-Key`), on a 429
//! and a 503 that the server answers once before a 200. Each row asserts
//! the attempts and the wait before the second. On tokio's paused clock.
#![cfg(all(feature = "tower", feature = "http"))]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use ::http::{Method, Request, Response, StatusCode};
use resilient_core::http::RETRY_PUSHBACK_MS;
use resilient_core::tower::{HttpClassifier, ReportExtension, ResilientLayer};
use resilient_core::{Backoff, DelaySource, ExecutionReport};
use tower::{Layer, service_fn};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The headers of the first answer.
const HEADERS: [(&str, &[(&str, &str)]); 6] = [
    ("none", &[]),
    ("Retry-After", &[("retry-after", "2")]),
    ("pushback wait", &[(RETRY_PUSHBACK_MS, "300")]),
    ("pushback stop", &[(RETRY_PUSHBACK_MS, "-1")]),
    ("pushback malformed", &[(RETRY_PUSHBACK_MS, "soon")]),
    ("both", &[("retry-after", "2"), (RETRY_PUSHBACK_MS, "300")]),
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Class {
    Idempotent,
    Post,
    PostWithKey,
}

/// What a row expects: `None` for one attempt, else the wait and where it
/// came from before the second (which gets the 200).
fn expected(status: u16, header: &str, class: Class) -> Option<(DelaySource, Duration)> {
    const BACKOFF: Duration = Duration::from_secs(1);
    let hinted = |wait| Some((DelaySource::RetryAfter, wait));
    // A 429 was not processed, so any method may be sent again; a 503 only
    // with a wait the server named, unless the request may run twice.
    let may_resend = |named: bool| status == 429 || named || class != Class::Post;
    match header {
        "none" => may_resend(false).then_some((DelaySource::Backoff, BACKOFF)),
        "Retry-After" => may_resend(true).then(|| hinted(ms(2000))).flatten(),
        "pushback wait" | "both" => may_resend(true).then(|| hinted(ms(300))).flatten(),
        "pushback stop" | "pushback malformed" => None,
        _ => unreachable!(),
    }
}

#[tokio::test(start_paused = true)]
async fn each_header_against_each_method_class() {
    let mut rows = Vec::new();
    for status in [429, 503] {
        for (header, values) in HEADERS {
            for class in [Class::Idempotent, Class::Post, Class::PostWithKey] {
                let calls = Arc::new(AtomicU32::new(0));
                let counted = Arc::clone(&calls);
                let backend = service_fn(move |_: Request<()>| {
                    let first = counted.fetch_add(1, Ordering::Relaxed) == 0;
                    let mut answer = Response::builder().status(StatusCode::OK);
                    if first {
                        answer = answer.status(status);
                        for (name, value) in values {
                            answer = answer.header(*name, *value);
                        }
                    }
                    async move { Ok::<_, std::io::Error>(answer.body(()).unwrap()) }
                });
                let service = ResilientLayer::new()
                    .retries(2)
                    .backoff(Backoff::constant(ms(1000)))
                    .no_retry_budget()
                    .classify(HttpClassifier)
                    .attach_report(ReportExtension)
                    .layer(backend);
                let mut request = Request::builder().method(match class {
                    Class::Idempotent => Method::GET,
                    Class::Post | Class::PostWithKey => Method::POST,
                });
                if class == Class::PostWithKey {
                    request = request.header("idempotency-key", "k-1");
                }
                let answer = service.oneshot(request.body(()).unwrap()).await.unwrap();
                let report = answer.extensions().get::<ExecutionReport>().unwrap();
                let wait = report
                    .attempts()
                    .get(1)
                    .and_then(|second| second.delay_before())
                    .map(|delay| (delay.source(), delay.duration()));
                let want = expected(status, header, class);
                assert_eq!(
                    report.attempt_count(),
                    if want.is_some() { 2 } else { 1 },
                    "{status} {header} {class:?}"
                );
                assert_eq!(calls.load(Ordering::Relaxed), report.attempt_count());
                rows.push(((status, header, class), wait));
                assert_eq!(wait, want, "{status} {header} {class:?}");
            }
        }
    }
    assert_eq!(rows.len(), 36);
}
