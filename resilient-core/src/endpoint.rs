//! State per endpoint: a circuit breaker, a retry throttle and limits
//! per key (by default a request's `host:port`), each built on first use
//! from a template, so that one sick host opens its own breaker, drains
//! its own throttle and fills its own limits, and no other's.
//!
//! * [`EndpointBreakers`]: a [`CircuitBreaker`] per key, named
//!   `"{prefix}/{key}"`;
//! * [`EndpointThrottles`]: a [`RetryThrottle`](crate::RetryThrottle) per
//!   key;
//! * [`EndpointLimits`]: a set of [`Limiter`](crate::limit::Limiter)s
//!   (a bulkhead, a rate limiter, …) per key.
//!
//! The tower layer and the reqwest middleware take any of them
//! (`per_endpoint`, `per_endpoint_throttle`, `per_endpoint_limits`) and
//! find each request's key once, for all three.
//!
//! Memory is bounded, the same way for all three: a map holds at most
//! `capacity` keys (1024 by default). When a new key would go over, one key
//! is evicted, chosen by this rule:
//!
//! 1. the least recently used key *at rest*: a breaker closed, a throttle
//!    full, limiters with no attempt in flight;
//! 2. only if no key is at rest, the least recently used key not in use
//!    (a breaker open, a throttle drained);
//! 3. only if every key is in use (a breaker
//!    [isolated](CircuitBreaker::isolate) by an operator, limiters with a
//!    permit out), the least recently used key of all.
//!
//! The bound is the whole map's: no key is evicted while the map holds
//! fewer than `capacity`. So a key whose breaker is open is never evicted
//! while a closed one can go instead: evicting it would forget that its
//! host is sick. Keys not used for `idle_after` (10 minutes by default) are
//! also dropped when the map is next given a new key, unless they are in
//! use: an isolated breaker stays isolated until an operator resets it,
//! and limiters keep the permits they gave out. `evictions()` counts both, as does the
//! counter `resilient_endpoint_evictions_total` with the `metrics` feature.
//! "Used" and "idle" are read from the map's [`Clock`](crate::Clock), so
//! tests drive them with a [`FakeClock`](crate::FakeClock).
//!
//! ```
//! use resilient::CircuitBreaker;
//! use resilient::endpoint::EndpointBreakers;
//! use std::time::Instant;
//!
//! let breakers = EndpointBreakers::builder("payments")
//!     .template(CircuitBreaker::builder().failure_threshold(1))
//!     .build()
//!     .unwrap();
//! let now = Instant::now();
//! let sick = breakers.get("10.0.0.1:8080");
//! sick.try_acquire(now).unwrap().record_failure(now);
//! assert!(sick.try_acquire(now).is_err());
//! assert_eq!(sick.name(), "payments/10.0.0.1:8080");
//! // The other instance's breaker is its own, and still closed.
//! assert!(breakers.get("10.0.0.2:8080").try_acquire(now).is_ok());
//! ```

#[cfg(feature = "tower")]
use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use crate::breaker::{CircuitBreaker, CircuitBreakerBuilder, CircuitState};
use crate::error::ConfigError;

mod limits;
mod map;
mod replicas;
mod throttles;

pub use limits::{EndpointLimits, EndpointLimitsBuilder};
pub use map::{DEFAULT_CAPACITY, DEFAULT_IDLE_AFTER};
pub use replicas::{OutlierDetection, Replicas};
#[cfg(feature = "tower")]
pub(crate) use replicas::{Route, Routing};
pub use throttles::{EndpointThrottles, EndpointThrottlesBuilder};

use map::{AtRest, Bound, KeyedMap, bound_readers, bound_setters};

