//! What an attempt's result means to the retry loop: the [`Verdict`] a
//! [`Classifier`] gives on the whole `Result` of a call, so that a response
//! can fail (a `503` is an `Ok` to the service) and carry a Retry-After
//! wait.

use std::time::Duration;

/// What one attempt's result means to the retry loop.
///
/// ```
/// use resilient::tower::Verdict;
/// use std::time::Duration;
///
/// /// A service answering with a status code and, maybe, a wait.
/// fn classify(result: &Result<(u16, Option<u64>), std::io::Error>) -> Verdict {
///     match result {
///         Ok((200, _)) => Verdict::Success,
///         Ok((503, wait)) => Verdict::Retryable { retry_after: wait.map(Duration::from_secs) },
///         Ok(_) => Verdict::Fatal,
///         Err(_) => Verdict::Retryable { retry_after: None },
///     }
/// }
///
/// assert_eq!(classify(&Ok((503, Some(2)))), Verdict::Retryable { retry_after: Some(Duration::from_secs(2)) });
/// assert_eq!(classify(&Ok((404, None))), Verdict::Fatal);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The call succeeded: its response is the result. Given to an `Err`,
    /// it counts as [`Fatal`](Verdict::Fatal): there is no response to
    /// return, so the error ends the call without a retry.
    Success,
    /// The call failed and another attempt may succeed.
    Retryable {
        /// The wait the service asked for (a `Retry-After` header, say).
        /// `Some` takes the Retry-After path: the next attempt starts
        /// exactly that much later, without spending a retry and without
        /// the backoff, within `max_retry_after_wait` and the budget.
        retry_after: Option<Duration>,
    },
    /// The call failed and another attempt would fail the same way: the
    /// call ends with this result.
    Fatal,
}

/// Decides what a call's result means: [`Verdict`] for the retry loop, and
/// the text the report shows for a failing response.
///
/// It sees the whole `Result<Response, Error>` of one attempt, so a
/// response can fail as well as an error, and a response can say how long
/// to wait. Implemented by every `Fn(&Result<Res, Err>) -> Verdict`: a
/// closure passed to
/// [`ResilientLayer::classify`](super::ResilientLayer::classify) names the
/// types in its argument, or is a plain `fn`.
///
/// ```
/// use resilient::tower::{Classifier, Verdict};
///
/// /// Retries the answers above 499, and every error.
/// struct ServerErrors;
///
/// impl Classifier<u16, String> for ServerErrors {
///     fn classify(&self, result: &Result<u16, String>) -> Verdict {
///         match result {
///             Ok(status) if *status >= 500 => Verdict::Retryable { retry_after: None },
///             Ok(_) => Verdict::Success,
///             Err(_) => Verdict::Retryable { retry_after: None },
///         }
///     }
///
///     fn describe(&self, status: &u16) -> String {
///         format!("status {status}")
///     }
/// }
///
/// assert_eq!(ServerErrors.classify(&Ok(502)), Verdict::Retryable { retry_after: None });
/// assert_eq!(ServerErrors.describe(&502), "status 502");
/// ```
pub trait Classifier<Res, Err> {
    /// The verdict on one attempt's result.
    fn classify(&self, result: &Result<Res, Err>) -> Verdict;

    /// The report's text for a response classified as a failure (errors
    /// show their own `Display`). The default says only that much; a
    /// classifier that knows the response type says more (the status of an
    /// HTTP response, say).
    ///
    /// ```
    /// use resilient::tower::{Classifier, Verdict};
    ///
    /// let classify = |result: &Result<u16, ()>| match result {
    ///     Ok(200) => Verdict::Success,
    ///     _ => Verdict::Fatal,
    /// };
    /// assert_eq!(classify.describe(&404), "response classified as a failure");
    /// ```
    fn describe(&self, response: &Res) -> String {
        let _ = response;
        String::from("response classified as a failure")
    }

