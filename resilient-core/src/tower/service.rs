//! [`Resilient`]: the service a [`ResilientLayer`] makes, as its [`Layer`],
//! and how it sends each attempt of a call (`call.rs` runs the call).

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use ::tower::util::Oneshot;
use ::tower::{BoxError, Layer, Service, ServiceExt};

use super::attach::{AttachReport, attach_to};
use super::classify::Classifier;
use super::hedge::{EveryRequest, Hedgeable};
use super::layer::ResilientLayer;
use super::replay::{ByClassifier, Resendable};
use super::request::{CloneRequest, UseClone};
use crate::clock::Clock;
use crate::limit::Priority;

/// The future of a call to a [`Resilient`] service: boxed, `Send` and
/// `'static`, so that the service fits behind `BoxService` and in spawned
/// tasks.
///
/// ```
/// use resilient::tower::{ResilientLayer, ResponseFuture};
/// use tower::{Layer, Service, service_fn};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut service = ResilientLayer::new().layer(service_fn(|n: u32| async move { Ok::<_, std::io::Error>(n * 2) }));
/// let future: ResponseFuture<u32> = service.call(21);
/// let doubled = tokio::spawn(future).await.unwrap().unwrap();
/// assert_eq!(doubled, 42);
/// # }
/// ```
pub type ResponseFuture<Res> = Pin<Box<dyn Future<Output = Result<Res, BoxError>> + Send>>;

/// A service made resilient by a [`ResilientLayer`]: each call runs through
/// the engine until an attempt succeeds or the engine stops.
///
/// # Attempts
///
/// Each attempt calls a clone of the inner service with a copy of the
/// request, so the service must be `Clone`, and the request `Clone`
/// (`http::Request<B>` is, for a `B: Clone` such as
/// `http_body_util::Full<Bytes>`) unless the layer was told how to copy it
/// with [`clone_request`](ResilientLayer::clone_request) (a
/// `reqwest::Request`, with `try_clone`). A request that can't be copied
/// is sent once. As in tower's own retry, the first
/// attempt uses the service that [`poll_ready`](Service::poll_ready) made
/// ready, and every later attempt (a retry or a
/// [hedge](ResilientLayer::hedge)) waits for its clone's `poll_ready`
/// before calling it; an error from that `poll_ready` is the attempt's
/// error.
///
/// # Results
///
/// The layer's [`Classifier`] gives each attempt's `Result` a
/// [`Verdict`](super::Verdict). The call returns:
///
/// * `Ok(response)` when an attempt succeeds, and also when the last
///   attempt is a failing response: a `503` after the retries are spent is
///   still the server's answer, and the report says it failed;
/// * `Err(error)` with the last attempt's error, boxed: the service's own
///   (downcast it to its type), or [`TimedOut`](crate::TimedOut) when the attempt outlived
///   its deadline, or [`CircuitOpen`](crate::CircuitOpen) when the breaker rejected it.
///
/// Errors are [`BoxError`]s, as those of `tower::timeout`: the layer adds
/// errors of its own, and boxing keeps every stack of tower layers
/// composable.
///
/// # The future
///
/// [`ResponseFuture`] is boxed, `Send` and `'static`: the inner service,
/// its futures, the request and the response must be `Send + 'static`.
/// Dropping it ends the call at once: no further attempt.
///
/// ```
/// use resilient::TimedOut;
/// use resilient::tower::ResilientLayer;
/// use std::time::Duration;
/// use tower::{Layer, ServiceExt, service_fn};
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// #[error("no such user: {0}")]
/// struct NoSuchUser(u32);
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let layer = ResilientLayer::new().retries(1).timeout(Duration::from_secs(1));
///
/// // The service's own error, boxed: downcast it.
/// let users = layer.layer(service_fn(|id: u32| async move { Err::<String, _>(NoSuchUser(id)) }));
/// let error = users.oneshot(7).await.unwrap_err();
/// assert_eq!(error.downcast_ref::<NoSuchUser>(), Some(&NoSuchUser(7)));
///
/// // An attempt that outlives its deadline: `TimedOut`, the engine's.
/// let stuck = layer.layer(service_fn(|_: u32| std::future::pending::<Result<String, NoSuchUser>>()));
/// let error = stuck.oneshot(7).await.unwrap_err();
/// assert!(error.is::<TimedOut>());
/// # }
/// ```
pub struct Resilient<S, Cl, C, A, R = UseClone, H = EveryRequest, P = ByClassifier> {
    inner: S,
    layer: Arc<ResilientLayer<Cl, C, A, R, H, P>>,
}

