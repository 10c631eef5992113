//! What the tests of a request sent once, or again, after a failure that
//! may have reached the server share: a port nothing listens on, and what
//! the report of a retry declined for a request that may not run twice
//! says.

use std::net::SocketAddr;

use resilient::{ExecutionReport, FailureKind, StopReason};

/// An address of 127.0.0.1 that refuses connections: a port bound, then
/// let go.
pub fn closed_port() -> SocketAddr {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    addr
}

/// The text a declined retry ends its attempt's message with.
pub const NOT_IDEMPOTENT: &str =
    " (not retried: the server may have processed it, and the request is not idempotent)";

/// Asserts that `report` is one attempt of `kind`, failed with `text` and
/// not retried because the request may not run twice: the record's flag,
/// its text and the stop reason.
pub fn assert_declined(report: &ExecutionReport, kind: FailureKind, text: &str) {
    assert_eq!(report.attempt_count(), 1, "{report}");
    assert_eq!(report.stop_reason(), StopReason::NotRetryable, "{report}");
    let error = report.attempts()[0].error().expect("the attempt failed");
    assert_eq!(error.kind(), kind);
    assert!(!error.retryable(), "{report}");
    assert_eq!(error.message(), format!("{text}{NOT_IDEMPOTENT}"));
}

/// Each method, and how many times the server receives a request of it
/// that got a `500` when a retry is allowed: the idempotent methods twice,
/// as before; POST and PATCH once.
pub const AFTER_A_500: [(http::Method, usize); 8] = [
    (http::Method::GET, 2),
    (http::Method::HEAD, 2),
    (http::Method::OPTIONS, 2),
    (http::Method::PUT, 2),
    (http::Method::DELETE, 2),
    (http::Method::TRACE, 2),
    (http::Method::POST, 1),
    (http::Method::PATCH, 1),
];
