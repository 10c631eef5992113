//! [`Resilient`]: the service a [`ResilientLayer`] makes, and the run of
//! one call through the engine.
//!
//! The engine retries on errors, while a service's failures may be
//! responses (a `503` is an `Ok` to the service). So an attempt whose
//! verdict is not a success travels through the engine as a [`Failed`],
//! which keeps the response or the error, and is turned back at the end:
//! the caller gets the last response as `Ok`, or the last error.

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ::tower::{BoxError, Service};

use super::attach::AttachReport;
use super::classify::{Classifier, Verdict};
use super::layer::ResilientLayer;
use crate::clock::Clock;
use crate::engine::Operation;
use crate::error::{CircuitOpen, TimedOut};
use crate::policy::RetryPolicy;
use crate::report::ExecutionReport;

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
/// Each attempt calls a clone of the inner service with a clone of the
/// request, so the service must be `Clone` and the request `Clone`
/// (`http::Request<B>` is, for a `B: Clone` such as
/// `http_body_util::Full<Bytes>`). As in tower's own retry, the first
/// attempt uses the service that [`poll_ready`](Service::poll_ready) made
/// ready, and every later attempt waits for its clone's `poll_ready` before
/// calling it; an error from that `poll_ready` is the attempt's error.
///
/// # Results
///
/// The layer's [`Classifier`] gives each attempt's `Result` a
/// [`Verdict`]. The call returns:
///
/// * `Ok(response)` when an attempt succeeds, and also when the last
///   attempt is a failing response: a `503` after the retries are spent is
///   still the server's answer, and the report says it failed;
/// * `Err(error)` with the last attempt's error, boxed: the service's own
///   (downcast it to its type), or [`TimedOut`] when the attempt outlived
///   its deadline, or [`CircuitOpen`] when the breaker rejected it.
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
pub struct Resilient<S, Cl, C, A> {
    inner: S,
    layer: Arc<ResilientLayer<Cl, C, A>>,
}

impl<S, Cl, C, A> Resilient<S, Cl, C, A> {
    pub(super) fn new(inner: S, layer: Arc<ResilientLayer<Cl, C, A>>) -> Self {
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
}

impl<S: Clone, Cl, C, A> Clone for Resilient<S, Cl, C, A> {
    fn clone(&self) -> Self {
        Resilient {
            inner: self.inner.clone(),
            layer: Arc::clone(&self.layer),
        }
    }
}

impl<S: fmt::Debug, Cl, C, A> fmt::Debug for Resilient<S, Cl, C, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resilient")
            .field("inner", &self.inner)
            .field("layer", &self.layer)
            .finish()
    }
}

impl<S, Req, Cl, C, A> Service<Req> for Resilient<S, Cl, C, A>
where
    S: Service<Req> + Clone + Send + 'static,
    S::Response: Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send,
    Req: Clone + Send + 'static,
    Cl: Classifier<S::Response, S::Error> + Send + Sync + 'static,
    C: Clock + 'static,
    A: AttachReport<S::Response> + Send + Sync + 'static,
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
        Box::pin(run(ready, request, Arc::clone(&self.layer)))
    }
}