    /// The HTTP status of a response, for the attempt's record
    /// ([`AttemptRecord::status`](crate::AttemptRecord::status)); `None`
    /// (the default) for a response that has none, or a classifier that
    /// doesn't know the response type. [`HttpClassifier`] reads it.
    ///
    /// ```
    /// use resilient::tower::{Classifier, RetryErrors};
    ///
    /// assert_eq!(Classifier::<u16, ()>::status(&RetryErrors, &503), None);
    /// ```
    fn status(&self, response: &Res) -> Option<u16> {
        let _ = response;
        None
    }

    /// Whether a failed attempt's result shows that the server did not
    /// process the request: a refused connection, a `408`, a `429`, a `503` with
    /// `Retry-After`. Such a failure may be retried whatever the request,
    /// while after any other (a timeout, a `500`, a connection reset once
    /// the request was written) only a request that may run twice is sent
    /// again (see [`Resendable`](super::Resendable)).
    ///
    /// The default, `false`, says nothing of the server: the request may
    /// have reached it. `HttpClassifier` reads statuses and connect errors.
    ///
    /// ```
    /// use resilient::tower::{Classifier, Verdict};
    ///
    /// /// A queue that answers `Full` before it takes a message.
    /// #[derive(Debug)]
    /// enum Sent {
    ///     Queued,
    ///     Full,
    /// }
    ///
    /// struct Queue;
    ///
    /// impl Classifier<Sent, std::io::Error> for Queue {
    ///     fn classify(&self, result: &Result<Sent, std::io::Error>) -> Verdict {
    ///         match result {
    ///             Ok(Sent::Queued) => Verdict::Success,
    ///             _ => Verdict::Retryable { retry_after: None },
    ///         }
    ///     }
    ///
    ///     fn unprocessed(&self, result: &Result<Sent, std::io::Error>) -> bool {
    ///         matches!(result, Ok(Sent::Full))
    ///     }
    /// }
    ///
    /// assert!(Queue.unprocessed(&Ok(Sent::Full)));
    /// assert!(!Queue.unprocessed(&Err(std::io::Error::other("reset"))));
    /// ```
    fn unprocessed(&self, result: &Result<Res, Err>) -> bool {
        let _ = result;
        false
    }
}

impl<Res, Err, F> Classifier<Res, Err> for F
where
    F: Fn(&Result<Res, Err>) -> Verdict,
{
    fn classify(&self, result: &Result<Res, Err>) -> Verdict {
        self(result)
    }
}

/// The default classifier: every response is a success and every error is
/// retryable, with no Retry-After wait, as the attribute retries every
/// error by default.
///
/// ```
/// use resilient::tower::{Classifier, RetryErrors, Verdict};
///
/// assert_eq!(RetryErrors.classify(&Ok::<_, ()>("any response")), Verdict::Success);
/// assert_eq!(RetryErrors.classify(&Err::<(), _>("any error")), Verdict::Retryable { retry_after: None });
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetryErrors;

impl<Res, Err> Classifier<Res, Err> for RetryErrors {
    fn classify(&self, result: &Result<Res, Err>) -> Verdict {
        match result {
            Ok(_) => Verdict::Success,
            Err(_) => Verdict::Retryable { retry_after: None },
        }
    }
}

