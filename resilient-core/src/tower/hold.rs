//! Retries that don't multiply across services, for `http::Request`s
//! (feature `http`):
//!
//! * client side, [`SendHoldLayer`] puts a [`HoldHeader`] (`1`) on each
//!   request sent while a caller holds the retries of the calls inside it
//!   ([`Nested::NoRetry`](crate::deadline::Nested)): the attempt sending
//!   it is one of a retrying `no_retry` layer, or the request is sent from
//!   inside one; [`ResilientLayer::send_hold`] stacks it under a
//!   [`ResilientLayer`], where each attempt is sent;
//! * server side, [`ServerHoldLayer`] reads that header and runs the
//!   handler with the hold set: every resilient call the handler makes
//!   makes one attempt and leaves the retry to the caller up the chain
//!   ([`StopReason::LeftToCaller`](crate::StopReason::LeftToCaller)).

use std::fmt;
use std::task::{Context, Poll};

use ::tower::layer::util::Stack;
use ::tower::{Layer, Service};

use super::deadline::{SendDeadlineLayer, ServerDeadlineFuture, serve_within};
use super::layer::ResilientLayer;
use super::stamp::stamping_service;
use crate::deadline::header::{DeadlineHeader, HoldHeader};

impl<Cl, C, A, R, H, P> ResilientLayer<Cl, C, A, R, H, P> {
    /// Sends `header` (`1`) on each attempt that holds the retries of the
    /// calls below: every attempt of this layer when it has
    /// `.nested(Nested::NoRetry)` and retries, and every attempt of a
    /// request sent from inside an attempt that holds them. Other
    /// attempts send no header (a value the request carries stays). The
    /// layer returned is this one with a [`SendHoldLayer`] under it, for a
    /// service of `http::Request`s; call it last, after the other setters
    /// (or [`send_deadline_and_hold`](Self::send_deadline_and_hold) for
    /// both headers). Off by default.
    ///
    /// ```
    /// use resilient::deadline::{Nested, header::HoldHeader};
    /// use resilient::tower::ResilientLayer;
    /// use resilient::Backoff;
    /// use std::sync::{Arc, Mutex};
    /// use tower::{Layer, ServiceExt, service_fn};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = Arc::clone(&seen);
    /// let layer = ResilientLayer::new()
    ///     .retries(1)
    ///     .backoff(Backoff::none())
    ///     .nested(Nested::NoRetry)
    ///     .send_hold(HoldHeader::default());
    /// let service = layer.layer(service_fn(move |request: http::Request<()>| {
    ///     log.lock().unwrap().push(request.headers()["x-caller-retries"].clone());
    ///     async { Err::<(), _>(std::io::Error::other("down")) }
    /// }));
    /// assert!(service.oneshot(http::Request::new(())).await.is_err());
    /// // Both attempts, the last one too: the layer retries, nobody below.
    /// assert_eq!(*seen.lock().unwrap(), ["1", "1"]);
    /// # }
    /// ```
    pub fn send_hold(self, header: HoldHeader) -> Stack<SendHoldLayer, Self> {
        Stack::new(SendHoldLayer::new(header), self)
    }

    /// [`send_deadline`](Self::send_deadline) and
    /// [`send_hold`](Self::send_hold) in one call: each attempt sends its
    /// deadline in `deadline`, and the hold in `hold` when it holds the
    /// retries below.
    ///
    /// ```
    /// use resilient::deadline::{Nested, header::{DeadlineHeader, HoldHeader}};
    /// use resilient::tower::ResilientLayer;
    /// use std::time::Duration;
    /// use tower::{Layer, ServiceExt, service_fn};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), tower::BoxError> {
    /// let layer = ResilientLayer::new()
    ///     .retries(2)
    ///     .timeout(Duration::from_millis(250))
    ///     .nested(Nested::NoRetry)
    ///     .send_deadline_and_hold(DeadlineHeader::grpc_timeout(), HoldHeader::default());
    /// let service = layer.layer(service_fn(|request: http::Request<()>| async move {
    ///     let headers = request.headers();
    ///     Ok::<_, std::io::Error>((headers["grpc-timeout"].clone(), headers["x-caller-retries"].clone()))
    /// }));
    /// let (deadline, hold) = service.oneshot(http::Request::new(())).await?;
    /// assert_eq!((deadline.to_str()?, hold.to_str()?), ("250m", "1"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn send_deadline_and_hold(
        self,
        deadline: DeadlineHeader,
        hold: HoldHeader,
    ) -> Stack<SendHoldLayer, Stack<SendDeadlineLayer, Self>> {
        Stack::new(SendHoldLayer::new(hold), self.send_deadline(deadline))
    }
}

