//! Which requests may be hedged: [`Hedgeable`], with [`EveryRequest`]
//! (the layer's default) and, with `http`, [`IdempotentRequests`] (the
//! reqwest middleware's), and any `Fn(&Req) -> bool`.
//!
//! A hedge sends the same request a second time while the first is still
//! running, so both may take effect: only a request whose repetition does
//! no harm may be hedged. A request that can't be copied is never hedged,
//! whatever the rule says.

/// Says whether a request may be hedged: sent again beside an attempt
/// still running after the [`hedge`](super::ResilientLayer::hedge) delay.
///
/// Set with [`ResilientLayer::hedge_if`](super::ResilientLayer::hedge_if)
/// (default [`EveryRequest`]) or
/// `ResilientMiddleware::hedge_if` (default `IdempotentRequests`). Any
/// `Fn(&Req) -> bool` is one:
///
/// ```
/// use resilient::tower::Hedgeable;
///
/// /// Lookups may run twice; writes may not.
/// enum Command {
///     Get(String),
///     Set(String, String),
/// }
///
/// let reads = |command: &Command| matches!(command, Command::Get(_));
/// assert!(reads.hedgeable(&Command::Get("user:7".into())));
/// assert!(!reads.hedgeable(&Command::Set("user:7".into(), "Ada".into())));
/// ```
pub trait Hedgeable<Req> {
    /// Whether `request` may be sent again beside a running attempt.
    fn hedgeable(&self, request: &Req) -> bool;
}

impl<Req, F> Hedgeable<Req> for F
where
    F: Fn(&Req) -> bool,
{
    #[inline]
    fn hedgeable(&self, request: &Req) -> bool {
        self(request)
    }
}

/// Hedges every request that can be copied: the layer's default, since it
/// can't know what a request of any type means (the attribute's `hedge`
/// likewise hedges every call of its function). HTTP requests need
/// [`IdempotentRequests`] (feature `http`).
///
/// As a [`Resendable`](super::Resendable) rule, `resend_if(EveryRequest)`,
/// it sends every request again after a failure that may have reached the
/// server, a POST that timed out or got a `500` included: the opt-in of a
/// client whose server runs each request once however often it arrives.
///
/// ```
/// use resilient::tower::{EveryRequest, Hedgeable};
///
/// assert!(EveryRequest.hedgeable(&"any request"));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EveryRequest;

impl<Req> Hedgeable<Req> for EveryRequest {
    #[inline]
    fn hedgeable(&self, _: &Req) -> bool {
        true
    }
}

/// Hedges the HTTP requests that may be sent twice (feature `http`): those
/// [`http::is_idempotent`](crate::http::is_idempotent) accepts, whose
/// method is idempotent by RFC 9110 (GET, HEAD, OPTIONS, TRACE, PUT,
/// DELETE) or that carry an `Idempotency-Key` header. A POST without the
/// header is sent once per attempt, never hedged.
///
/// The same rule decides, as a [`Resendable`](super::Resendable), which
/// requests are sent again after a failure that may have reached the
/// server (a timeout, a `500`): it is the reqwest middleware's default
/// `resend_if`, and the layer's with `HttpClassifier`
/// ([`ByClassifier`](super::ByClassifier)).
///
/// The reqwest middleware's rule, for `reqwest::Request` (feature
/// `reqwest`); give it to a layer of `http::Request`s with
/// [`hedge_if`](super::ResilientLayer::hedge_if):
///
/// ```
/// use http::{Method, Request};
/// use resilient::tower::{Hedgeable, IdempotentRequests, ResilientLayer};
/// use std::time::Duration;
///
/// let get = Request::get("http://127.0.0.1/users/7").body(()).unwrap();
/// let post = Request::post("http://127.0.0.1/orders").body(()).unwrap();
/// let keyed = Request::post("http://127.0.0.1/orders").header("idempotency-key", "order-8e2f").body(()).unwrap();
/// assert!(IdempotentRequests.hedgeable(&get));
/// assert!(!IdempotentRequests.hedgeable(&post));
/// assert!(IdempotentRequests.hedgeable(&keyed));
///
/// let layer = ResilientLayer::new().hedge(Duration::from_millis(200)).hedge_if(IdempotentRequests);
/// # let _ = layer;
/// ```
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdempotentRequests;

#[cfg(feature = "http")]
impl<B> Hedgeable<::http::Request<B>> for IdempotentRequests {
    #[inline]
    fn hedgeable(&self, request: &::http::Request<B>) -> bool {
        crate::http::is_idempotent(request.method(), request.headers())
    }
}

#[cfg(feature = "reqwest")]
impl Hedgeable<::reqwest::Request> for IdempotentRequests {
    #[inline]
    fn hedgeable(&self, request: &::reqwest::Request) -> bool {
        crate::http::is_idempotent(request.method(), request.headers())
    }
}
