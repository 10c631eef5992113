//! The tower layer's setters of its replicas (see `replicas.rs`).

use std::any::{Any, TypeId};
use std::sync::Arc;

use super::ResilientLayer;
use super::replicas::{LayerReplicas, RedirectFn};
use crate::endpoint::{OutlierDetection, Replicas, Routing};

impl<Cl, C, A, R, H, P> ResilientLayer<Cl, C, A, R, H, P> {
    /// Sends each attempt to one of `replicas`, the endpoints of one
    /// logical service, as the reqwest middleware's
    /// [`replicas`](crate::reqwest::ResilientMiddleware::replicas) does:
    /// an attempt goes to a replica not ejected (see
    /// [`outlier_detection`](Self::outlier_detection)) and not yet tried
    /// by this request while one is left, so a retry or a hedge goes
    /// elsewhere than the attempt before it; among those, the next in
    /// turn. Each attempt's record names its replica
    /// ([`AttemptRecord::endpoint`](crate::AttemptRecord::endpoint)).
    ///
    /// The layer takes requests of any type, so `redirect` says how to
    /// point one at a replica, a base URL (`http://10.0.0.7:8080`):
    /// `resilient::http::to_replica` for an `http::Request` (feature
    /// `http`), which keeps the path and query, or a function of your own. A
    /// service whose requests are of another type than `redirect` takes
    /// fails each call with [`OtherRequestType`](super::OtherRequestType), sending nothing.
    ///
    /// ```
    /// use resilient::endpoint::{OutlierDetection, Replicas};
    /// use resilient::tower::ResilientLayer;
    ///
    /// /// A request of a client of its own: where it goes, and what it asks.
    /// struct Get {
    ///     base: String,
    ///     path: String,
    /// }
    ///
    /// let layer = ResilientLayer::new()
    ///     .retries(2)
    ///     .replicas(
    ///         Replicas::fixed(["http://10.0.0.1:8080", "http://10.0.0.2:8080"]),
    ///         |request: &mut Get, replica: &str| request.base = replica.to_owned(),
    ///     )
    ///     .outlier_detection(OutlierDetection::new().consecutive_5xx(3));
    /// # let _ = layer;
    /// ```
    ///
    /// For an `http::Request<B>`, give `resilient::http::to_replica::<B>`.
    pub fn replicas<Req, F>(mut self, replicas: Replicas, redirect: F) -> Self
    where
        Req: 'static,
        F: Fn(&mut Req, &str) + Send + Sync + 'static,
    {
        let detection = self
            .shared
            .replicas
            .take()
            .and_then(|r| r.routing.detection().cloned());
        let redirect: RedirectFn = Arc::new(move |request: &mut dyn Any, replica: &str| {
            if let Some(request) = request.downcast_mut::<Req>() {
                redirect(request, replica);
            }
        });
        self.shared.replicas = Some(LayerReplicas {
            routing: Routing::new(replicas, detection),
            redirect,
            takes: Some((TypeId::of::<Req>(), std::any::type_name::<Req>())),
        });
        self
    }

    /// Ejects the replicas that fail, by Envoy's rules (see
    /// [`OutlierDetection`]); with [`replicas`](Self::replicas), before
    /// or after it. Keep a clone to see and steer it: `ejected()`,
    /// `eject`, `restore`.
    pub fn outlier_detection(mut self, detection: OutlierDetection) -> Self {
        let replicas = self
            .shared
            .replicas
            .take()
            .unwrap_or_else(|| LayerReplicas {
                routing: Routing::new(Replicas::fixed(Vec::<String>::new()), None),
                redirect: Arc::new(|_: &mut dyn Any, _: &str| {}),
                takes: None,
            });
        let set = replicas.routing.replicas.clone();
        self.shared.replicas = Some(LayerReplicas {
            routing: Routing::new(set, Some(detection)),
            ..replicas
        });
        self
    }
}
