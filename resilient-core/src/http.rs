//! HTTP helpers (feature `http`): which status codes are worth retrying, how
//! long a `Retry-After` header asks to wait, and a ready-made classifier so
//! that an HTTP call needs one line to be retried correctly.
//!
//! # Design
//!
//! The engine takes two plain functions of the error: `retry_if`
//! (`Fn(&E) -> bool`) and `rate_limit` (`Fn(&E) -> Option<Duration>`). This
//! module provides both, generic over any error that can tell its HTTP
//! status and `Retry-After` wait, through the [`HttpFailure`] trait:
//!
//! * [`retryable`] retries a failure whose status [`is_retryable`], and every
//!   failure without a status (connection refused, reset, DNS, timeout: the
//!   request may never have reached the server).
//! * [`rate_limit_hint`] passes the `Retry-After` wait of a retryable failure
//!   to the engine, which then waits that long without spending a retry.
//!
//! Implement [`HttpFailure`] for your own error type, or use [`HttpError`],
//! which already implements it and is built from a response's status and
//! headers with [`HttpError::from_response_parts`]. With the attribute:
//!
//! ```text
//! #[resilient(retries = 3, retry_if = resilient::http::retryable, rate_limit = resilient::http::rate_limit_hint)]
//! fn fetch(url: &str) -> Result<String, HttpError> { … }
//! ```
//!
//! ```
//! use http::{HeaderMap, HeaderValue, StatusCode, header::RETRY_AFTER};
//! use resilient::http::{HttpError, rate_limit_hint, retryable};
//! use std::time::{Duration, SystemTime};
//!
//! let mut headers = HeaderMap::new();
//! headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
//! let error = HttpError::from_response_parts(StatusCode::TOO_MANY_REQUESTS, &headers, SystemTime::now());
//! assert!(retryable(&error));
//! assert_eq!(rate_limit_hint(&error), Some(Duration::from_secs(7)));
//!
//! let not_found = HttpError::from(StatusCode::NOT_FOUND);
//! assert!(!retryable(&not_found));
//! ```

use std::fmt;
use std::time::{Duration, SystemTime};

use http::header::RETRY_AFTER;
use http::{HeaderMap, Method, StatusCode};

use crate::error::{CircuitOpen, TimedOut};

/// Whether a response with this status is worth retrying.
///
/// Retried: 408 Request Timeout, 410 Gone, 429 Too Many Requests, 460
/// (a load balancer's "client closed the connection") and every 5xx except
/// 501 Not Implemented, 505 HTTP Version Not Supported and 511 Network
/// Authentication Required, which another try cannot fix. Nonstandard 5xx
/// codes such as 529 (overloaded) and 599 are retried. Every other code
/// (1xx, 2xx, 3xx, the other 4xx, 6xx and up) is not.
///
/// ```
/// use http::StatusCode;
/// use resilient::http::is_retryable;
///
/// assert!(is_retryable(StatusCode::SERVICE_UNAVAILABLE));
/// assert!(is_retryable(StatusCode::TOO_MANY_REQUESTS));
/// assert!(!is_retryable(StatusCode::NOT_IMPLEMENTED));
/// assert!(!is_retryable(StatusCode::NOT_FOUND));
/// ```
pub fn is_retryable(status: StatusCode) -> bool {
    match status.as_u16() {
        408 | 410 | 429 | 460 => true,
        501 | 505 | 511 => false,
        500..=599 => true,
        _ => false,
    }
}

/// Whether a request may be sent twice without harm, so that it may be
/// hedged: its method is idempotent by RFC 9110 (§9.2.2: GET, HEAD,
/// OPTIONS, TRACE, PUT, DELETE), or it carries an `Idempotency-Key` header,
/// with which a server that honours the key (the IETF draft "The
/// Idempotency-Key HTTP Header Field") runs it once however often it
/// arrives. POST, PATCH, CONNECT and other methods without the header are
/// not.
///
/// ```
/// use http::{HeaderMap, HeaderValue, Method};
/// use resilient::http::is_idempotent;
///
/// let mut headers = HeaderMap::new();
/// assert!(is_idempotent(&Method::GET, &headers));
/// assert!(is_idempotent(&Method::PUT, &headers));
/// assert!(!is_idempotent(&Method::POST, &headers));
///
/// headers.insert("idempotency-key", HeaderValue::from_static("order-8e2f"));
/// assert!(is_idempotent(&Method::POST, &headers));
/// ```
pub fn is_idempotent(method: &Method, headers: &HeaderMap) -> bool {
    matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE | Method::PUT | Method::DELETE
    ) || headers.contains_key(IDEMPOTENCY_KEY)
}

