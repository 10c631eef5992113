//! Replicas in the middleware ([`ResilientMiddleware::replicas`]): each
//! attempt's request sent to the replica its attempt chose
//! ([`crate::endpoint::Replicas`]).

use reqwest::Request;

use super::ResilientMiddleware;
use crate::endpoint::{OutlierDetection, Replicas, Routing};

impl<Cl, C, H, P> ResilientMiddleware<Cl, C, H, P> {
    /// Sends each attempt to one of `replicas`, the endpoints of one
    /// logical service: the request's scheme, host and port become the
    /// replica's, its path and query stay. An attempt goes to a replica
    /// not ejected (see [`outlier_detection`](Self::outlier_detection))
    /// and not yet tried by this request while one is left, so a retry
    /// or a hedge goes elsewhere than the attempt before it; among those,
    /// the next in turn. Each attempt's record names its replica
    /// ([`AttemptRecord::endpoint`](crate::AttemptRecord::endpoint)).
    ///
    /// ```
    /// use resilient::endpoint::{OutlierDetection, Replicas};
    /// use resilient::reqwest::ResilientMiddleware;
    ///
    /// let middleware = ResilientMiddleware::new()
    ///     .retries(2)
    ///     .replicas(Replicas::fixed(["http://10.0.0.1:8080", "http://10.0.0.2:8080"]))
    ///     .outlier_detection(OutlierDetection::new().consecutive_5xx(3));
    /// # let _ = middleware;
    /// ```
    pub fn replicas(mut self, replicas: Replicas) -> Self {
        let detection = self
            .sending
            .routing
            .take()
            .and_then(|routing| routing.detection().cloned());
        self.sending.routing = Some(Routing::new(replicas, detection));
        self
    }

    /// Ejects the replicas that fail, by Envoy's rules (see
    /// [`OutlierDetection`]); with [`replicas`](Self::replicas). Keep a
    /// clone to see and steer it: `ejected()`, `eject`, `restore`.
    pub fn outlier_detection(mut self, detection: OutlierDetection) -> Self {
        let replicas = self.sending.routing.take().map_or_else(
            || Replicas::fixed(Vec::<String>::new()),
            |routing| routing.replicas,
        );
        self.sending.routing = Some(Routing::new(replicas, Some(detection)));
        self
    }
}

/// Sends `request` to `replica`, a base URL: its scheme, host and port.
/// A replica that isn't a URL leaves the request as it is.
pub(super) fn redirect(request: &mut Request, replica: &str) {
    let Ok(base) = reqwest::Url::parse(replica) else {
        return;
    };
    let url = request.url_mut();
    let _ = url.set_scheme(base.scheme());
    let _ = url.set_host(base.host_str());
    let _ = url.set_port(base.port());
}