/// A layer that puts a [`HoldHeader`] on every `http::Request` it sends
/// while a caller around it holds the retries of the calls inside it
/// ([`HoldHeader::stamp`]); other requests go as they are. Under a
/// [`ResilientLayer`] (see [`ResilientLayer::send_hold`]), each attempt
/// decides for itself; under a handler run by a [`ServerHoldLayer`] with
/// a held request, the hold goes on to the next service.
///
/// ```
/// use resilient::deadline::header::HoldHeader;
/// use resilient::tower::SendHoldLayer;
/// use tower::{Layer, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), tower::BoxError> {
/// let service = SendHoldLayer::new(HoldHeader::default()).layer(service_fn(|request: http::Request<()>| async move {
///     Ok::<_, std::io::Error>(request.headers().get("x-caller-retries").cloned())
/// }));
/// // Nobody around holds the retries: no header.
/// assert_eq!(service.oneshot(http::Request::new(())).await?, None);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SendHoldLayer {
    header: HoldHeader,
}

impl SendHoldLayer {
    /// A layer that sends the hold in `header`.
    ///
    /// ```
    /// use resilient::deadline::header::HoldHeader;
    /// use resilient::tower::SendHoldLayer;
    ///
    /// let layer = SendHoldLayer::new(HoldHeader::default());
    /// # let _ = layer;
    /// ```
    pub fn new(header: HoldHeader) -> Self {
        SendHoldLayer { header }
    }
}

stamping_service! {
    /// The service a [`SendHoldLayer`] makes.
    ///
    /// ```
    /// use resilient::deadline::header::HoldHeader;
    /// use resilient::tower::SendHoldLayer;
    /// use tower::{Layer, service_fn};
    ///
    /// let service = SendHoldLayer::new(HoldHeader::default())
    ///     .layer(service_fn(|_: http::Request<()>| async { Ok::<_, std::io::Error>(()) }));
    /// # let _ = service;
    /// ```
    pub struct SendHold<S>(Stamp<S, HoldHeader>);
    made by SendHoldLayer;
}

/// A server's layer that runs the handler of a request carrying the hold
/// header (`1`, see [`held_from`](crate::deadline::header::held_from))
/// with the hold set: every resilient call the handler makes declines its
/// retries ([`StopReason::LeftToCaller`](crate::StopReason::LeftToCaller))
/// and leaves them to the caller up the chain, and every request it sends
/// through a [`SendHoldLayer`] carries the hold on. A request without the
/// header, or with a value that is neither `1` nor `0` (ignored with a
/// `tracing` warning, feature `tracing`), runs as it came. Stacks with a
/// [`ServerDeadlineLayer`](super::ServerDeadlineLayer) in either order.
///
/// ```
/// use resilient::deadline::header::HoldHeader;
/// use resilient::tower::ServerHoldLayer;
/// use resilient::{Backoff, Operation, StopReason, TokioClock};
/// use tower::{Layer, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), std::io::Error> {
/// let handler = ServerHoldLayer::new(HoldHeader::default()).layer(service_fn(|_: http::Request<()>| async {
///     let call = Operation::new()
///         .clock(TokioClock)
///         .max_attempts(4)
///         .backoff(Backoff::none())
///         .run_async(async |_| Err::<(), _>("down"))
///         .await;
///     Ok::<_, std::io::Error>((call.report().attempt_count(), call.report().stop_reason()))
/// }));
/// let held = http::Request::builder().header("x-caller-retries", "1").body(()).unwrap();
/// assert_eq!(handler.clone().oneshot(held).await?, (1, StopReason::LeftToCaller));
/// let bare = http::Request::new(());
/// assert_eq!(handler.oneshot(bare).await?, (4, StopReason::AttemptsExhausted));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ServerHoldLayer {
    header: HoldHeader,
}

impl ServerHoldLayer {
    /// A layer that reads the hold in `header`.
    ///
    /// ```
    /// use resilient::deadline::header::HoldHeader;
    /// use resilient::tower::ServerHoldLayer;
    ///
    /// let layer = ServerHoldLayer::new(HoldHeader::default());
    /// # let _ = layer;
    /// ```
    pub fn new(header: HoldHeader) -> Self {
        ServerHoldLayer { header }
    }
}

