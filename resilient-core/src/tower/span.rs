//! The span of each attempt that a tower layer or a reqwest middleware
//! sends (feature `tracing`), with the attributes OpenTelemetry's semantic
//! conventions name, so that `tracing-opentelemetry` exports them as they
//! are: `operation` (the call's name), `attempt` (1 for the first),
//! `http.request.resend_count` (the attempt's number − 1, on a resend
//! only) and, on a failed attempt, `error.type` (the response's status
//! code, or the service error's type name).

use tracing::Span;
use tracing::field::Empty;

use crate::report::UNNAMED;

/// The span of attempt `number` of the call named `operation`.
pub(super) fn attempt(operation: Option<&str>, number: u32) -> Span {
    let span = tracing::info_span!(
        "resilient.attempt",
        operation = operation.unwrap_or(UNNAMED),
        attempt = number,
        "http.request.resend_count" = Empty,
        "error.type" = Empty,
    );
    if number > 1 {
        span.record("http.request.resend_count", number - 1);
    }
    span
}

/// The attempt of `span` failed with `error_type`.
pub(super) fn failed(span: &Span, error_type: ErrorType) {
    match error_type {
        ErrorType::Status(code) => span.record("error.type", code.to_string()),
        ErrorType::Named(name) => span.record("error.type", name),
    };
}

/// What OpenTelemetry's `error.type` says of a failed attempt.
pub(super) enum ErrorType {
    /// A response classified as a failure: its status code.
    Status(u16),
    /// An error (its type's name), a timeout (`timeout`), or a failing
    /// response without a status (`_OTHER`).
    Named(&'static str),
}