/// Points `request` at `replica`, a base URL (`http://10.0.0.7:8080`):
/// its scheme and authority become the replica's, its path and query
/// stay. The tower layer's [`replicas`](crate::tower::ResilientLayer::replicas)
/// takes it for `http::Request`s. A replica that isn't a URL with an
/// authority leaves the request as it is.
///
/// ```
/// use resilient::http::to_replica;
///
/// let mut request = http::Request::get("http://service/users/7?full=1").body(()).unwrap();
/// to_replica(&mut request, "http://10.0.0.7:8080");
/// assert_eq!(request.uri(), "http://10.0.0.7:8080/users/7?full=1");
/// ```
pub fn to_replica<B>(request: &mut http::Request<B>, replica: &str) {
    let Ok(base) = replica.parse::<http::Uri>() else {
        return;
    };
    let mut parts = request.uri().clone().into_parts();
    parts.scheme = base.scheme().cloned().or(parts.scheme);
    parts.authority = base.authority().cloned().or(parts.authority);
    if parts.path_and_query.is_none() {
        parts.path_and_query = Some(http::uri::PathAndQuery::from_static("/"));
    }
    if let Ok(uri) = http::Uri::from_parts(parts) {
        *request.uri_mut() = uri;
    }
}

/// The header of the IETF draft "The Idempotency-Key HTTP Header Field".
const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// Whether a response says that the server did not process the request,
/// so that even a request that may not run twice can be sent again: `408
/// Request Timeout` (RFC 9110: the server didn't receive the whole
/// request), `429 Too Many Requests` (RFC 6585: refused for its rate) and
/// `503 Service Unavailable` with a `Retry-After` header or a
/// `grpc-retry-pushback-ms` wait (down for a time the server names). Any
/// other failing status may come after the server ran it.
pub(crate) fn unprocessed(status: StatusCode, headers: &HeaderMap) -> bool {
    status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
        || (status == StatusCode::SERVICE_UNAVAILABLE
            && (headers.contains_key(RETRY_AFTER)
                || matches!(retry_pushback(headers), Some(Pushback::After(_)))))
}

/// Whether an error shows that the request never reached a server: a
/// refused connection, found in `error` or among its causes (an
/// `io::Error` of kind `ConnectionRefused`, a reqwest connect error).
/// `error` is read as an `io::Error` or a boxed error; an error of another
/// type says nothing, so the request may have reached one.
pub(crate) fn refused<E: 'static>(error: &E) -> bool {
    let error: &dyn std::any::Any = error;
    if let Some(error) = error.downcast_ref::<std::io::Error>() {
        return caused_by_refusal(error);
    }
    if let Some(error) = error.downcast_ref::<Box<dyn std::error::Error + Send + Sync>>() {
        return caused_by_refusal(error.as_ref());
    }
    false
}

/// Whether `error` or one of its causes is a refused connection.
fn caused_by_refusal(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(io) = error.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        #[cfg(feature = "reqwest")]
        if let Some(error) = error.downcast_ref::<reqwest::Error>()
            && error.is_connect()
        {
            return true;
        }
        next = error.source();
    }
    false
}

