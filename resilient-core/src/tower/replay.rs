//! Whether a request may be sent again after an attempt failed in a way
//! that may have reached the server: [`Resendable`], the rule a layer or
//! the reqwest middleware takes with `resend_if`, with [`ByClassifier`]
//! (the layer's default), `EveryRequest` and, with `http`,
//! `IdempotentRequests` (the middleware's default); and [`Reach`], what a
//! failed attempt says of the server, which the call's retry rule
//! consults.
//!
//! A retry sends the request again. After a refused connection, a 408, a
//! 429, or
//! a 503 with `Retry-After`, the server said that it did not process the
//! request, and any request may follow. After a timeout, another 5xx, or a
//! connection cut once the request was written, the server may have run
//! it: only a request that does no harm when it runs twice is sent again
//! (a GET, a PUT, a POST with an `Idempotency-Key` header), as gRPC
//! retries nothing once a call is committed and urllib3 reads again only
//! the methods of its `allowed_methods`.

use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;

#[cfg(feature = "http")]
use super::classify::HttpClassifier;
use super::classify::{RetryErrors, Verdict};
use super::hedge::EveryRequest;
#[cfg(feature = "http")]
use super::hedge::IdempotentRequests;

/// Says whether a request may be sent again after an attempt that may have
/// reached the server failed (a timeout, a `500`, a connection reset once
/// the request was written), when a retry would run it twice.
///
/// Set with
/// [`ResilientLayer::resend_if`](super::ResilientLayer::resend_if)
/// (default [`ByClassifier`]) or `ResilientMiddleware::resend_if` (default
/// `IdempotentRequests`). A failure after which the server said it did not
/// process the request (a refused connection, a `408`, a `429`, a `503` with
/// `Retry-After`; see [`Classifier::unprocessed`](super::Classifier::unprocessed))
/// is retried whatever the rule says.
///
/// Any `Fn(&Req) -> bool` is one. The other parameters are the service's
/// response and error and the layer's classifier, which
/// [`ByClassifier`] reads; a rule of your own is usually generic over
/// them:
///
/// ```
/// use resilient::tower::Resendable;
///
/// enum Command {
///     Get(String),
///     Append(String, String),
/// }
///
/// /// Lookups may run twice; appends may not.
/// struct Lookups;
///
/// impl<Res, Err, Cl> Resendable<Command, Res, Err, Cl> for Lookups {
///     fn resendable(&self, command: &Command) -> bool {
///         matches!(command, Command::Get(_))
///     }
/// }
///
/// let rule = |command: &Command| matches!(command, Command::Get(_));
/// let append = Command::Append("log".into(), "line".into());
/// assert!(!Resendable::<_, (), (), ()>::resendable(&Lookups, &append));
/// assert!(Resendable::<_, (), (), ()>::resendable(&rule, &Command::Get("user:7".into())));
/// ```
#[diagnostic::on_unimplemented(
    message = "the layer can't tell which `{Req}` may be sent again after a failure that may have reached the server",
    label = "no rule for `{Req}` with classifier `{Cl}`",
    note = "say it with `.resend_if(…)`: `IdempotentRequests` for HTTP requests, `EveryRequest` to send every request again, or a closure `|request: &{Req}| …` returning whether it may run twice"
)]
pub trait Resendable<Req, Res, Err, Cl> {
    /// Whether `request` may be sent again once an attempt that may have
    /// reached the server failed.
    fn resendable(&self, request: &Req) -> bool;
}

impl<Req, Res, Err, Cl, F> Resendable<Req, Res, Err, Cl> for F
where
    F: Fn(&Req) -> bool,
{
    #[inline]
    fn resendable(&self, request: &Req) -> bool {
        self(request)
    }
}

/// Every request may be sent again, whatever the failure: the layer's
/// behaviour for requests it can't read, and the opt-in of a client whose
/// requests are all safe to repeat (the server dedupes them).
impl<Req, Res, Err, Cl> Resendable<Req, Res, Err, Cl> for EveryRequest {
    #[inline]
    fn resendable(&self, _: &Req) -> bool {
        true
    }
}

/// An HTTP request may be sent again when its method is idempotent or it
/// carries an `Idempotency-Key` header
/// ([`http::is_idempotent`](crate::http::is_idempotent)).
#[cfg(feature = "http")]
impl<B, Res, Err, Cl> Resendable<::http::Request<B>, Res, Err, Cl> for IdempotentRequests {
    #[inline]
    fn resendable(&self, request: &::http::Request<B>) -> bool {
        crate::http::is_idempotent(request.method(), request.headers())
    }
}

/// A reqwest request, by the same rule as an `http::Request`.
#[cfg(feature = "reqwest")]
impl<Res, Err, Cl> Resendable<::reqwest::Request, Res, Err, Cl> for IdempotentRequests {
    #[inline]
    fn resendable(&self, request: &::reqwest::Request) -> bool {
        crate::http::is_idempotent(request.method(), request.headers())
    }
}

