//! Deadlines across services, for `http::Request`s (feature `http`):
//!
//! * client side, [`SendDeadlineLayer`] puts what the current attempt has
//!   left ([`remaining`](crate::deadline::remaining)) in a header of each
//!   request it sends; [`ResilientLayer::send_deadline`] stacks it under a
//!   [`ResilientLayer`], where each attempt is sent;
//! * server side, [`ServerDeadlineLayer`] reads that header and runs the
//!   handler within the budget it says, never more than the server's cap
//!   ([`deadline::with_budget`](crate::deadline::with_budget)): every
//!   resilient call the handler makes inherits it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use ::tower::layer::util::Stack;
use ::tower::{Layer, Service};

use super::layer::ResilientLayer;
use super::stamp::stamping_service;
use crate::clock::{Clock, TokioClock};
use crate::deadline::header::DeadlineHeader;
use crate::deadline::{Scope, budget_scope, polled_within, within};

impl<Cl, C, A, R, H, P> ResilientLayer<Cl, C, A, R, H, P> {
    /// Sends each attempt's deadline downstream in `header`: what the
    /// attempt has left as it is sent, `min(timeout, budget left, deadline
    /// inherited from the call around it)` less the time spent in it. An
    /// attempt without a deadline sends no header. The layer returned is
    /// this one with a [`SendDeadlineLayer`] under it, for a service of
    /// `http::Request`s; call it last, after the other setters.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    /// use resilient::tower::ResilientLayer;
    /// use std::time::Duration;
    /// use tower::{Layer, ServiceExt, service_fn};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), tower::BoxError> {
    /// let layer = ResilientLayer::new()
    ///     .timeout(Duration::from_millis(250))
    ///     .send_deadline(DeadlineHeader::grpc_timeout());
    /// let service = layer.layer(service_fn(|request: http::Request<()>| async move {
    ///     Ok::<_, std::io::Error>(request.headers()["grpc-timeout"].clone())
    /// }));
    /// assert_eq!(service.oneshot(http::Request::new(())).await?, "250m");
    /// # Ok(())
    /// # }
    /// ```
    pub fn send_deadline(self, header: DeadlineHeader) -> Stack<SendDeadlineLayer, Self> {
        Stack::new(SendDeadlineLayer::new(header), self)
    }
}

/// A layer that puts the current attempt's deadline in a header of every
/// `http::Request` it sends ([`DeadlineHeader::stamp`]), as the request is
/// sent; a request sent outside an attempt with a deadline goes as it is.
/// Under a [`ResilientLayer`] (see [`ResilientLayer::send_deadline`]),
/// each attempt sends its own; under a handler run by a
/// [`ServerDeadlineLayer`], the request's budget goes on to the next
/// service.
///
/// ```
/// use resilient::deadline::header::DeadlineHeader;
/// use resilient::tower::{ResilientLayer, SendDeadlineLayer};
/// use std::time::Duration;
/// use tower::{ServiceBuilder, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), tower::BoxError> {
/// let name = http::HeaderName::from_static("x-request-timeout-ms");
/// let service = ServiceBuilder::new()
///     .layer(ResilientLayer::new().timeout(Duration::from_secs(2)))
///     // Under the resilient layer: each attempt sends what it has left.
///     .layer(SendDeadlineLayer::new(DeadlineHeader::millis(name.clone())))
///     .service(service_fn(move |request: http::Request<()>| {
///         let sent = request.headers().get(&name).cloned();
///         async move { Ok::<_, std::io::Error>(sent) }
///     }));
/// assert_eq!(service.oneshot(http::Request::new(())).await?.unwrap(), "2000");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SendDeadlineLayer {
    header: DeadlineHeader,
}

impl SendDeadlineLayer {
    /// A layer that sends deadlines in `header`.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    /// use resilient::tower::SendDeadlineLayer;
    ///
    /// let layer = SendDeadlineLayer::new(DeadlineHeader::grpc_timeout());
    /// # let _ = layer;
    /// ```
    pub fn new(header: DeadlineHeader) -> Self {
        SendDeadlineLayer { header }
    }
}