impl<S, Cl, C, A, R, H, P> Resilient<S, Cl, C, A, R, H, P> {
    pub(super) fn new(inner: S, layer: Arc<ResilientLayer<Cl, C, A, R, H, P>>) -> Self {
        Resilient { inner, layer }
    }

    /// The inner service.
    ///
    /// ```
    /// use resilient::tower::ResilientLayer;
    /// use tower::{Layer, service_fn};
    ///
    /// let service = ResilientLayer::new().layer(service_fn(|n: u32| async move { Ok::<_, std::io::Error>(n) }));
    /// let _inner = service.get_ref();
    /// ```
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The inner service, by value.
    ///
    /// ```
    /// use resilient::tower::ResilientLayer;
    /// use tower::{Layer, service_fn};
    ///
    /// let service = ResilientLayer::new().layer(service_fn(|n: u32| async move { Ok::<_, std::io::Error>(n) }));
    /// let _inner = service.into_inner();
    /// ```
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// Calls the service once it is ready, as
    /// [`ServiceExt::oneshot`](::tower::ServiceExt::oneshot), which it
    /// stands for in a method call: the same future, with a clearer error
    /// when the request can't be copied. Through `ServiceExt`, rustc
    /// rejects the method call with only "its trait bounds were not
    /// satisfied" (E0599) when the request isn't `Clone`; here the error
    /// names `Clone` and [`clone_request`](ResilientLayer::clone_request).
    ///
    /// ```
    /// use resilient::tower::ResilientLayer;
    /// use tower::{ServiceBuilder, service_fn};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let service = ServiceBuilder::new()
    ///     .layer(ResilientLayer::new().retries(2))
    ///     .service(service_fn(|n: u32| async move { Ok::<_, std::io::Error>(n * 2) }));
    /// assert_eq!(service.oneshot(21).await.unwrap(), 42);
    /// # }
    /// ```
    pub fn oneshot<Req>(self, request: Req) -> Oneshot<Self, Req>
    where
        Self: Service<Req>,
    {
        ServiceExt::oneshot(self, request)
    }
}

impl<S, Cl: Clone, C: Clone, A: Clone, R: Clone, H: Clone, P: Clone> Layer<S>
    for ResilientLayer<Cl, C, A, R, H, P>
{
    type Service = Resilient<S, Cl, C, A, R, H, P>;

    /// Wraps `inner`; the services it makes share one copy of this
    /// configuration.
    fn layer(&self, inner: S) -> Self::Service {
        Resilient::new(inner, Arc::new(self.clone()))
    }
}

impl<S: Clone, Cl, C, A, R, H, P> Clone for Resilient<S, Cl, C, A, R, H, P> {
    fn clone(&self) -> Self {
        Resilient {
            inner: self.inner.clone(),
            layer: Arc::clone(&self.layer),
        }
    }
}

impl<S: fmt::Debug, Cl, C, A, R, H, P> fmt::Debug for Resilient<S, Cl, C, A, R, H, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resilient")
            .field("inner", &self.inner)
            .field("layer", &self.layer)
            .finish()
    }
}