/// The layer's default rule: its classifier's. With `HttpClassifier`
/// (feature `http`), an `http::Request` or a `reqwest::Request` is sent
/// again only when it is idempotent, as
/// [`IdempotentRequests`](super::IdempotentRequests) has it (GET, HEAD,
/// OPTIONS, TRACE, PUT and DELETE, or any method with an `Idempotency-Key`
/// header); a POST or a PATCH without the header that timed out or got a
/// `500` is not. With [`RetryErrors`] or a closure, every request is, as
/// the layer can't know what a request of any type means, and those
/// classifiers never tell a failure that reached the service from one
/// that didn't.
///
/// A classifier of your own has no default: give the layer a rule with
/// [`resend_if`](super::ResilientLayer::resend_if).
///
#[cfg_attr(feature = "http", doc = "```")]
#[cfg_attr(not(feature = "http"), doc = "```ignore")]
/// use http::{Request, Response};
/// use resilient::tower::{ByClassifier, HttpClassifier, Resendable};
///
/// /// Whether a layer with `HttpClassifier` sends `request` again after a `500`.
/// fn resent(request: &Request<()>) -> bool {
///     Resendable::<_, Response<()>, std::io::Error, HttpClassifier>::resendable(&ByClassifier, request)
/// }
///
/// assert!(resent(&Request::get("http://127.0.0.1/users/7").body(()).unwrap()));
/// assert!(!resent(&Request::post("http://127.0.0.1/orders").body(()).unwrap()));
/// assert!(resent(&Request::post("http://127.0.0.1/orders").header("idempotency-key", "order-8e2f").body(()).unwrap()));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ByClassifier;

impl<Req, Res, Err> Resendable<Req, Res, Err, RetryErrors> for ByClassifier {
    #[inline]
    fn resendable(&self, _: &Req) -> bool {
        true
    }
}

impl<Req, Res, Err, F> Resendable<Req, Res, Err, F> for ByClassifier
where
    F: Fn(&Result<Res, Err>) -> Verdict,
{
    #[inline]
    fn resendable(&self, _: &Req) -> bool {
        true
    }
}

#[cfg(feature = "http")]
impl<B, Res, Err> Resendable<::http::Request<B>, Res, Err, HttpClassifier> for ByClassifier {
    #[inline]
    fn resendable(&self, request: &::http::Request<B>) -> bool {
        Resendable::<_, Res, Err, HttpClassifier>::resendable(&IdempotentRequests, request)
    }
}

#[cfg(feature = "reqwest")]
impl<Res, Err> Resendable<::reqwest::Request, Res, Err, HttpClassifier> for ByClassifier {
    #[inline]
    fn resendable(&self, request: &::reqwest::Request) -> bool {
        Resendable::<_, Res, Err, HttpClassifier>::resendable(&IdempotentRequests, request)
    }
}

/// What a failed attempt says of the server: whether the request may have
/// reached it, and whether the retry it would have had was declined
/// because the request may not run twice, for the report's text.
#[derive(Debug, Default)]
pub(crate) struct Reach {
    /// The server may have processed the request.
    reached: bool,
    /// Set by [`allows_retry`](Self::allows_retry) when it declines: the
    /// engine asks the call's retry rule before it writes the attempt's
    /// text, which reads it (an atomic, as the rule sees the failure only
    /// by reference).
    declined: AtomicBool,
}

impl Reach {
    /// An attempt that never left the client (an injected fault, a
    /// refusal of a gate), or after which the server said it did not
    /// process the request.
    pub(crate) fn unsent() -> Self {
        Reach::default()
    }

    /// An attempt that may have reached the server: it timed out, or its
    /// result doesn't say otherwise.
    pub(crate) fn maybe() -> Self {
        Reach {
            reached: true,
            declined: AtomicBool::new(false),
        }
    }

    /// Whether the request of a failed attempt may be sent again:
    /// always when the server didn't process it, else only when the
    /// call's rule said the request may run twice (`resendable`). A
    /// refusal is remembered for [`note`](Self::note).
    pub(crate) fn allows_retry(&self, resendable: bool) -> bool {
        let allowed = resendable || !self.reached;
        if !allowed {
            self.declined.store(true, Relaxed);
        }
        allowed
    }

    /// The report's note on a retry declined by
    /// [`allows_retry`](Self::allows_retry), if one was.
    pub(crate) fn note(&self) -> Option<&'static str> {
        self.declined.load(Relaxed).then_some(
            " (not retried: the server may have processed it, and the request is not idempotent)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_request_that_may_run_twice_follows_a_failure_that_may_have_reached_the_server() {
        for (reached, resendable, allowed) in [
            (false, false, true),
            (false, true, true),
            (true, true, true),
            (true, false, false),
        ] {
            let reach = if reached {
                Reach::maybe()
            } else {
                Reach::unsent()
            };
            assert_eq!(reach.allows_retry(resendable), allowed);
            assert_eq!(reach.note().is_some(), !allowed);
        }
    }
}