stamping_service! {
    /// The service a [`SendDeadlineLayer`] makes.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    /// use resilient::tower::SendDeadlineLayer;
    /// use tower::{Layer, service_fn};
    ///
    /// let service = SendDeadlineLayer::new(DeadlineHeader::grpc_timeout())
    ///     .layer(service_fn(|_: http::Request<()>| async { Ok::<_, std::io::Error>(()) }));
    /// # let _ = service;
    /// ```
    pub struct SendDeadline<S>(Stamp<S, DeadlineHeader>);
    made by SendDeadlineLayer;
}

/// A server's layer that makes the deadline a request carries the budget
/// of its handler: the header's value read by
/// [`budget_from`](crate::deadline::header::budget_from), never more
/// than `cap`; every resilient call the handler makes, and every request
/// it sends through a [`SendDeadlineLayer`], inherits it. A value that is
/// not a deadline (negative, not a number, an unknown unit, too many
/// digits) is ignored with a `tracing` warning (feature `tracing`), and
/// the cap applies, as it does to a request without the header; with
/// [`uncapped_without_header`](Self::uncapped_without_header), a request
/// without it runs with no deadline instead.
///
/// The handler itself is not cut at the deadline: what it calls ends by
/// it, and it answers as it sees fit.
///
/// ```
/// use resilient::deadline::{self, header::DeadlineHeader};
/// use resilient::tower::ServerDeadlineLayer;
/// use std::time::Duration;
/// use tower::{Layer, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), std::io::Error> {
/// let layer = ServerDeadlineLayer::new(DeadlineHeader::grpc_timeout(), Duration::from_secs(5));
/// let handler = layer.layer(service_fn(|_: http::Request<()>| async { Ok::<_, std::io::Error>(deadline::remaining()) }));
///
/// let asked = http::Request::builder().header("grpc-timeout", "300m").body(()).unwrap();
/// assert_eq!(handler.clone().oneshot(asked).await?, Some(Duration::from_millis(300)));
/// // More than the cap, garbage, or nothing: the cap.
/// let greedy = http::Request::builder().header("grpc-timeout", "1H").body(()).unwrap();
/// assert_eq!(handler.clone().oneshot(greedy).await?, Some(Duration::from_secs(5)));
/// let garbage = http::Request::builder().header("grpc-timeout", "-1S").body(()).unwrap();
/// assert_eq!(handler.clone().oneshot(garbage).await?, Some(Duration::from_secs(5)));
/// assert_eq!(handler.oneshot(http::Request::new(())).await?, Some(Duration::from_secs(5)));
/// # Ok(())
/// # }
/// ```
///
/// With axum, it is a layer of the router: see the guide's chapter
/// "Calls inside calls" (`resilient::guide::across_services`).
#[derive(Debug, Clone)]
pub struct ServerDeadlineLayer<C = TokioClock> {
    header: DeadlineHeader,
    cap: Duration,
    uncapped_without_header: bool,
    clock: C,
}

impl ServerDeadlineLayer {
    /// A layer that reads `header` and grants each request at most `cap`.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    /// use resilient::tower::ServerDeadlineLayer;
    /// use std::time::Duration;
    ///
    /// let layer = ServerDeadlineLayer::new(DeadlineHeader::grpc_timeout(), Duration::from_secs(10));
    /// # let _ = layer;
    /// ```
    pub fn new(header: DeadlineHeader, cap: Duration) -> Self {
        ServerDeadlineLayer {
            header,
            cap,
            uncapped_without_header: false,
            clock: TokioClock,
        }
    }
}