impl<S, Req, Cl, C, A, R, H, P> Service<Req> for Resilient<S, Cl, C, A, R, H, P>
where
    S: Service<Req> + Clone + Send + 'static,
    S::Response: Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send,
    Req: Send + 'static,
    Cl: Classifier<S::Response, S::Error> + Send + Sync + 'static,
    C: Clock + 'static,
    A: AttachReport<S::Response> + Send + Sync + 'static,
    R: CloneRequest<Req> + Send + Sync + 'static,
    H: Hedgeable<Req> + Send + Sync + 'static,
    P: Resendable<Req, S::Response, S::Error, Cl> + Send + Sync + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = ResponseFuture<S::Response>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Req) -> Self::Future {
        // The ready service goes to the first attempt; `self` keeps a clone
        // that its caller will make ready for the next call.
        let clone = self.inner.clone();
        let ready = std::mem::replace(&mut self.inner, clone);
        let layer = Arc::clone(&self.layer);
        // A future of its own for a breaker per endpoint, so that the
        // others carry none of its state.
        // The endpoint the key function names, if the layer has one.
        let endpoint = layer.shared.per_key.key_of(&request).map(Arc::from);
        let priority = layer.shared.priority_of(&request);
        if let Some(Err(other)) = layer.shared.replicas.as_ref().map(|r| r.accepts::<Req>()) {
            return Box::pin(std::future::ready(Err(other.into())));
        }
        let call = (request, endpoint, priority);
        match layer.shared.for_endpoint(&call.0, |_| None) {
            Some(shared) => Box::pin(async move { run(ready, call, &layer, &shared).await }),
            None => Box::pin(async move { run(ready, call, &layer, &layer.shared).await }),
        }
    }
}

/// One call of `request`, sent to `endpoint` if it is known, at its own
/// `priority` if it has one, with `shared` for the layer's own: the
/// attempts through the engine, then the result as the service's caller
/// expects it.
async fn run<S, Req: 'static, Cl, C, A, R, H, P>(
    ready: S,
    (request, endpoint, priority): (Req, Option<Arc<str>>, Option<Priority>),
    layer: &ResilientLayer<Cl, C, A, R, H, P>,
    shared: &super::shared::Shared,
) -> Result<S::Response, BoxError>
where
    S: Service<Req> + Clone,
    S::Error: Into<BoxError>,
    Cl: Classifier<S::Response, S::Error>,
    C: Clock,
    A: AttachReport<S::Response>,
    R: CloneRequest<Req>,
    H: Hedgeable<Req>,
    P: Resendable<Req, S::Response, S::Error, Cl>,
{
    // The ready service goes to the first attempt; each later one (a retry
    // or a hedge) calls a clone, once it is ready.
    // Behind a lock, as hedged attempts take theirs while others run (and
    // `S` need not be `Sync`).
    let template = ready.clone();
    let services = Mutex::new((Some(ready), template));
    let replicas = shared.replicas.as_ref();
    let route = replicas.map(|replicas| replicas.routing.route(shared.operation()));
    let routed = route.as_ref().zip(replicas);
    let send = move |mut request: Req| {
        // Chosen by the attempt right before it sends.
        if let Some((route, replicas)) = routed
            && let Some(replica) = route.latest()
        {
            replicas.redirect(&mut request, &replica);
        }
        let (mut service, is_ready) = {
            let mut services = services.lock().unwrap_or_else(|e| e.into_inner());
            match services.0.take() {
                Some(ready) => (ready, true),
                None => (services.1.clone(), false),
            }
        };
        async move {
            if !is_ready {
                poll_fn(|cx| service.poll_ready(cx)).await?;
            }
            service.call(request).await
        }
    };
    let (response, report) = layer
        .call_with(shared)
        .at(endpoint)
        .routed(route.as_ref())
        .of_priority(priority)
        .run(
            request,
            &layer.clone_request,
            &layer.hedge_if,
            &layer.resend_if,
            send,
        )
        .await;
    attach_to(&layer.attach, response, report)
}