/// How long the first `Retry-After` header in `headers` asks to wait,
/// measured from `now`.
///
/// Accepts both forms of the header:
///
/// * delta-seconds, a non-negative decimal integer (`"120"`); a value too
///   large for a [`Duration`] saturates at [`Duration::MAX`];
/// * an HTTP-date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, or the obsolete RFC 850
///   and asctime forms): the wait is `date - now`. A date equal to `now`
///   gives `Some(Duration::ZERO)`, like `"0"`: the server allows a retry
///   from that instant on.
///
/// A missing header, an empty, negative or malformed value and a date
/// before `now` give `None`. Only the first header counts, even if it is
/// malformed and a later one is not. Surrounding spaces and tabs are
/// ignored.
///
/// ```
/// use http::{HeaderMap, HeaderValue, header::RETRY_AFTER};
/// use resilient::http::retry_after;
/// use std::time::{Duration, SystemTime, UNIX_EPOCH};
///
/// let mut headers = HeaderMap::new();
/// headers.insert(RETRY_AFTER, HeaderValue::from_static("120"));
/// assert_eq!(retry_after(&headers, SystemTime::now()), Some(Duration::from_secs(120)));
///
/// headers.insert(RETRY_AFTER, HeaderValue::from_static("Thu, 01 Jan 1970 00:01:00 GMT"));
/// let now = UNIX_EPOCH + Duration::from_secs(15);
/// assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(45)));
///
/// headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
/// assert_eq!(retry_after(&headers, now), None);
/// ```
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    let value = value.trim_matches([' ', '\t']);
    if value.is_empty() {
        return None;
    }
    if value.bytes().all(|b| b.is_ascii_digit()) {
        // All digits, so parsing fails only on overflow.
        return Some(value.parse().map_or(Duration::MAX, Duration::from_secs));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    date.duration_since(now).ok()
}

/// What a server's `grpc-retry-pushback-ms` header says (gRPC proposal
/// A6, "server pushback"), read by [`retry_pushback`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushback {
    /// Retry after exactly this long, in place of the backoff.
    After(Duration),
    /// Don't retry: the header was negative or not a number.
    Stop,
}

/// The name of gRPC A6's pushback header.
pub const RETRY_PUSHBACK_MS: &str = "grpc-retry-pushback-ms";

/// What the first `grpc-retry-pushback-ms` header in `headers` asks: a
/// non-negative decimal count of milliseconds is the wait before the next
/// attempt ([`Pushback::After`], saturating); any other value, a negative
/// one included, asks the client not to retry ([`Pushback::Stop`]), as A6
/// reads it. `None` without the header.
///
/// The classifiers of the tower layer and the reqwest middleware
/// ([`HttpClassifier`](crate::tower::HttpClassifier)) read it on a failing
/// response, before `Retry-After`: a wait takes the Retry-After path
/// (`max_retry_after_wait` caps it), a stop ends the call.
///
/// ```
/// use http::{HeaderMap, HeaderValue};
/// use resilient::http::{Pushback, RETRY_PUSHBACK_MS, retry_pushback};
/// use std::time::Duration;
///
/// let mut headers = HeaderMap::new();
/// assert_eq!(retry_pushback(&headers), None);
/// headers.insert(RETRY_PUSHBACK_MS, HeaderValue::from_static("250"));
/// assert_eq!(retry_pushback(&headers), Some(Pushback::After(Duration::from_millis(250))));
/// headers.insert(RETRY_PUSHBACK_MS, HeaderValue::from_static("-1"));
/// assert_eq!(retry_pushback(&headers), Some(Pushback::Stop));
/// headers.insert(RETRY_PUSHBACK_MS, HeaderValue::from_static("soon"));
/// assert_eq!(retry_pushback(&headers), Some(Pushback::Stop));
/// ```
pub fn retry_pushback(headers: &HeaderMap) -> Option<Pushback> {
    let value = headers.get(RETRY_PUSHBACK_MS)?;
    let value = value.to_str().map(|text| text.trim_matches([' ', '\t']));
    Some(match value {
        Ok(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            // All digits, so parsing fails only on overflow.
            Pushback::After(text.parse().map_or(Duration::MAX, Duration::from_millis))
        }
        _ => Pushback::Stop,
    })
}