impl<C> ServerDeadlineLayer<C> {
    /// A request without the header runs with no deadline of the server's
    /// (a value it does carry is still capped, and a refused one still
    /// gets the cap).
    ///
    /// ```
    /// use resilient::deadline::{self, header::DeadlineHeader};
    /// use resilient::tower::ServerDeadlineLayer;
    /// use std::time::Duration;
    /// use tower::{Layer, ServiceExt, service_fn};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), std::io::Error> {
    /// let layer = ServerDeadlineLayer::new(DeadlineHeader::grpc_timeout(), Duration::from_secs(5)).uncapped_without_header();
    /// let handler = layer.layer(service_fn(|_: http::Request<()>| async { Ok::<_, std::io::Error>(deadline::remaining()) }));
    /// assert_eq!(handler.oneshot(http::Request::new(())).await?, None);
    /// # Ok(())
    /// # }
    /// ```
    pub fn uncapped_without_header(mut self) -> Self {
        self.uncapped_without_header = true;
        self
    }

    /// The time source of the budgets; default [`TokioClock`].
    ///
    /// ```
    /// use resilient::SystemClock;
    /// use resilient::deadline::header::DeadlineHeader;
    /// use resilient::tower::ServerDeadlineLayer;
    /// use std::time::Duration;
    ///
    /// let layer = ServerDeadlineLayer::new(DeadlineHeader::grpc_timeout(), Duration::from_secs(5)).clock(SystemClock);
    /// # let _ = layer;
    /// ```
    pub fn clock<C2: Clock>(self, clock: C2) -> ServerDeadlineLayer<C2> {
        ServerDeadlineLayer {
            header: self.header,
            cap: self.cap,
            uncapped_without_header: self.uncapped_without_header,
            clock,
        }
    }
}

impl<S, C: Clone> Layer<S> for ServerDeadlineLayer<C> {
    type Service = ServerDeadline<S, C>;

    fn layer(&self, inner: S) -> Self::Service {
        ServerDeadline {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service a [`ServerDeadlineLayer`] makes.
///
/// ```
/// use resilient::deadline::header::DeadlineHeader;
/// use resilient::tower::ServerDeadlineLayer;
/// use std::time::Duration;
/// use tower::{Layer, service_fn};
///
/// let service = ServerDeadlineLayer::new(DeadlineHeader::grpc_timeout(), Duration::from_secs(5))
///     .layer(service_fn(|_: http::Request<()>| async { Ok::<_, std::io::Error>(()) }));
/// # let _ = service;
/// ```
#[derive(Clone)]
pub struct ServerDeadline<S, C = TokioClock> {
    inner: S,
    layer: ServerDeadlineLayer<C>,
}

impl<S: fmt::Debug, C> fmt::Debug for ServerDeadline<S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerDeadline")
            .field("inner", &self.inner)
            .field("header", &self.layer.header)
            .field("cap", &self.layer.cap)
            .field(
                "uncapped_without_header",
                &self.layer.uncapped_without_header,
            )
            .finish()
    }
}

/// The future of a [`ServerDeadline`] service: the handler's, run within
/// the request's budget.
pub type ServerDeadlineFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, C, B> Service<http::Request<B>> for ServerDeadline<S, C>
where
    S: Service<http::Request<B>>,
    S::Future: Send + 'static,
    C: Clock,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = ServerDeadlineFuture<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let layer = &self.layer;
        let scope = if layer.uncapped_without_header
            && !request.headers().contains_key(layer.header.name())
        {
            None
        } else {
            let budget = layer.header.budget(request.headers(), layer.cap);
            budget_scope(&layer.clock, budget)
        };
        serve_within(scope, false, &mut self.inner, request)
    }
}