impl<S> Layer<S> for ServerHoldLayer {
    type Service = ServerHold<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ServerHold {
            inner,
            header: self.header.clone(),
        }
    }
}

/// The service a [`ServerHoldLayer`] makes; its future is the handler's,
/// run with the hold the request carries.
///
/// ```
/// use resilient::deadline::header::HoldHeader;
/// use resilient::tower::ServerHoldLayer;
/// use tower::{Layer, service_fn};
///
/// let service = ServerHoldLayer::new(HoldHeader::default())
///     .layer(service_fn(|_: http::Request<()>| async { Ok::<_, std::io::Error>(()) }));
/// # let _ = service;
/// ```
#[derive(Clone)]
pub struct ServerHold<S> {
    inner: S,
    header: HoldHeader,
}

impl<S: fmt::Debug> fmt::Debug for ServerHold<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerHold")
            .field("inner", &self.inner)
            .field("header", &self.header)
            .finish()
    }
}

impl<S, B> Service<http::Request<B>> for ServerHold<S>
where
    S: Service<http::Request<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = ServerDeadlineFuture<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let held = self.header.held(request.headers());
        serve_within(None, held, &mut self.inner, request)
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use ::tower::{BoxError, ServiceExt, service_fn};

    use super::*;
    use crate::TokioClock;
    use crate::backoff::{Backoff, Jitter};
    use crate::deadline::Nested;
    use crate::engine::Operation;
    use crate::report::StopReason;
    use crate::tower::ServerDeadlineLayer;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// For each request: the paused clock's time since `start`, and the
    /// values of its `x-caller-retries` and `grpc-timeout` headers.
    type Seen = Arc<Mutex<Vec<(Duration, Option<String>, Option<String>)>>>;

    /// A service that records each request as [`Seen`] says and fails it.
    fn failing(
        start: tokio::time::Instant,
    ) -> (
        impl Service<http::Request<()>, Response = (), Error = BoxError, Future: Send> + Clone,
        Seen,
    ) {
        let seen = Seen::default();
        let log = Arc::clone(&seen);
        let service = service_fn(move |request: http::Request<()>| {
            let value = |name: &str| {
                request
                    .headers()
                    .get(name)
                    .map(|v| v.to_str().unwrap().to_owned())
            };
            let hit = (
                start.elapsed(),
                value("x-caller-retries"),
                value("grpc-timeout"),
            );
            log.lock().unwrap().push(hit);
            async { Err::<(), BoxError>("down".into()) }
        });
        (service, seen)
    }

    fn one() -> Option<String> {
        Some("1".to_owned())
    }

    #[tokio::test(start_paused = true)]
    async fn a_holding_layer_sends_the_hold_on_every_attempt_its_last_too() {
        let start = tokio::time::Instant::now();
        let (inner, seen) = failing(start);
        let client = ResilientLayer::new()
            .retries(2)
            .timeout(ms(300))
            .backoff(Backoff::constant(ms(100)).jitter(Jitter::None))
            .nested(Nested::NoRetry)
            .send_deadline_and_hold(DeadlineHeader::grpc_timeout(), HoldHeader::default())
            .layer(inner);
        assert!(client.oneshot(http::Request::new(())).await.is_err());
        let deadline = Some("300m".to_owned());
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (ms(0), one(), deadline.clone()),
                (ms(100), one(), deadline.clone()),
                (ms(200), one(), deadline),
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_layer_that_holds_nothing_sends_no_hold() {
        let start = tokio::time::Instant::now();
        for layer in [
            // Retries, but no hold asked for.
            ResilientLayer::new().retries(1),
            // The hold asked for, but no retries to hold.
            ResilientLayer::new().nested(Nested::NoRetry),
        ] {
            let (inner, seen) = failing(start);
            let client = layer
                .backoff(Backoff::none())
                .send_hold(HoldHeader::default())
                .layer(inner);
            assert!(client.oneshot(http::Request::new(())).await.is_err());
            assert!(
                seen.lock()
                    .unwrap()
                    .iter()
                    .all(|(_, hold, _)| hold.is_none())
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_sent_inside_a_held_attempt_carries_the_hold() {
        let start = tokio::time::Instant::now();
        let (inner, seen) = failing(start);
        // A layer that retries on its own (nested = retry), called inside
        // an attempt that holds its retries: one attempt, with the hold.
        let client = ResilientLayer::new()
            .retries(3)
            .backoff(Backoff::constant(ms(10)).jitter(Jitter::None))
            .send_hold(HoldHeader::default())
            .layer(inner);
        let outer = Operation::new()
            .clock(TokioClock)
            .max_attempts(2)
            .backoff(Backoff::constant(ms(500)).jitter(Jitter::None))
            .nested(Nested::NoRetry)
            .run_async(async |_| client.clone().oneshot(http::Request::new(())).await)
            .await;
        assert!(outer.into_result().is_err());
        assert_eq!(
            *seen.lock().unwrap(),
            [(ms(0), one(), None), (ms(500), one(), None)]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_held_request_makes_the_handlers_calls_leave_their_retries() {
        let start = tokio::time::Instant::now();
        let (downstream, seen) = failing(start);
        let stops = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&stops);
        let client = ResilientLayer::new()
            .retries(3)
            .backoff(Backoff::constant(ms(10)).jitter(Jitter::None))
            .send_hold(HoldHeader::default())
            .layer(downstream);
        let handler = service_fn(move |_: http::Request<()>| {
            let (client, log) = (client.clone(), Arc::clone(&log));
            async move {
                let call = Operation::new()
                    .clock(TokioClock)
                    .max_attempts(2)
                    .backoff(Backoff::none())
                    .run_async(async |_| client.clone().oneshot(http::Request::new(())).await)
                    .await;
                let report = call.report();
                log.lock()
                    .unwrap()
                    .push((report.stop_reason(), report.attempt_count()));
                Ok::<_, Infallible>(())
            }
        });
        let server = ServerDeadlineLayer::new(DeadlineHeader::grpc_timeout(), ms(5000))
            .layer(ServerHoldLayer::new(HoldHeader::default()).layer(handler));
        let request = |hold: Option<&str>| {
            let mut request = http::Request::builder();
            if let Some(hold) = hold {
                request = request.header("x-caller-retries", hold);
            }
            request.body(()).unwrap()
        };
        server.clone().oneshot(request(Some("1"))).await.unwrap();
        let held_until = start.elapsed();
        // Refused values and "0" are no hold: the two calls retry as they
        // would, 2 × 4 requests 10 ms apart, none carrying the hold.
        for value in [Some("0"), Some("-1"), Some("yes"), None] {
            server.clone().oneshot(request(value)).await.unwrap();
        }
        let seen = seen.lock().unwrap().clone();
        // Held: the handler's call and the layer inside it make one
        // attempt each, and the request below carries the hold on.
        assert_eq!(held_until, Duration::ZERO);
        assert_eq!(seen[0], (ms(0), one(), None));
        let stops = stops.lock().unwrap().clone();
        assert_eq!(stops[0], (StopReason::LeftToCaller, 1));
        assert_eq!(seen.len(), 1 + 4 * 8);
        let bare: Vec<Duration> = seen[1..9].iter().map(|hit| hit.0).collect();
        assert_eq!(
            bare,
            [0, 10, 20, 30, 30, 40, 50, 60].map(ms),
            "two runs of the layer's four attempts, back to back"
        );
        assert!(seen[1..].iter().all(|(_, hold, _)| hold.is_none()));
        assert_eq!(&stops[1..], [(StopReason::AttemptsExhausted, 2); 4]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_held_handler_cut_at_an_await_leaves_no_hold_behind() {
        let handler = ServerHoldLayer::new(HoldHeader::default()).layer(service_fn(
            |_: http::Request<()>| async {
                tokio::time::sleep(ms(1000)).await;
                Ok::<_, Infallible>(())
            },
        ));
        let held = http::Request::builder()
            .header("x-caller-retries", "1")
            .body(())
            .unwrap();
        // Cut at its sleep, after its first poll set the hold.
        let cut = tokio::time::timeout(ms(100), handler.oneshot(held)).await;
        assert!(cut.is_err());
        let after = Operation::new()
            .clock(TokioClock)
            .max_attempts(3)
            .backoff(Backoff::none())
            .run_async(async |_| Err::<(), _>("down"))
            .await;
        assert_eq!(after.report().attempt_count(), 3, "nothing held here");
        assert_eq!(after.report().stop_reason(), StopReason::AttemptsExhausted);
    }
}