/// An error that can tell what an HTTP call answered, for [`retryable`] and
/// [`rate_limit_hint`].
///
/// ```
/// use http::StatusCode;
/// use resilient::http::{HttpFailure, retryable};
///
/// enum ApiError {
///     Status(StatusCode),
///     Connect,
///     Decode,
/// }
///
/// impl HttpFailure for ApiError {
///     fn status(&self) -> Option<StatusCode> {
///         match self {
///             ApiError::Status(status) => Some(*status),
///             ApiError::Connect => None,
///             // A body that does not decode will not decode next time either.
///             ApiError::Decode => Some(StatusCode::UNPROCESSABLE_ENTITY),
///         }
///     }
/// }
///
/// assert!(retryable(&ApiError::Status(StatusCode::BAD_GATEWAY)));
/// assert!(retryable(&ApiError::Connect));
/// assert!(!retryable(&ApiError::Decode));
/// ```
pub trait HttpFailure {
    /// The response's status, or `None` when no response arrived (a
    /// transport error such as a refused connection or a timeout).
    fn status(&self) -> Option<StatusCode>;

    /// The wait the response's `Retry-After` header asked for, if any;
    /// usually computed with [`retry_after`]. `None` by default.
    fn retry_after(&self) -> Option<Duration> {
        None
    }

    /// Whether a failure without a status may succeed on another try.
    /// `true` by default: no response arrived, so the request may never
    /// have reached the server. A failure that every try would repeat (a
    /// malformed URL, a redirect loop) answers `false`. Not consulted when
    /// there is a status.
    ///
    /// ```
    /// use http::StatusCode;
    /// use resilient::http::{HttpFailure, retryable};
    ///
    /// struct BadUrl;
    ///
    /// impl HttpFailure for BadUrl {
    ///     fn status(&self) -> Option<StatusCode> {
    ///         None
    ///     }
    ///
    ///     fn transient(&self) -> bool {
    ///         false
    ///     }
    /// }
    ///
    /// assert!(!retryable(&BadUrl));
    /// ```
    fn transient(&self) -> bool {
        true
    }
}

/// A bare status code is a failure with that status and no `Retry-After`,
/// so a function returning `Result<T, StatusCode>` needs no wrapper.
///
/// ```
/// use http::StatusCode;
/// use resilient::http::retryable;
///
/// assert!(retryable(&StatusCode::GATEWAY_TIMEOUT));
/// assert!(!retryable(&StatusCode::BAD_REQUEST));
/// ```
impl HttpFailure for StatusCode {
    fn status(&self) -> Option<StatusCode> {
        Some(*self)
    }
}

/// Whether an HTTP failure is worth retrying: its status
/// [`is_retryable`], or it has no status (a transport error) and is
/// [`transient`](HttpFailure::transient).
///
/// Fits the attribute's `retry_if` option as it is.
///
/// ```
/// use http::StatusCode;
/// use resilient::http::{HttpError, retryable};
///
/// assert!(retryable(&HttpError::from(StatusCode::BAD_GATEWAY)));
/// assert!(retryable(&HttpError::transport("connection reset")));
/// assert!(!retryable(&HttpError::from(StatusCode::UNAUTHORIZED)));
/// ```
pub fn retryable<E: HttpFailure + ?Sized>(error: &E) -> bool {
    match error.status() {
        Some(status) => is_retryable(status),
        None => error.transient(),
    }
}

/// The `Retry-After` wait of a retryable HTTP failure, `None` for a failure
/// that is not [`retryable`].
///
/// Fits the attribute's `rate_limit` option as it is: the engine then waits
/// this long without spending a retry.
///
/// ```
/// use http::{HeaderMap, HeaderValue, StatusCode, header::RETRY_AFTER};
/// use resilient::http::{HttpError, rate_limit_hint};
/// use std::time::{Duration, SystemTime};
///
/// let mut headers = HeaderMap::new();
/// headers.insert(RETRY_AFTER, HeaderValue::from_static("3"));
/// let now = SystemTime::now();
///
/// let busy = HttpError::from_response_parts(StatusCode::SERVICE_UNAVAILABLE, &headers, now);
/// assert_eq!(rate_limit_hint(&busy), Some(Duration::from_secs(3)));
///
/// // A redirect's Retry-After is not a reason to retry.
/// let moved = HttpError::from_response_parts(StatusCode::MOVED_PERMANENTLY, &headers, now);
/// assert_eq!(rate_limit_hint(&moved), None);
/// ```
pub fn rate_limit_hint<E: HttpFailure + ?Sized>(error: &E) -> Option<Duration> {
    if retryable(error) {
        error.retry_after()
    } else {
        None
    }
}