/// `inner`'s handling of `request`, its call and every poll of its future,
/// within `scope` and with the hold `held` (see `deadline::within`): how
/// a server's layer runs the handler with what the request carries.
pub(super) fn serve_within<S, B>(
    scope: Option<Scope>,
    held: bool,
    inner: &mut S,
    request: http::Request<B>,
) -> ServerDeadlineFuture<S::Response, S::Error>
where
    S: Service<http::Request<B>>,
    S::Future: Send + 'static,
{
    // A service may start its work in `call`: that, too, within.
    let handled = within(scope.clone(), held, || inner.call(request));
    Box::pin(polled_within(scope, held, handled))
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::sync::{Arc, Mutex};

    use ::tower::{BoxError, ServiceBuilder, ServiceExt, service_fn};

    use super::*;
    use crate::backoff::{Backoff, Jitter};
    use crate::deadline::remaining;
    use crate::error::TimedOut;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    type Seen = Arc<Mutex<Vec<(Duration, Option<String>)>>>;

    /// A service that records, for each request, the paused clock's time
    /// since `start` and the value of its `name` header; it never answers.
    fn hanging(
        name: &'static str,
        start: tokio::time::Instant,
    ) -> (
        impl Service<http::Request<()>, Response = (), Error = Infallible, Future: Send> + Clone,
        Seen,
    ) {
        let seen = Seen::default();
        let log = Arc::clone(&seen);
        let service = service_fn(move |request: http::Request<()>| {
            let value = request
                .headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_owned());
            log.lock().unwrap().push((start.elapsed(), value));
            std::future::pending::<Result<(), Infallible>>()
        });
        (service, seen)
    }

    fn values(seen: &Seen) -> Vec<(Duration, Option<String>)> {
        seen.lock().unwrap().clone()
    }

    #[tokio::test(start_paused = true)]
    async fn each_attempt_sends_the_deadline_it_has_left() {
        let start = tokio::time::Instant::now();
        let (inner, seen) = hanging("grpc-timeout", start);
        // Attempt 1 at 0 ms: min(300, 500) = 300. Cut at 300, 50 ms of
        // backoff, attempt 2 at 350: min(300, 150) = 150. Cut at 500: the
        // budget is spent, no attempt 3.
        let client = ResilientLayer::new()
            .retries(5)
            .timeout(ms(300))
            .budget(ms(500))
            .backoff(Backoff::constant(ms(50)).jitter(Jitter::None))
            .send_deadline(DeadlineHeader::grpc_timeout())
            .layer(inner);
        let error = client.oneshot(http::Request::new(())).await.unwrap_err();
        assert!(error.is::<TimedOut>(), "{error}");
        assert_eq!(
            values(&seen),
            [
                (ms(0), Some("300m".to_owned())),
                (ms(350), Some("150m".to_owned()))
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_is_read_as_the_request_is_sent() {
        let start = tokio::time::Instant::now();
        let (inner, seen) = hanging("x-request-timeout-ms", start);
        let inner = SendDeadlineLayer::new(DeadlineHeader::millis(http::HeaderName::from_static(
            "x-request-timeout-ms",
        )))
        .layer(inner);
        // 120 ms go by in the attempt before the request is sent.
        let late = service_fn(move |request: http::Request<()>| {
            let inner = inner.clone();
            async move {
                tokio::time::sleep(ms(120)).await;
                inner.oneshot(request).await
            }
        });
        let client = ServiceBuilder::new()
            .layer(ResilientLayer::new().timeout(ms(300)))
            .service(late);
        let error = client.oneshot(http::Request::new(())).await.unwrap_err();
        assert!(error.is::<TimedOut>(), "{error}");
        assert_eq!(values(&seen), [(ms(120), Some("180".to_owned()))]);
    }

    #[tokio::test(start_paused = true)]
    async fn no_deadline_no_header() {
        let seen = Seen::default();
        let log = Arc::clone(&seen);
        let inner = service_fn(move |request: http::Request<()>| {
            let value = request
                .headers()
                .get("grpc-timeout")
                .map(|v| v.to_str().unwrap().to_owned());
            log.lock().unwrap().push((Duration::ZERO, value));
            async { Ok::<_, Infallible>(()) }
        });
        let client = ResilientLayer::new()
            .retries(2)
            .send_deadline(DeadlineHeader::grpc_timeout())
            .layer(inner);
        client
            .clone()
            .oneshot(http::Request::new(()))
            .await
            .unwrap();
        // A value the caller set stays when there is no deadline to send.
        let own = http::Request::builder()
            .header("grpc-timeout", "7S")
            .body(())
            .unwrap();
        client.oneshot(own).await.unwrap();
        assert_eq!(
            values(&seen),
            [
                (Duration::ZERO, None),
                (Duration::ZERO, Some("7S".to_owned()))
            ]
        );
    }

    /// The budget a server with a cap of 2 s grants a request with these
    /// headers, as the handler's `remaining()` reads it on arrival.
    async fn granted(layer: ServerDeadlineLayer, header: Option<(&str, &str)>) -> Option<Duration> {
        let handler = layer.layer(service_fn(|_: http::Request<()>| async {
            Ok::<_, Infallible>(remaining())
        }));
        let mut request = http::Request::builder();
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        handler.oneshot(request.body(()).unwrap()).await.unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn the_server_grants_what_the_header_says_within_its_cap() {
        let cap = Duration::from_secs(2);
        let grpc = || ServerDeadlineLayer::new(DeadlineHeader::grpc_timeout(), cap);
        let name = http::HeaderName::from_static("x-deadline-ms");
        let millis = || ServerDeadlineLayer::new(DeadlineHeader::millis(name.clone()), cap);
        let cases = [
            (grpc(), Some(("grpc-timeout", "300m")), Some(ms(300))),
            (grpc(), Some(("grpc-timeout", "1500000u")), Some(ms(1500))),
            (grpc(), Some(("grpc-timeout", "3S")), Some(cap)),
            (grpc(), Some(("grpc-timeout", "99999999H")), Some(cap)),
            (grpc(), Some(("grpc-timeout", "-1S")), Some(cap)),
            (grpc(), Some(("grpc-timeout", "soon")), Some(cap)),
            (grpc(), Some(("grpc-timeout", "0m")), Some(Duration::ZERO)),
            (grpc(), None, Some(cap)),
            // Another header than the one read: as if none.
            (grpc(), Some(("x-deadline-ms", "300")), Some(cap)),
            (millis(), Some(("x-deadline-ms", "750")), Some(ms(750))),
            (millis(), Some(("x-deadline-ms", "1.5")), Some(cap)),
            (
                millis(),
                Some(("x-deadline-ms", "18446744073709551616")),
                Some(cap),
            ),
            (grpc().uncapped_without_header(), None, None),
            (
                grpc().uncapped_without_header(),
                Some(("grpc-timeout", "1H")),
                Some(cap),
            ),
            (
                grpc().uncapped_without_header(),
                Some(("grpc-timeout", "x")),
                Some(cap),
            ),
        ];
        for (layer, header, budget) in cases {
            assert_eq!(granted(layer, header).await, budget, "{header:?}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_handlers_calls_inherit_and_send_on_the_requests_budget() {
        let start = tokio::time::Instant::now();
        let (downstream, seen) = hanging("grpc-timeout", start);
        let client = ResilientLayer::new()
            .timeout(Duration::from_secs(10))
            .send_deadline(DeadlineHeader::grpc_timeout())
            .layer(downstream);
        let handler = service_fn(move |_: http::Request<()>| {
            let client = client.clone();
            async move {
                tokio::time::sleep(ms(300)).await;
                client.oneshot(http::Request::new(())).await
            }
        });
        let server =
            ServerDeadlineLayer::new(DeadlineHeader::grpc_timeout(), Duration::from_secs(5))
                .layer(handler);
        let request = http::Request::builder()
            .header("grpc-timeout", "800m")
            .body(())
            .unwrap();
        let error: BoxError = server.oneshot(request).await.unwrap_err();
        assert!(error.is::<TimedOut>(), "{error}");
        // The call's own timeout is 10 s: it was granted, and sent, what the
        // request had left, and cut when that ran out.
        assert_eq!(values(&seen), [(ms(300), Some("500m".to_owned()))]);
        assert_eq!(start.elapsed(), ms(800));
    }
}