/// One call: the attempts through the engine, then the result as the
/// service's caller expects it.
async fn run<S, Req, Cl, C, A>(
    ready: S,
    request: Req,
    layer: Arc<ResilientLayer<Cl, C, A>>,
) -> Result<S::Response, BoxError>
where
    S: Service<Req> + Clone,
    S::Error: Into<BoxError>,
    Req: Clone,
    Cl: Classifier<S::Response, S::Error>,
    C: Clock,
    A: AttachReport<S::Response>,
{
    let ResilientLayer {
        settings,
        shared,
        classifier,
        clock,
        attach,
    } = &*layer;
    let on_retry = shared.on_retry.as_deref();
    let on_report = shared.on_report.as_deref();
    let op = Operation::new()
        .policy(&RetryPolicy {
            settings: *settings,
        })
        .clock(clock)
        // A future can always be dropped, so the budget holds while an
        // attempt runs, with or without a timeout.
        .interrupt_at_deadline()
        .retry_if(|failed: &Failed<S::Response>| failed.retryable)
        .rate_limit(|failed: &Failed<S::Response>| failed.retry_after)
        .on_retry(move |event| {
            if let Some(hook) = on_retry {
                hook(event);
            }
        })
        .on_report(move |report| {
            if let Some(hook) = on_report {
                hook(report);
            }
        });
    let op = match &shared.name {
        Some(name) => op.name(name.clone()),
        None => op,
    };
    let op = match settings.timeout {
        Some(timeout) => op.timeout(timeout),
        None => op,
    };
    let op = match shared.breaker.as_deref() {
        Some(breaker) => op.circuit_breaker(breaker),
        None => op,
    };
    let op = match shared.throttle.as_deref() {
        Some(throttle) => op.throttle(throttle),
        None => op,
    };

    let template = ready.clone();
    let mut first = Some(ready);
    let outcome = op
        .run_async(move |_| {
            let (mut service, is_ready) = match first.take() {
                Some(ready) => (ready, true),
                None => (template.clone(), false),
            };
            let request = request.clone();
            async move {
                if !is_ready && let Err(error) = poll_fn(|cx| service.poll_ready(cx)).await {
                    return Failed::judge(classifier, Err(error));
                }
                let result = service.call(request).await;
                Failed::judge(classifier, result)
            }
        })
        .await;
    let (result, report) = outcome.into_parts();
    let response = result.or_else(Failed::into_result);
    finish(response, report, attach)
}

/// Hands the report to the response, if the call ends with one.
fn finish<Res, A: AttachReport<Res>>(
    response: Result<Res, BoxError>,
    report: ExecutionReport,
    attach: &A,
) -> Result<Res, BoxError> {
    response.map(|mut response| {
        attach.attach(&mut response, report);
        response
    })
}

/// An attempt that failed, as the engine carries it: what the service
/// gave back, and the verdict on it.
pub(super) struct Failed<Res> {
    failure: Failure<Res>,
    retryable: bool,
    retry_after: Option<Duration>,
}

enum Failure<Res> {
    /// A response classified as a failure, and its text for the report.
    Response { response: Res, text: String },
    /// The service's error, or one the engine made (timeout, open circuit).
    Error(BoxError),
}

impl<Res> Failed<Res> {
    /// The engine's view of one attempt's result.
    fn judge<Err, Cl>(classifier: &Cl, result: Result<Res, Err>) -> Result<Res, Failed<Res>>
    where
        Err: Into<BoxError>,
        Cl: Classifier<Res, Err>,
    {
        let (retryable, retry_after) = match classifier.classify(&result) {
            Verdict::Success => match result {
                Ok(response) => return Ok(response),
                // No response to return: the error ends the call.
                Err(_) => (false, None),
            },
            Verdict::Retryable { retry_after } => (true, retry_after),
            Verdict::Fatal => (false, None),
        };
        let failure = match result {
            Ok(response) => Failure::Response {
                text: classifier.describe(&response),
                response,
            },
            Err(error) => Failure::Error(error.into()),
        };
        Err(Failed {
            failure,
            retryable,
            retry_after,
        })
    }

    /// What the caller gets when this was the last attempt.
    fn into_result(self) -> Result<Res, BoxError> {
        match self.failure {
            Failure::Response { response, .. } => Ok(response),
            Failure::Error(error) => Err(error),
        }
    }

    /// A failure the engine made rather than the service: retryable, as
    /// the default classifier has every error.
    fn engine(error: impl Into<BoxError>) -> Self {
        Failed {
            failure: Failure::Error(error.into()),
            retryable: true,
            retry_after: None,
        }
    }
}

impl<Res> From<TimedOut> for Failed<Res> {
    fn from(error: TimedOut) -> Self {
        Failed::engine(error)
    }
}

impl<Res> From<CircuitOpen> for Failed<Res> {
    fn from(error: CircuitOpen) -> Self {
        Failed::engine(error)
    }
}

/// The report's text: the response's description, or the error's own.
impl<Res> fmt::Display for Failed<Res> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            Failure::Response { text, .. } => f.write_str(text),
            Failure::Error(error) => fmt::Display::fmt(error, f),
        }
    }
}