/// A ready-made HTTP error: the status (if a response arrived), the
/// `Retry-After` wait and a message. Implements [`HttpFailure`], so
/// [`retryable`] and [`rate_limit_hint`] work on it as they are.
///
/// It converts from [`TimedOut`] and [`CircuitOpen`] as transport errors, so
/// it can be the error type of an operation with a timeout or a circuit
/// breaker. With the feature `reqwest`, it converts from `reqwest::Error`
/// and [`from_response`](HttpError::from_response) reads a
/// `reqwest::Response`, so that a reqwest call needs no glue (see
/// [`From<reqwest::Error>`](#impl-From<Error>-for-HttpError)).
///
/// ```
/// use http::{HeaderMap, StatusCode};
/// use resilient::http::HttpError;
/// use std::time::SystemTime;
///
/// let error = HttpError::from_response_parts(StatusCode::BAD_GATEWAY, &HeaderMap::new(), SystemTime::now())
///     .with_message("upstream down");
/// assert_eq!(error.status(), Some(StatusCode::BAD_GATEWAY));
/// assert_eq!(error.to_string(), "HTTP 502 Bad Gateway: upstream down");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpError {
    status: Option<StatusCode>,
    retry_after: Option<Duration>,
    message: String,
    /// Without a status: whether another try may succeed.
    transient: bool,
}

impl HttpError {
    /// An error for a response with `status`, reading its `Retry-After`
    /// header with [`retry_after`] relative to `now`.
    ///
    /// ```
    /// use http::{HeaderMap, HeaderValue, StatusCode, header::RETRY_AFTER};
    /// use resilient::http::HttpError;
    /// use std::time::{Duration, SystemTime};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert(RETRY_AFTER, HeaderValue::from_static("30"));
    /// let error = HttpError::from_response_parts(StatusCode::TOO_MANY_REQUESTS, &headers, SystemTime::now());
    /// assert_eq!(error.retry_after(), Some(Duration::from_secs(30)));
    /// ```
    pub fn from_response_parts(status: StatusCode, headers: &HeaderMap, now: SystemTime) -> Self {
        Self {
            status: Some(status),
            retry_after: retry_after(headers, now),
            message: String::new(),
            transient: true,
        }
    }

    /// An error for a request that got no response (connection refused,
    /// reset, DNS failure, …); always [`retryable`].
    ///
    /// ```
    /// use resilient::http::HttpError;
    ///
    /// let error = HttpError::transport("connection refused");
    /// assert_eq!(error.status(), None);
    /// assert_eq!(error.to_string(), "connection refused");
    /// ```
    pub fn transport(message: impl Into<String>) -> Self {
        Self {
            status: None,
            retry_after: None,
            message: message.into(),
            transient: true,
        }
    }

    /// Replaces the message, e.g. with the response body or the URL.
    ///
    /// ```
    /// use http::StatusCode;
    /// use resilient::http::HttpError;
    ///
    /// let error = HttpError::from(StatusCode::NOT_FOUND).with_message("/users/7");
    /// assert_eq!(error.message(), "/users/7");
    /// ```
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// The response's status; `None` for a transport error.
    ///
    /// ```
    /// use http::StatusCode;
    /// use resilient::http::HttpError;
    ///
    /// assert_eq!(HttpError::from(StatusCode::CONFLICT).status(), Some(StatusCode::CONFLICT));
    /// ```
    pub fn status(&self) -> Option<StatusCode> {
        self.status
    }

    /// The wait the response's `Retry-After` header asked for.
    ///
    /// ```
    /// use http::StatusCode;
    /// use resilient::http::HttpError;
    ///
    /// assert_eq!(HttpError::from(StatusCode::SERVICE_UNAVAILABLE).retry_after(), None);
    /// ```
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// The message; empty unless one was given.
    ///
    /// ```
    /// use resilient::http::HttpError;
    ///
    /// assert_eq!(HttpError::transport("reset").message(), "reset");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl HttpFailure for HttpError {
    fn status(&self) -> Option<StatusCode> {
        self.status
    }

    fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    fn transient(&self) -> bool {
        self.transient
    }
}

impl From<StatusCode> for HttpError {
    /// An error for a response with `status` and no `Retry-After`.
    ///
    /// ```
    /// use http::StatusCode;
    /// use resilient::http::HttpError;
    ///
    /// let error = HttpError::from(StatusCode::BAD_REQUEST);
    /// assert_eq!(error.to_string(), "HTTP 400 Bad Request");
    /// ```
    fn from(status: StatusCode) -> Self {
        Self {
            status: Some(status),
            retry_after: None,
            message: String::new(),
            transient: true,
        }
    }
}

#[cfg(feature = "reqwest")]
impl HttpError {
    /// An error for a reqwest response: its status, and the wait its
    /// `Retry-After` header asks for (delta-seconds or an HTTP-date, read
    /// against the system clock). Whether it is worth retrying follows
    /// [`is_retryable`]; the message is empty.
    ///
    /// With [`From<reqwest::Error>`](#impl-From<Error>-for-HttpError), a
    /// function under the attribute needs nothing else:
    ///
    /// ```no_run
    /// use resilient::http::{HttpError, rate_limit_hint, retryable};
    /// use resilient::resilient;
    ///
    /// #[resilient(retries = 3, retry_if = retryable, rate_limit = rate_limit_hint, timeout = "2s")]
    /// async fn fetch(client: &reqwest::Client, url: &str) -> Result<String, HttpError> {
    ///     let response = client.get(url).send().await?;
    ///     if !response.status().is_success() {
    ///         return Err(HttpError::from_response(&response));
    ///     }
    ///     Ok(response.text().await?)
    /// }
    /// ```
    pub fn from_response(response: &reqwest::Response) -> Self {
        Self::from_response_parts(response.status(), response.headers(), SystemTime::now())
    }
}

#[cfg(feature = "reqwest")]
impl From<reqwest::Error> for HttpError {
    /// An error for a failed reqwest call (feature `reqwest`):
    ///
    /// * one with a status (from `error_for_status`) has that status, so
    ///   it is retried as [`is_retryable`] says; its message is the URL;
    /// * a request that could not be built (a malformed URL) or that
    ///   followed too many redirects fails the same way every time: not
    ///   [`transient`](HttpFailure::transient), never retried;
    /// * every other error (connect, timeout, a connection reset while
    ///   sending or while reading the body) is a transport error, retried.
    ///
    /// The message is the error and its sources, joined by `": "`, so the
    /// report shows the cause (`… : Connection refused (os error 111)`).
    ///
    /// ```
    /// use resilient::http::{HttpError, HttpFailure, retryable};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // A malformed URL fails before anything is sent: not worth a retry.
    /// let error = reqwest::Client::new().get("http://[::1").send().await.unwrap_err();
    /// let error = HttpError::from(error);
    /// assert_eq!(error.status(), None);
    /// assert!(!retryable(&error));
    /// # }
    /// ```
    fn from(error: reqwest::Error) -> Self {
        if let Some(status) = error.status() {
            let url = error.url().map(|url| url.to_string()).unwrap_or_default();
            return HttpError::from(status).with_message(url);
        }
        let mut message = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        HttpError {
            status: None,
            retry_after: None,
            message,
            transient: transient(&error),
        }
    }
}

/// Whether another try of a reqwest call that failed without a status may
/// succeed: not when the request could not be built (a malformed URL) or
/// followed too many redirects, which every try would repeat.
#[cfg(feature = "reqwest")]
pub(crate) fn transient(error: &reqwest::Error) -> bool {
    !(error.is_builder() || error.is_redirect())
}

impl From<TimedOut> for HttpError {
    /// A transport error saying the attempt timed out.
    ///
    /// ```
    /// use resilient::{TimedOut, http::HttpError};
    ///
    /// assert_eq!(HttpError::from(TimedOut).to_string(), "attempt timed out");
    /// ```
    fn from(error: TimedOut) -> Self {
        Self::transport(error.to_string())
    }
}

