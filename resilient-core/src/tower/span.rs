//! The span of each attempt that a tower layer or a reqwest middleware
//! sends (feature `tracing`), with the attributes OpenTelemetry's semantic
//! conventions name, so that `tracing-opentelemetry` exports them as they
//! are: `operation` (the call's name), `attempt` (1 for the first),
//! `http.request.resend_count` (the attempt's number − 1, on a resend
//! only), `server.address` and `server.port` (the endpoint the request
//! goes to, when known) and, on a failed attempt, `error.type` (the
//! response's status code, or the service error's type name).

use tracing::Span;
use tracing::field::Empty;

use crate::report::UNNAMED;

/// The span of attempt `number` of the call named `operation`, sent to
/// `endpoint` if it is known.
pub(super) fn attempt(operation: Option<&str>, number: u32, endpoint: Option<&str>) -> Span {
    let span = tracing::info_span!(
        "resilient.attempt",
        operation = operation.unwrap_or(UNNAMED),
        attempt = number,
        "http.request.resend_count" = Empty,
        "error.type" = Empty,
        "server.address" = Empty,
        "server.port" = Empty,
    );
    if number > 1 {
        span.record("http.request.resend_count", number - 1);
    }
    if let Some(endpoint) = endpoint {
        let (address, port) = address_and_port(endpoint);
        span.record("server.address", address);
        if let Some(port) = port {
            span.record("server.port", port);
        }
    }
    span
}

/// An endpoint key split as OpenTelemetry's `server.address` and
/// `server.port`: `host:port` (`[v6]:port` too) gives both; a key without
/// a port, or of another form, is the address whole.
fn address_and_port(endpoint: &str) -> (&str, Option<u16>) {
    match endpoint.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && !host.ends_with(':') => match port.parse() {
            Ok(port) => (
                host.trim_start_matches('[').trim_end_matches(']'),
                Some(port),
            ),
            Err(_) => (endpoint, None),
        },
        _ => (endpoint, None),
    }
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

#[cfg(test)]
mod tests {
    use super::address_and_port;

    #[test]
    fn an_endpoint_splits_into_otels_address_and_port() {
        assert_eq!(
            address_and_port("api.example.com:443"),
            ("api.example.com", Some(443))
        );
        assert_eq!(
            address_and_port("127.0.0.1:3000"),
            ("127.0.0.1", Some(3000))
        );
        assert_eq!(address_and_port("[::1]:8080"), ("::1", Some(8080)));
        assert_eq!(address_and_port("replica-a"), ("replica-a", None));
        assert_eq!(address_and_port("host:http"), ("host:http", None));
        assert_eq!(address_and_port("::1"), ("::1", None));
    }
}
