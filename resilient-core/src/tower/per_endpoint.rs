//! State per endpoint for a [`ResilientLayer`] (and, by the macro here,
//! the reqwest middleware): the key of each request, by a function of the
//! user's, picks its breaker from an [`EndpointBreakers`], its throttle
//! from an [`EndpointThrottles`] and its limiters from an
//! [`EndpointLimits`] (see [`crate::endpoint`]).

use std::sync::Arc;

use super::layer::ResilientLayer;
use crate::endpoint::{EndpointBreakers, key_fn};
#[cfg(doc)]
use crate::endpoint::{EndpointLimits, EndpointThrottles};

/// Declares, once, the setters of state per endpoint that
/// [`ResilientLayer`] and the reqwest middleware share, for a type with a
/// `shared: Shared` field. `$Type` and `$path` name the type in the
/// examples.
macro_rules! per_endpoint_setters {
    ($Type:ident, $path:literal) => {
        /// Gives each endpoint a [`RetryThrottle`](crate::RetryThrottle) of
        /// its own from `throttles`, in place of any set with `throttle`:
        /// the failures of one sick endpoint drain its own tokens, and the
        /// others keep their retries. The key is the request's endpoint,
        /// as for the breakers per endpoint.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::RetryThrottle;
        /// use resilient::endpoint::EndpointThrottles;
        /// use std::sync::Arc;
        ///
        /// let throttles = Arc::new(
        ///     EndpointThrottles::builder("payments").template(RetryThrottle::new(10, 0.1)).build()?,
        /// );
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).per_endpoint_throttle(throttles);")]
        /// # let _ = layer;
        /// # Ok::<(), resilient::ConfigError>(())
        /// ```
        pub fn per_endpoint_throttle(
            mut self,
            throttles: ::std::sync::Arc<$crate::endpoint::EndpointThrottles>,
        ) -> Self {
            self.shared.per_key.throttles = Some(throttles);
            self
        }

        /// Gives each endpoint limiters of its own from `limits` (a
        /// bulkhead, a rate limiter), taken after those set with `limit`:
        /// one slow endpoint fills its own bulkhead, and the requests to
        /// the others go on. A permit is given back when its attempt ends,
        /// a call dropped mid-way included.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::endpoint::EndpointLimits;
        /// use resilient::limit::Bulkhead;
        /// use std::sync::Arc;
        ///
        /// let limits = Arc::new(
        ///     EndpointLimits::builder("payments").limit(|| Bulkhead::new(8).named("payments.host")).build()?,
        /// );
        #[doc = concat!("let layer = ", stringify!($Type), "::new().per_endpoint_limits(limits);")]
        /// # let _ = layer;
        /// # Ok::<(), resilient::ConfigError>(())
        /// ```
        pub fn per_endpoint_limits(
            mut self,
            limits: ::std::sync::Arc<$crate::endpoint::EndpointLimits>,
        ) -> Self {
            self.shared.per_key.limits = Some(limits);
            self
        }
    };
}

#[cfg(feature = "reqwest")]
pub(crate) use per_endpoint_setters;

impl<Cl, C, A, R, H, P> ResilientLayer<Cl, C, A, R, H, P> {
    per_endpoint_setters!(ResilientLayer, "resilient::tower::ResilientLayer");

    /// Gives each endpoint a breaker of its own from `breakers`, in place
    /// of any set with `circuit_breaker`, keyed by `key` as
    /// [`endpoint_key`](Self::endpoint_key) is: one sick endpoint opens its
    /// own breaker and no other.
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use resilient::endpoint::{EndpointBreakers, endpoint_key};
    /// use resilient::tower::ResilientLayer;
    /// use std::sync::Arc;
    ///
    /// let breakers = Arc::new(
    ///     EndpointBreakers::builder("inventory")
    ///         .template(CircuitBreaker::builder().failure_threshold(5))
    ///         .build()?,
    /// );
    /// let layer = ResilientLayer::new().retries(2).per_endpoint_by(breakers, |request: &http::Request<String>| {
    ///     endpoint_key(request.uri()).unwrap_or_default()
    /// });
    /// # let _ = layer;
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    pub fn per_endpoint_by<Req, F>(mut self, breakers: Arc<EndpointBreakers>, key: F) -> Self
    where
        Req: 'static,
        F: Fn(&Req) -> String + Send + Sync + 'static,
    {
        self.shared.per_key.breakers = Some(breakers);
        self.endpoint_key(key)
    }

    /// Names each request's endpoint, for the state kept per endpoint
    /// ([`per_endpoint_by`](Self::per_endpoint_by)'s breakers,
    /// [`per_endpoint_throttle`](Self::per_endpoint_throttle),
    /// [`per_endpoint_limits`](Self::per_endpoint_limits)): a tenant, a
    /// shard, or for `http::Request`s
    /// [`host_port`](crate::endpoint::host_port). `key` is a function of
    /// the layer's request type, which has no key of its own: without it,
    /// or for a request of another type, the key is `""`, one for all.
    ///
    /// ```
    /// use resilient::endpoint::{EndpointLimits, host_port};
    /// use resilient::limit::Bulkhead;
    /// use resilient::tower::ResilientLayer;
    /// use std::sync::Arc;
    ///
    /// let limits = Arc::new(EndpointLimits::builder("users").limit(|| Bulkhead::new(4)).build()?);
    /// let layer = ResilientLayer::new()
    ///     .per_endpoint_limits(limits)
    ///     .endpoint_key(host_port::<String>);
    /// # let _ = layer;
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    pub fn endpoint_key<Req, F>(mut self, key: F) -> Self
    where
        Req: 'static,
        F: Fn(&Req) -> String + Send + Sync + 'static,
    {
        self.shared.per_key.key = Some(key_fn(key));
        self
    }
}

#[cfg(test)]
mod tests;