/// A bounded map from endpoint keys to circuit breakers; see the
/// [module documentation](self) for the eviction rule.
///
/// ```
/// use resilient::endpoint::EndpointBreakers;
///
/// let breakers = EndpointBreakers::builder("search").capacity(16).build().unwrap();
/// for i in 0..100 {
///     breakers.get(&format!("10.0.0.{i}:80"));
/// }
/// assert!(breakers.len() <= 16);
/// assert_eq!(breakers.evictions(), 100 - breakers.len() as u64);
/// ```
pub struct EndpointBreakers {
    template: CircuitBreakerBuilder,
    map: KeyedMap<Arc<CircuitBreaker>>,
    /// The operation whose dashboard tile shows the breakers.
    #[cfg(all(feature = "dashboard", feature = "tower"))]
    shown: std::sync::OnceLock<Box<str>>,
}

/// Configures an [`EndpointBreakers`]; start with [`EndpointBreakers::builder`].
///
/// ```
/// use resilient::CircuitBreaker;
/// use resilient::endpoint::EndpointBreakers;
/// use std::time::Duration;
///
/// let breakers = EndpointBreakers::builder("payments")
///     .template(CircuitBreaker::builder().failure_threshold(5))
///     .capacity(256)
///     .idle_after(Duration::from_secs(60))
///     .build()
///     .unwrap();
/// # let _ = breakers;
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct EndpointBreakersBuilder {
    prefix: String,
    template: CircuitBreakerBuilder,
    bound: Bound,
}

impl AtRest for Arc<CircuitBreaker> {
    fn at_rest(&self, now: Instant) -> bool {
        self.state(now) == CircuitState::Closed
    }

    fn in_use(&self, now: Instant) -> bool {
        self.local_state(now) == CircuitState::Isolated
    }
}

impl EndpointBreakers {
    /// Starts configuring a map whose breakers are named `"{prefix}/{key}"`.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// let breakers = EndpointBreakers::builder("payments").build().unwrap();
    /// assert_eq!(breakers.get("h:1").name(), "payments/h:1");
    /// ```
    pub fn builder(prefix: impl Into<String>) -> EndpointBreakersBuilder {
        EndpointBreakersBuilder {
            prefix: prefix.into(),
            template: CircuitBreaker::builder(),
            bound: Bound::default(),
        }
    }

    /// The breaker for `key`, built from the template on first use.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    /// use std::sync::Arc;
    ///
    /// let breakers = EndpointBreakers::builder("c").build().unwrap();
    /// assert!(Arc::ptr_eq(&breakers.get("h:1"), &breakers.get("h:1")));
    /// ```
    pub fn get(&self, key: &str) -> Arc<CircuitBreaker> {
        self.map
            .get_or_make(key, || Arc::new(self.build_breaker(key)))
    }

    fn build_breaker(&self, key: &str) -> CircuitBreaker {
        let name = format!("{}/{}", self.map.prefix(), key);
        #[cfg(feature = "metrics")]
        let template = self
            .template
            .clone()
            .label(crate::observe::cardinality::breaker_label(
                self.map.prefix(),
                &name,
            ));
        #[cfg(not(feature = "metrics"))]
        let template = self.template.clone();
        // The template's rules were checked in `build`.
        template.name(name).build().unwrap_or_default()
    }

    bound_readers!(EndpointBreakers);

    /// Each key with its breaker's state now, for display.
    ///
    /// ```
    /// use resilient::CircuitState;
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// let breakers = EndpointBreakers::builder("c").build().unwrap();
    /// breakers.get("h:1");
    /// assert_eq!(breakers.states(), vec![("h:1".to_owned(), CircuitState::Closed)]);
    /// ```
    pub fn states(&self) -> Vec<(String, CircuitState)> {
        let now = self.map.now();
        self.map
            .entries()
            .into_iter()
            .map(|(key, breaker)| (key, breaker.state(now)))
            .collect()
    }