/// The classifier of HTTP clients (feature `http`): an
/// [`http::Response`]'s status follows the table of
/// [`http::is_retryable`](crate::http::is_retryable), and a retryable
/// response's `Retry-After` header, read with
/// [`http::retry_after`](crate::http::retry_after), takes the Retry-After
/// path.
///
/// * a retryable status (408, 410, 429, 460, most 5xx) is
///   [`Retryable`](Verdict::Retryable), with the header's wait if any; a
///   `grpc-retry-pushback-ms` header (gRPC A6, read with
///   [`http::retry_pushback`](crate::http::retry_pushback)) comes first:
///   its milliseconds are the wait, and a negative or malformed value
///   makes the response [`Fatal`](Verdict::Fatal), as the server asks;
/// * any other 4xx or 5xx is [`Fatal`](Verdict::Fatal): the caller gets that
///   response after one attempt;
/// * 1xx, 2xx and 3xx are a [`Success`](Verdict::Success);
/// * every error is retryable: no response arrived (refused, reset, timed
///   out), so the request may never have reached the server.
///
/// What the server may have run is not sent again unless it may run twice:
/// through the layer's default rule ([`ByClassifier`](super::ByClassifier))
/// and the reqwest middleware's, a POST or a PATCH without an
/// `Idempotency-Key` header is retried only when
/// [`unprocessed`](Classifier::unprocessed) says the server did not
/// process it (a refused connection, a `408`, a `429`, a `503` with
/// `Retry-After`),
/// never after a timeout, another retryable status or a reset.
///
/// The report shows a failing response as `HTTP 503 Service Unavailable`.
///
/// A server that is unavailable, then rate-limits with `Retry-After: 1`,
/// then answers: the first wait comes from the backoff, the second is the
/// server's, and the caller gets the `200`.
///
/// ```
/// use http::{Request, Response, StatusCode, header::RETRY_AFTER};
/// use resilient::tower::{HttpClassifier, ResilientLayer};
/// use resilient::{Backoff, DelaySource, ExecutionReport, Jitter};
/// use std::convert::Infallible;
/// use std::sync::{Arc, Mutex};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::Duration;
/// use tower::{ServiceBuilder, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), tower::BoxError> {
/// let calls = Arc::new(AtomicU32::new(0));
/// let server = service_fn(move |_: Request<()>| {
///     let response = match calls.fetch_add(1, Ordering::SeqCst) {
///         0 => Response::builder().status(StatusCode::SERVICE_UNAVAILABLE),
///         1 => Response::builder().status(StatusCode::TOO_MANY_REQUESTS).header(RETRY_AFTER, "1"),
///         _ => Response::builder().status(StatusCode::OK),
///     };
///     async move { Ok::<_, Infallible>(response.body(()).unwrap()) }
/// });
///
/// let reports = Arc::new(Mutex::new(Vec::new()));
/// let seen = Arc::clone(&reports);
/// let client = ServiceBuilder::new()
///     .layer(
///         ResilientLayer::new()
///             .retries(3)
///             .backoff(Backoff::exponential(Duration::from_millis(50), Duration::from_secs(1)).jitter(Jitter::None))
///             .classify(HttpClassifier)
///             .on_report(move |report: &ExecutionReport| seen.lock().unwrap().push(report.clone())),
///     )
///     .service(server);
///
/// let response = client.oneshot(Request::new(())).await?;
/// assert_eq!(response.status(), StatusCode::OK);
///
/// let report = reports.lock().unwrap().pop().unwrap();
/// let waits: Vec<_> = report.attempts().iter().filter_map(|a| a.delay_before()).map(|d| (d.source(), d.duration())).collect();
/// assert_eq!(waits, [(DelaySource::Backoff, Duration::from_millis(50)), (DelaySource::RetryAfter, Duration::from_secs(1))]);
/// assert_eq!(report.attempts()[0].error().unwrap().message(), "HTTP 503 Service Unavailable");
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HttpClassifier;

#[cfg(feature = "http")]
impl<B, Err: 'static> Classifier<::http::Response<B>, Err> for HttpClassifier {
    fn classify(&self, result: &Result<::http::Response<B>, Err>) -> Verdict {
        match result {
            Ok(response) => response_verdict(response.status(), response.headers()),
            Err(_) => Verdict::Retryable { retry_after: None },
        }
    }

    fn describe(&self, response: &::http::Response<B>) -> String {
        format!("HTTP {}", response.status())
    }

    fn status(&self, response: &::http::Response<B>) -> Option<u16> {
        Some(response.status().as_u16())
    }

    /// A `408`, a `429`, a `503` with `Retry-After`, or an `io::Error` or a
    /// `BoxError` whose causes hold a refused connection (an `io::Error`
    /// of kind `ConnectionRefused`, a reqwest connect error); an error of
    /// another type says nothing, so the request may have reached the
    /// server.
    fn unprocessed(&self, result: &Result<::http::Response<B>, Err>) -> bool {
        match result {
            Ok(response) => crate::http::unprocessed(response.status(), response.headers()),
            Err(error) => crate::http::refused(error),
        }
    }
}

