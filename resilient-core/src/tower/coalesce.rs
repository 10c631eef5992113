//! [`CoalesceLayer`]: concurrent requests with the same key share one
//! call of the service beneath, a [`Coalesce`] per layer.
//!
//! A layer of its own rather than a setting of [`ResilientLayer`]: sharing
//! a response needs it to be `Clone`, which no other part of a resilient
//! service asks. Put it outside the `ResilientLayer`, so that the whole
//! call (its retries, its hedges) is what requests share.
//!
//! [`ResilientLayer`]: super::ResilientLayer

use std::any::{Any, TypeId};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use ::tower::{BoxError, Layer, Service, ServiceExt};

use crate::coalesce::Coalesce;
use crate::report::{ExecutionReport, Outcome};

/// A layer whose service runs the requests its key function names with
/// the same key once at a time: a request that comes while another of
/// its key is in flight gets a clone of that one's response, or its error
/// (as [`Coalesced`]). The function answers `None` for a request that must
/// run on its own: for HTTP, anything but a safe request, which
/// [`by_url`](CoalesceLayer::by_url) keys by method and URL.
///
/// A caller that gives up doesn't cancel the call while others wait on
/// it; the last one out does. The service and its future must be `Send`
/// and `'static`, and the response `Clone`.
///
/// ```
/// use resilient::tower::{CoalesceLayer, ResilientLayer};
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use tower::{Service, ServiceBuilder, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let calls = Arc::new(AtomicU32::new(0));
/// let counted = Arc::clone(&calls);
/// let backend = service_fn(move |id: u32| {
///     counted.fetch_add(1, Ordering::Relaxed);
///     async move {
///         tokio::task::yield_now().await;
///         Ok::<_, std::io::Error>(format!("profile {id}"))
///     }
/// });
/// let service = ServiceBuilder::new()
///     .layer(CoalesceLayer::new(|id: &u32| Some(id.to_string())))
///     .layer(ResilientLayer::new().retries(2))
///     .service(backend);
/// let (a, b) = tokio::join!(service.clone().oneshot(7), service.clone().oneshot(7));
/// assert_eq!((a.unwrap(), b.unwrap()), ("profile 7".to_owned(), "profile 7".to_owned()));
/// assert_eq!(calls.load(Ordering::Relaxed), 1, "one call for both");
/// # }
/// ```
pub struct CoalesceLayer<K> {
    key: Arc<K>,
    name: &'static str,
}

impl<K> Clone for CoalesceLayer<K> {
    fn clone(&self) -> Self {
        CoalesceLayer {
            key: Arc::clone(&self.key),
            name: self.name,
        }
    }
}

impl<K> fmt::Debug for CoalesceLayer<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CoalesceLayer")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<K> CoalesceLayer<K> {
    /// Requests share a call while `key` gives them the same `Some`;
    /// `None` runs a request on its own.
    pub fn new<Req>(key: K) -> Self
    where
        K: Fn(&Req) -> Option<String>,
    {
        CoalesceLayer {
            key: Arc::new(key),
            name: "coalesce",
        }
    }

    /// The same layer under a name: the `group` label of
    /// `resilient_coalesced_calls_total` (feature `metrics`).
    ///
    /// ```
    /// use resilient::tower::CoalesceLayer;
    ///
    /// let layer = CoalesceLayer::new(|id: &u32| Some(id.to_string())).named("profiles");
    /// # let _ = layer;
    /// ```
    #[must_use]
    pub fn named(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }
}

#[cfg(feature = "http")]
impl CoalesceLayer<SafeRequests> {
    /// Keys each safe request (GET, HEAD, OPTIONS: RFC 9110 §9.2.1) by its
    /// method and URL; every other request runs on its own, as two `PUT`s
    /// to one URL may carry different bodies. For any `http::Request<B>`.
    ///
    /// ```
    /// use resilient::tower::{CoalesceKey, SafeRequests};
    ///
    /// let get = http::Request::get("http://api/users/7").body(()).unwrap();
    /// let post = http::Request::post("http://api/users").body(()).unwrap();
    /// assert_eq!(SafeRequests.key(&get).as_deref(), Some("GET http://api/users/7"));
    /// assert_eq!(SafeRequests.key(&post), None);
    /// ```
    pub fn by_url() -> Self {
        CoalesceLayer {
            key: Arc::new(SafeRequests),
            name: "coalesce",
        }
    }
}