    /// Shows the breakers on the dashboard tile of `operation`, under its
    /// name: once, on the first call of the operation that uses them.
    #[cfg(all(feature = "dashboard", feature = "tower"))]
    pub(crate) fn show_under(self: &Arc<Self>, operation: &str) {
        if self.shown.get().is_some_and(|shown| **shown == *operation) {
            return;
        }
        let _ = self.shown.set(operation.into());
        let rows: std::sync::Weak<dyn crate::observe::dashboard::EndpointRows> =
            Arc::downgrade(self) as _;
        crate::observe::dashboard::show_endpoints(operation, rows);
    }
}

#[cfg(feature = "dashboard")]
impl crate::observe::dashboard::EndpointRows for EndpointBreakers {
    fn prefix(&self) -> &str {
        self.map.prefix()
    }

    fn keys(&self) -> usize {
        self.map.len()
    }

    fn evictions(&self) -> u64 {
        self.map.evictions()
    }

    fn views(&self) -> Vec<(String, Arc<crate::breaker::View>)> {
        self.map
            .entries()
            .into_iter()
            .map(|(key, breaker)| (key, Arc::clone(breaker.view())))
            .collect()
    }

    fn control(&self, key: &str, isolate: bool, now: Instant) -> Option<CircuitState> {
        let breaker = self.map.get(key)?;
        if isolate {
            breaker.isolate();
        } else {
            breaker.reset();
        }
        Some(breaker.state(now))
    }
}

#[cfg(feature = "dashboard")]
impl EndpointBreakers {
    /// Lets the control panel of
    /// [`dashboard::router_with_control`](crate::dashboard::router_with_control)
    /// list this map's breakers, one per key, and isolate or reset each by
    /// its key (`control/endpoints/{prefix}/{key}/isolate`), before any
    /// call has used the map: a map an operation uses through the tower
    /// layer or the reqwest middleware is listed without it. Only the keys
    /// the map holds are controlled. An isolated key's breaker is never
    /// idle and is evicted last, so the isolation holds until a reset.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    /// use std::sync::Arc;
    ///
    /// let breakers = Arc::new(EndpointBreakers::builder("search").build().unwrap());
    /// breakers.under_control();
    /// ```
    pub fn under_control(self: &Arc<Self>) {
        let map: Arc<dyn crate::observe::dashboard::EndpointRows> = Arc::clone(self) as _;
        crate::observe::dashboard::control_map(Arc::downgrade(&map));
    }
}

impl fmt::Debug for EndpointBreakers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EndpointBreakers")
            .field("prefix", &self.map.prefix())
            .field("capacity", &self.capacity())
            .field("evictions", &self.evictions())
            .finish_non_exhaustive()
    }
}

impl EndpointBreakersBuilder {
    /// The settings every key's breaker is built from (its name is replaced
    /// by `"{prefix}/{key}"`).
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// let builder = EndpointBreakers::builder("c")
    ///     .template(CircuitBreaker::builder().failure_threshold(3));
    /// # let _ = builder;
    /// ```
    pub fn template(mut self, template: CircuitBreakerBuilder) -> Self {
        self.template = template;
        self
    }

    bound_setters!(EndpointBreakers);

    /// Checks the settings and builds the map.
    ///
    /// ```
    /// use resilient::ConfigError;
    /// use resilient::endpoint::EndpointBreakers;
    /// use std::time::Duration;
    ///
    /// let err = EndpointBreakers::builder("c").idle_after(Duration::ZERO).build().unwrap_err();
    /// assert_eq!(err, ConfigError::ZeroDuration("idle_after"));
    /// ```
    pub fn build(self) -> Result<EndpointBreakers, ConfigError> {
        // Checked, not built: a breaker built here would publish a view and
        // a gauge for no endpoint.
        self.template.check()?;
        Ok(EndpointBreakers {
            template: self.template,
            map: KeyedMap::new(self.prefix, "breaker", self.bound)?,
            #[cfg(all(feature = "dashboard", feature = "tower"))]
            shown: std::sync::OnceLock::new(),
        })
    }
}