/// A response's verdict: its status by the table, and a retryable one's
/// wait: gRPC A6's pushback, which may also forbid the retry, else
/// `Retry-After`.
#[cfg(feature = "http")]
fn response_verdict(status: ::http::StatusCode, headers: &::http::HeaderMap) -> Verdict {
    use crate::http::Pushback;
    if crate::http::is_retryable(status) {
        let retry_after = match crate::http::retry_pushback(headers) {
            Some(Pushback::Stop) => return Verdict::Fatal,
            Some(Pushback::After(wait)) => Some(wait),
            // HTTP-dates are wall-clock times, so they are read against
            // the system's clock whatever clock the operation runs on.
            None => crate::http::retry_after(headers, std::time::SystemTime::now()),
        };
        Verdict::Retryable { retry_after }
    } else if status.is_client_error() || status.is_server_error() {
        Verdict::Fatal
    } else {
        Verdict::Success
    }
}

/// A reqwest error's verdict: its status if it has one, else retryable
/// unless every try would fail the same way (see
/// [`HttpError`'s conversion](crate::http::HttpError#impl-From<Error>-for-HttpError)).
#[cfg(feature = "reqwest")]
fn reqwest_error_verdict(error: &::reqwest::Error) -> Verdict {
    let retryable = match error.status() {
        Some(status) => crate::http::is_retryable(status),
        None => crate::http::transient(error),
    };
    if retryable {
        Verdict::Retryable { retry_after: None }
    } else {
        Verdict::Fatal
    }
}

/// reqwest's response through the tower layer wrapping a
/// `reqwest::Client` (feature `reqwest`): the status by the table, with
/// `Retry-After`; an error is retried unless every try would repeat it
/// (a malformed URL, too many redirects).
#[cfg(feature = "reqwest")]
impl Classifier<::reqwest::Response, ::reqwest::Error> for HttpClassifier {
    fn classify(&self, result: &Result<::reqwest::Response, ::reqwest::Error>) -> Verdict {
        match result {
            Ok(response) => response_verdict(response.status(), response.headers()),
            Err(error) => reqwest_error_verdict(error),
        }
    }

    fn describe(&self, response: &::reqwest::Response) -> String {
        format!("HTTP {}", response.status())
    }

    fn status(&self, response: &::reqwest::Response) -> Option<u16> {
        Some(response.status().as_u16())
    }

    /// A `408`, a `429`, a `503` with `Retry-After`, or a connect error: the
    /// request never left the client.
    fn unprocessed(&self, result: &Result<::reqwest::Response, ::reqwest::Error>) -> bool {
        match result {
            Ok(response) => crate::http::unprocessed(response.status(), response.headers()),
            Err(error) => error.is_connect(),
        }
    }
}

/// reqwest's response through a reqwest-middleware chain (feature
/// `reqwest`), as with a `reqwest::Client`; an error from another
/// middleware is not retried, as reqwest-retry has it.
#[cfg(feature = "reqwest")]
impl Classifier<::reqwest::Response, ::reqwest_middleware::Error> for HttpClassifier {
    fn classify(
        &self,
        result: &Result<::reqwest::Response, ::reqwest_middleware::Error>,
    ) -> Verdict {
        match result {
            Ok(response) => response_verdict(response.status(), response.headers()),
            Err(::reqwest_middleware::Error::Reqwest(error)) => reqwest_error_verdict(error),
            Err(::reqwest_middleware::Error::Middleware(_)) => Verdict::Fatal,
        }
    }

    fn describe(&self, response: &::reqwest::Response) -> String {
        format!("HTTP {}", response.status())
    }

    fn status(&self, response: &::reqwest::Response) -> Option<u16> {
        Some(response.status().as_u16())
    }