/// The key of [`CoalesceLayer::by_url`]: a safe HTTP request's method
/// and URL.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, Default)]
pub struct SafeRequests;

#[cfg(feature = "http")]
impl<B> CoalesceKey<http::Request<B>> for SafeRequests {
    fn key(&self, request: &http::Request<B>) -> Option<String> {
        let method = request.method();
        let safe = [http::Method::GET, http::Method::HEAD, http::Method::OPTIONS];
        safe.contains(method)
            .then(|| format!("{method} {}", request.uri()))
    }
}

/// How a layer's key function reads a request of type `Req`.
pub trait CoalesceKey<Req>: Send + Sync + 'static {
    /// The key of `request`, or `None` to run it on its own.
    fn key(&self, request: &Req) -> Option<String>;
}

impl<Req, F> CoalesceKey<Req> for F
where
    F: Fn(&Req) -> Option<String> + Send + Sync + 'static,
{
    fn key(&self, request: &Req) -> Option<String> {
        self(request)
    }
}

impl<S, K> Layer<S> for CoalesceLayer<K> {
    type Service = CoalesceService<S, K>;

    fn layer(&self, inner: S) -> Self::Service {
        CoalesceService {
            inner,
            key: Arc::clone(&self.key),
            groups: Arc::new(Groups {
                name: self.name,
                by_response: Mutex::new(Vec::new()),
            }),
        }
    }
}

/// A service's groups of calls in flight: one [`Coalesce`] per type of
/// response, as a service may answer several types of request.
struct Groups {
    name: &'static str,
    by_response: Mutex<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
}

impl Groups {
    /// The group of calls that answer `Res`, made the first time.
    fn of<Res: Send + 'static>(&self) -> Arc<Coalesce<Res, Coalesced>> {
        let mut groups = self
            .by_response
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let found = groups
            .iter()
            .find(|(id, _)| *id == TypeId::of::<Res>())
            .and_then(|(_, group)| Arc::clone(group).downcast().ok());
        found.unwrap_or_else(|| {
            let group = Arc::new(Coalesce::<Res, Coalesced>::new().named(self.name));
            groups.push((TypeId::of::<Res>(), group.clone()));
            group
        })
    }
}

/// The service a [`CoalesceLayer`] makes; its clones share their calls in
/// flight.
pub struct CoalesceService<S, K> {
    inner: S,
    key: Arc<K>,
    groups: Arc<Groups>,
}

impl<S: Clone, K> Clone for CoalesceService<S, K> {
    fn clone(&self) -> Self {
        CoalesceService {
            inner: self.inner.clone(),
            key: Arc::clone(&self.key),
            groups: Arc::clone(&self.groups),
        }
    }
}

impl<S: fmt::Debug, K> fmt::Debug for CoalesceService<S, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CoalesceService")
            .field("inner", &self.inner)
            .field("name", &self.groups.name)
            .finish_non_exhaustive()
    }
}

impl<S, K, Req> Service<Req> for CoalesceService<S, K>
where
    S: Service<Req> + Clone + Send + 'static,
    S::Response: Clone + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send,
    K: CoalesceKey<Req>,
    Req: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Req) -> Self::Future {
        let clone = self.inner.clone();
        let ready = std::mem::replace(&mut self.inner, clone);
        let Some(key) = self.key.key(&request) else {
            return Box::pin(async move { ready.oneshot(request).await.map_err(Into::into) });
        };
        let group = self.groups.of::<S::Response>();
        let name = group.name();
        let joined = group.run(key, move || async move {
            let result = ready
                .oneshot(request)
                .await
                .map_err(|error| Coalesced(Arc::from(error.into())));
            Outcome::new(result, ExecutionReport::new(name.into()))
        });
        Box::pin(async move { joined.await.into_result().map_err(BoxError::from) })
    }
}

/// The error of a call that requests shared: each of them gets one, whose
/// text and source are the call's own error.
#[derive(Clone)]
pub struct Coalesced(Arc<dyn std::error::Error + Send + Sync>);

impl Coalesced {
    /// The call's error.
    pub fn error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl fmt::Debug for Coalesced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Coalesced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Coalesced {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}