/// A user's key function, for a request of the type it was given for
/// (`None` for another type).
#[cfg(feature = "tower")]
pub(crate) type KeyFn = Arc<dyn Fn(&dyn Any) -> Option<String> + Send + Sync>;

/// `key`, a function of a `Req`, as a layer or middleware keeps it.
#[cfg(feature = "tower")]
pub(crate) fn key_fn<Req: 'static>(key: impl Fn(&Req) -> String + Send + Sync + 'static) -> KeyFn {
    Arc::new(move |request: &dyn Any| request.downcast_ref::<Req>().map(&key))
}

/// What a layer or middleware keeps per endpoint: the maps it was given,
/// and the user's key function.
#[cfg(feature = "tower")]
#[derive(Clone, Default)]
pub(crate) struct PerKey {
    pub(crate) breakers: Option<Arc<EndpointBreakers>>,
    pub(crate) throttles: Option<Arc<EndpointThrottles>>,
    pub(crate) limits: Option<Arc<EndpointLimits>>,
    pub(crate) key: Option<KeyFn>,
}

#[cfg(feature = "tower")]
impl PerKey {
    /// Whether any state is kept per endpoint.
    pub(crate) fn is_set(&self) -> bool {
        self.breakers.is_some() || self.throttles.is_some() || self.limits.is_some()
    }

    /// The key of `request` by the user's function, if there is one and it
    /// takes a `Req`.
    pub(crate) fn key_of<Req: 'static>(&self, request: &Req) -> Option<String> {
        self.key.as_ref().and_then(|key| key(request))
    }
}

#[cfg(feature = "tower")]
impl fmt::Debug for PerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PerKey")
            .field("breakers", &self.breakers)
            .field("throttles", &self.throttles)
            .field("limits", &self.limits)
            .field("key", &self.key.is_some())
            .finish()
    }
}

/// The default endpoint key of a request: `host:port`, with the scheme's
/// default port when the URI has none (80 for `http`, 443 for `https`).
/// `None` when the URI has no host.
///
/// ```
/// use resilient::endpoint::endpoint_key;
///
/// let key = endpoint_key(&"https://api.example.com/pay".parse().unwrap());
/// assert_eq!(key.as_deref(), Some("api.example.com:443"));
/// let key = endpoint_key(&"http://127.0.0.1:3000/".parse().unwrap());
/// assert_eq!(key.as_deref(), Some("127.0.0.1:3000"));
/// ```
#[cfg(feature = "http")]
pub fn endpoint_key(uri: &http::Uri) -> Option<String> {
    let host = uri.host()?;
    let port = uri.port_u16().or(match uri.scheme_str() {
        Some("https") => Some(443),
        Some("http") | None => Some(80),
        Some(_) => None,
    });
    Some(key_of(host, port))
}

/// The default endpoint key of an `http::Request`: [`endpoint_key`] of its
/// URI, or `""` when it has no host. A key function for the tower layer,
/// whose request type has no key of its own.
///
/// ```
/// use resilient::endpoint::{EndpointBreakers, host_port};
/// use resilient::tower::ResilientLayer;
/// use std::sync::Arc;
///
/// let request = http::Request::get("http://10.0.0.7:8080/users").body(()).unwrap();
/// assert_eq!(host_port(&request), "10.0.0.7:8080");
///
/// let breakers = Arc::new(EndpointBreakers::builder("users").build()?);
/// let layer = ResilientLayer::new().per_endpoint_by(breakers, host_port::<String>);
/// # let _ = layer;
/// # Ok::<(), resilient::ConfigError>(())
/// ```
#[cfg(feature = "http")]
pub fn host_port<B>(request: &http::Request<B>) -> String {
    endpoint_key(request.uri()).unwrap_or_default()
}

/// An endpoint's key: `host:port`, or the host alone when no port is known.
#[cfg(feature = "http")]
pub(crate) fn key_of(host: &str, port: Option<u16>) -> String {
    match port {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

#[cfg(test)]
mod tests;
