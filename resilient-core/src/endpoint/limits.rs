//! [`EndpointLimits`]: limiters per endpoint key (a bulkhead, a rate
//! limiter, an adaptive limit), so that one slow host fills its own
//! bulkhead and spends its own rate, and the requests to the others go on.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use super::map::{AtRest, Bound, KeyedMap, bound_readers, bound_setters};
use crate::error::ConfigError;
use crate::limit::Limiter;

/// Makes one key's limiter.
type MakeLimiter = Arc<dyn Fn() -> Arc<dyn Limiter> + Send + Sync>;

/// One key's limiters, in the order they were given.
pub(crate) type KeyLimiters = Arc<[Arc<dyn Limiter>]>;

/// A bounded map from endpoint keys to limiters, made on first use by the
/// functions given to [`limit`](EndpointLimitsBuilder::limit), in order.
/// A request through a layer or middleware takes its key's permits after
/// those of the layer's own `limit`s, and gives them back when its
/// attempt ends, however it ends: dropped mid-call, the permits come back
/// with the call.
///
/// A key is at rest when none of its limiters has an attempt in flight: a
/// key whose bulkhead is in use is evicted only when no key is at rest,
/// and its callers give their permits back to the limiter they took them
/// from. A rate limiter counts nothing in flight: evicting its key resets
/// its rate. See [`crate::endpoint`] for the bound.
///
/// ```
/// use resilient::endpoint::EndpointLimits;
/// use resilient::limit::{Bulkhead, Completion, LimitExceeded};
/// use std::time::{Duration, Instant};
///
/// let limits = EndpointLimits::builder("payments")
///     .limit(|| Bulkhead::new(1).named("payments.bulkhead"))
///     .build()
///     .unwrap();
/// let now = Instant::now();
/// let slow = limits.get("10.0.0.1:443");
/// assert!(slow[0].try_acquire(now).is_ok());
/// assert!(slow[0].try_acquire(now).is_err());
/// // The other host's bulkhead is its own, and free.
/// assert!(limits.get("10.0.0.2:443")[0].try_acquire(now).is_ok());
/// slow[0].release(now, Duration::ZERO, Completion::Succeeded);
/// ```
pub struct EndpointLimits {
    makers: Vec<MakeLimiter>,
    map: KeyedMap<KeyLimiters>,
}

/// Configures an [`EndpointLimits`]; start with [`EndpointLimits::builder`].
///
/// ```
/// use resilient::endpoint::EndpointLimits;
/// use resilient::limit::{Bulkhead, RateLimiter};
///
/// let limits = EndpointLimits::builder("search")
///     .limit(|| Bulkhead::new(8).named("search.bulkhead"))
///     .limit(|| RateLimiter::per_second(50).named("search.rate"))
///     .capacity(256)
///     .build()
///     .unwrap();
/// assert_eq!(limits.get("h:1").len(), 2);
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct EndpointLimitsBuilder {
    prefix: String,
    makers: Vec<MakeLimiter>,
    bound: Bound,
}

impl AtRest for KeyLimiters {
    fn at_rest(&self, _now: Instant) -> bool {
        self.iter()
            .all(|limiter| limiter.in_flight().unwrap_or(0) == 0)
    }

    fn in_use(&self, now: Instant) -> bool {
        !self.at_rest(now)
    }
}

impl EndpointLimits {
    /// Starts configuring a map of limiters for the endpoints of `prefix`
    /// (the label of its evictions).
    ///
    /// ```
    /// use resilient::endpoint::EndpointLimits;
    ///
    /// let limits = EndpointLimits::builder("payments").build().unwrap();
    /// assert!(limits.get("h:1").is_empty());
    /// ```
    pub fn builder(prefix: impl Into<String>) -> EndpointLimitsBuilder {
        EndpointLimitsBuilder {
            prefix: prefix.into(),
            makers: Vec::new(),
            bound: Bound::default(),
        }
    }

    /// The limiters of `key`, made on first use.
    ///
    /// ```
    /// use resilient::endpoint::EndpointLimits;
    /// use resilient::limit::{Bulkhead, Limiter};
    ///
    /// let limits = EndpointLimits::builder("c").limit(|| Bulkhead::new(4)).build().unwrap();
    /// assert_eq!(limits.get("h:1")[0].in_flight(), Some(0));
    /// ```
    pub fn get(&self, key: &str) -> Arc<[Arc<dyn Limiter>]> {
        self.map
            .get_or_make(key, || self.makers.iter().map(|make| make()).collect())
    }

    bound_readers!(EndpointLimits);

    /// Each key with the attempts in flight under its limiters now (those
    /// that count them), by key.
    ///
    /// ```
    /// use resilient::endpoint::EndpointLimits;
    /// use resilient::limit::Bulkhead;
    /// use std::time::Instant;
    ///
    /// let limits = EndpointLimits::builder("c").limit(|| Bulkhead::new(4)).build().unwrap();
    /// limits.get("h:1")[0].try_acquire(Instant::now()).unwrap();
    /// assert_eq!(limits.in_flight(), vec![("h:1".to_owned(), 1)]);
    /// ```
    pub fn in_flight(&self) -> Vec<(String, u32)> {
        self.map
            .entries()
            .into_iter()
            .map(|(key, limiters)| {
                let held = limiters
                    .iter()
                    .filter_map(|limiter| limiter.in_flight())
                    .max()
                    .unwrap_or(0);
                (key, held)
            })
            .collect()
    }
}

impl fmt::Debug for EndpointLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EndpointLimits")
            .field("prefix", &self.map.prefix())
            .field("limiters", &self.makers.len())
            .field("capacity", &self.capacity())
            .field("evictions", &self.evictions())
            .finish_non_exhaustive()
    }
}

impl EndpointLimitsBuilder {
    /// Gives every key a limiter of its own, made by `make` on the key's
    /// first use; limiters are taken in the order given. The limiter's
    /// name labels its metrics and refusals, shared by every key's.
    ///
    /// ```
    /// use resilient::endpoint::EndpointLimits;
    /// use resilient::limit::AdaptiveLimit;
    ///
    /// let limits = EndpointLimits::builder("c")
    ///     .limit(|| AdaptiveLimit::vegas().named("c.adaptive"))
    ///     .build()
    ///     .unwrap();
    /// # let _ = limits;
    /// ```
    pub fn limit<L: Limiter + 'static>(
        mut self,
        make: impl Fn() -> L + Send + Sync + 'static,
    ) -> Self {
        self.makers
            .push(Arc::new(move || Arc::new(make()) as Arc<dyn Limiter>));
        self
    }

    bound_setters!(EndpointLimits);

    /// Checks the settings and builds the map: [`ConfigError::ZeroDuration`]
    /// for an `idle_after` of zero.
    ///
    /// ```
    /// use resilient::ConfigError;
    /// use resilient::endpoint::EndpointLimits;
    /// use std::time::Duration;
    ///
    /// let err = EndpointLimits::builder("c").idle_after(Duration::ZERO).build().unwrap_err();
    /// assert_eq!(err, ConfigError::ZeroDuration("idle_after"));
    /// ```
    pub fn build(self) -> Result<EndpointLimits, ConfigError> {
        Ok(EndpointLimits {
            makers: self.makers,
            map: KeyedMap::new(self.prefix, "limits", self.bound)?,
        })
    }
}