    /// As with a `reqwest::Client`: a `408`, a `429`, a `503` with `Retry-After`,
    /// or reqwest's connect error.
    fn unprocessed(
        &self,
        result: &Result<::reqwest::Response, ::reqwest_middleware::Error>,
    ) -> bool {
        match result {
            Ok(response) => crate::http::unprocessed(response.status(), response.headers()),
            Err(::reqwest_middleware::Error::Reqwest(error)) => error.is_connect(),
            Err(::reqwest_middleware::Error::Middleware(_)) => false,
        }
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    #[test]
    fn http_statuses_follow_the_table() {
        use ::http::{Response, header::RETRY_AFTER};

        let verdict = |status: u16, retry_after: Option<&str>| {
            let mut response = Response::builder().status(status);
            if let Some(value) = retry_after {
                response = response.header(RETRY_AFTER, value);
            }
            HttpClassifier.classify(&Ok::<_, ()>(response.body(()).unwrap()))
        };
        let retry = |secs: Option<u64>| Verdict::Retryable {
            retry_after: secs.map(Duration::from_secs),
        };
        let table = [
            (200, None, Verdict::Success),
            (204, Some("5"), Verdict::Success),
            (301, Some("5"), Verdict::Success),
            (400, None, Verdict::Fatal),
            (404, Some("5"), Verdict::Fatal),
            (408, None, retry(None)),
            (429, Some("1"), retry(Some(1))),
            (429, Some("soon"), retry(None)),
            (500, None, retry(None)),
            (501, Some("5"), Verdict::Fatal),
            (503, Some("7"), retry(Some(7))),
            (505, None, Verdict::Fatal),
            (511, None, Verdict::Fatal),
            (529, None, retry(None)),
        ];
        for (status, header, expected) in table {
            assert_eq!(verdict(status, header), expected, "{status} {header:?}");
        }
        assert_eq!(
            HttpClassifier.classify(&Err::<Response<()>, _>("reset")),
            retry(None)
        );
    }

    #[test]
    fn only_a_408_a_429_a_503_with_retry_after_and_a_refused_connection_say_it_was_not_processed() {
        use ::http::{Response, header::RETRY_AFTER};
        use std::io::{Error, ErrorKind};

        let unprocessed = |status: u16, retry_after: Option<&str>| {
            let mut response = Response::builder().status(status);
            if let Some(value) = retry_after {
                response = response.header(RETRY_AFTER, value);
            }
            HttpClassifier.unprocessed(&Ok::<_, Error>(response.body(()).unwrap()))
        };
        for (status, header, expected) in [
            (429, None, true),
            (429, Some("1"), true),
            (503, Some("7"), true),
            (503, None, false),
            (500, Some("7"), false),
            (502, None, false),
            (408, None, true),
            (504, None, false),
        ] {
            assert_eq!(unprocessed(status, header), expected, "{status} {header:?}");
        }

        let error = |error: Error| HttpClassifier.unprocessed(&Err::<Response<()>, _>(error));
        assert!(error(Error::from(ErrorKind::ConnectionRefused)));
        assert!(!error(Error::from(ErrorKind::ConnectionReset)));
        assert!(!error(Error::from(ErrorKind::TimedOut)));

        // Boxed, with the refusal among the causes; another type says nothing.
        #[derive(Debug, thiserror::Error)]
        #[error("connect failed")]
        struct Connect(#[source] Error);
        let boxed: ::tower::BoxError = Box::new(Connect(ErrorKind::ConnectionRefused.into()));
        assert!(HttpClassifier.unprocessed(&Err::<Response<()>, _>(boxed)));
        assert!(!HttpClassifier.unprocessed(&Err::<Response<()>, _>(Connect(
            ErrorKind::ConnectionRefused.into()
        ))));
    }

    #[test]
    fn http_failures_are_described_by_their_status() {
        let response = ::http::Response::builder().status(503).body(()).unwrap();
        assert_eq!(
            Classifier::<_, ()>::describe(&HttpClassifier, &response),
            "HTTP 503 Service Unavailable"
        );
    }
}