impl From<CircuitOpen> for HttpError {
    /// A transport error saying the circuit breaker rejected the attempt.
    ///
    /// ```
    /// use resilient::{CircuitOpen, http::HttpError};
    ///
    /// assert_eq!(HttpError::from(CircuitOpen).to_string(), "circuit breaker is open");
    /// ```
    fn from(error: CircuitOpen) -> Self {
        Self::transport(error.to_string())
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.status, self.message.is_empty()) {
            (Some(status), true) => write!(f, "HTTP {status}"),
            (Some(status), false) => write!(f, "HTTP {status}: {}", self.message),
            (None, true) => f.write_str("HTTP request failed without a response"),
            (None, false) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for HttpError {}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;
    use std::time::UNIX_EPOCH;

    #[test]
    fn status_classification_table() {
        let table: &[(u16, bool)] = &[
            (100, false),
            (200, false),
            (301, false),
            (400, false),
            (401, false),
            (403, false),
            (404, false),
            (408, true),
            (409, false),
            (410, true),
            (422, false),
            (429, true),
            (460, true),
            (500, true),
            (501, false),
            (502, true),
            (503, true),
            (504, true),
            (505, false),
            (506, true),
            (507, true),
            (508, true),
            (510, true),
            (511, false),
            (520, true),
            (529, true),
            (599, true),
            (600, false),
            (999, false),
        ];
        for &(code, expected) in table {
            let status = StatusCode::from_u16(code).unwrap();
            assert_eq!(is_retryable(status), expected, "status {code}");
            assert_eq!(retryable(&status), expected, "status {code} as a failure");
        }
    }

    #[test]
    fn no_other_code_is_retryable() {
        let listed = |code: u16| {
            matches!(code, 408 | 410 | 429 | 460)
                || ((500..=599).contains(&code) && !matches!(code, 501 | 505 | 511))
        };
        for code in 100..=999 {
            let status = StatusCode::from_u16(code).unwrap();
            assert_eq!(is_retryable(status), listed(code), "status {code}");
        }
    }

    fn headers(values: &[&'static str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(RETRY_AFTER, HeaderValue::from_static(value));
        }
        map
    }

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    /// 1994-11-06 08:49:37 UTC, the date of RFC 9110's examples.
    const EXAMPLE_DATE: u64 = 784_111_777;

    #[test]
    fn retry_after_delta_seconds() {
        let now = SystemTime::now();
        assert_eq!(
            retry_after(&headers(&["120"]), now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(retry_after(&headers(&["0"]), now), Some(Duration::ZERO));
        assert_eq!(
            retry_after(&headers(&["007"]), now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            retry_after(&headers(&[" 5\t"]), now),
            Some(Duration::from_secs(5))
        );
    }

    #[test]
    fn retry_after_huge_delta_saturates() {
        let now = SystemTime::now();
        assert_eq!(
            retry_after(&headers(&["18446744073709551615"]), now),
            Some(Duration::from_secs(u64::MAX))
        );
        assert_eq!(
            retry_after(&headers(&["99999999999999999999999999999999"]), now),
            Some(Duration::MAX)
        );
    }

    #[test]
    fn retry_after_rejects_malformed_values() {
        let now = SystemTime::now();
        for value in [
            "",
            " ",
            "-1",
            "-0",
            "+5",
            "1.5",
            "1e3",
            "5s",
            "soon",
            "0x10",
            "1 2",
            "Someday, 99 Foo 2015 07:28:00 GMT",
        ] {
            assert_eq!(retry_after(&headers(&[value]), now), None, "{value:?}");
        }
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
        let mut map = HeaderMap::new();
        map.insert(RETRY_AFTER, HeaderValue::from_bytes(b"\xff\xfe").unwrap());
        assert_eq!(retry_after(&map, now), None);
    }

    #[test]
    fn retry_after_http_date_in_the_future() {
        let value = "Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(
            retry_after(&headers(&[value]), at(EXAMPLE_DATE - 90)),
            Some(Duration::from_secs(90))
        );
        let now = at(EXAMPLE_DATE - 2) + Duration::from_millis(250);
        assert_eq!(
            retry_after(&headers(&[value]), now),
            Some(Duration::from_millis(1750))
        );
    }

    #[test]
    fn retry_after_obsolete_date_forms() {
        let now = at(EXAMPLE_DATE - 10);
        for value in ["Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            assert_eq!(
                retry_after(&headers(&[value]), now),
                Some(Duration::from_secs(10)),
                "{value:?}"
            );
        }
    }

    #[test]
    fn retry_after_http_date_now_is_zero_and_past_is_none() {
        let value = "Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(
            retry_after(&headers(&[value]), at(EXAMPLE_DATE)),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers(&[value]), at(EXAMPLE_DATE + 1)), None);
        let just_after = at(EXAMPLE_DATE) + Duration::from_nanos(1);
        assert_eq!(retry_after(&headers(&[value]), just_after), None);
    }

    #[test]
    fn retry_after_first_header_wins() {
        let now = SystemTime::now();
        assert_eq!(
            retry_after(&headers(&["3", "60"]), now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(retry_after(&headers(&["garbage", "60"]), now), None);
    }

    #[derive(Debug)]
    enum ClientError {
        Status(StatusCode, Option<Duration>),
        Connect,
    }

    impl HttpFailure for ClientError {
        fn status(&self) -> Option<StatusCode> {
            match self {
                ClientError::Status(status, _) => Some(*status),
                ClientError::Connect => None,
            }
        }

        fn retry_after(&self) -> Option<Duration> {
            match self {
                ClientError::Status(_, wait) => *wait,
                ClientError::Connect => None,
            }
        }
    }

    #[test]
    fn classifier_on_a_custom_error() {
        let wait = Some(Duration::from_secs(2));
        let limited = ClientError::Status(StatusCode::TOO_MANY_REQUESTS, wait);
        assert!(retryable(&limited));
        assert_eq!(rate_limit_hint(&limited), wait);

        let forbidden = ClientError::Status(StatusCode::FORBIDDEN, wait);
        assert!(!retryable(&forbidden));
        assert_eq!(rate_limit_hint(&forbidden), None);

        assert!(retryable(&ClientError::Connect));
        assert_eq!(rate_limit_hint(&ClientError::Connect), None);
    }

    #[test]
    fn classifiers_fit_the_engine_signatures() {
        fn classify<E>(error: &E, retry_if: impl Fn(&E) -> bool) -> bool {
            retry_if(error)
        }
        fn hint<E>(error: &E, rate_limit: impl Fn(&E) -> Option<Duration>) -> Option<Duration> {
            rate_limit(error)
        }
        let error = HttpError::from_response_parts(
            StatusCode::SERVICE_UNAVAILABLE,
            &headers(&["4"]),
            SystemTime::now(),
        );
        assert!(classify(&error, retryable));
        assert_eq!(hint(&error, rate_limit_hint), Some(Duration::from_secs(4)));
        assert!(classify(&ClientError::Connect, retryable));
        assert_eq!(hint(&ClientError::Connect, rate_limit_hint), None);
    }

    #[test]
    fn http_error_from_response_parts() {
        let error = HttpError::from_response_parts(
            StatusCode::TOO_MANY_REQUESTS,
            &headers(&["Sun, 06 Nov 1994 08:49:37 GMT"]),
            at(EXAMPLE_DATE - 30),
        );
        assert_eq!(error.status(), Some(StatusCode::TOO_MANY_REQUESTS));
        assert_eq!(error.retry_after(), Some(Duration::from_secs(30)));
        assert_eq!(error.message(), "");
        assert_eq!(error.to_string(), "HTTP 429 Too Many Requests");
    }

    #[test]
    fn http_error_display() {
        assert_eq!(
            HttpError::from(StatusCode::BAD_GATEWAY)
                .with_message("upstream")
                .to_string(),
            "HTTP 502 Bad Gateway: upstream"
        );
        assert_eq!(
            HttpError::transport("").to_string(),
            "HTTP request failed without a response"
        );
        assert_eq!(HttpError::transport("reset").to_string(), "reset");
    }

    #[test]
    fn engine_markers_become_retryable_transport_errors() {
        for error in [HttpError::from(TimedOut), HttpError::from(CircuitOpen)] {
            assert_eq!(error.status(), None);
            assert!(retryable(&error));
        }
    }
}
