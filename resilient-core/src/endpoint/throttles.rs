//! [`EndpointThrottles`]: a retry throttle per endpoint key, so that the
//! failures of one sick host spend its own retry tokens and leave the
//! others' retries alone.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use super::map::{AtRest, Bound, KeyedMap, bound_readers, bound_setters};
use crate::error::ConfigError;
use crate::throttle::RetryThrottle;

/// A bounded map from endpoint keys to [`RetryThrottle`]s, each made from
/// the template's `max_tokens` and `token_ratio` on first use. A full
/// throttle is at rest: it is evicted before one that failures drained.
/// See [`crate::endpoint`] for the bound.
///
/// ```
/// use resilient::RetryThrottle;
/// use resilient::endpoint::EndpointThrottles;
///
/// let throttles = EndpointThrottles::builder("payments")
///     .template(RetryThrottle::new(2, 0.5))
///     .build()
///     .unwrap();
/// let sick = throttles.get("10.0.0.1:443");
/// for _ in 0..2 {
///     sick.record_failure();
/// }
/// assert!(!sick.allows_retry());
/// // The other host's throttle is its own, and still full.
/// assert!(throttles.get("10.0.0.2:443").allows_retry());
/// ```
pub struct EndpointThrottles {
    /// The template's `(max_tokens, token_ratio)`.
    template: (u32, f64),
    map: KeyedMap<Arc<RetryThrottle>>,
}

/// Configures an [`EndpointThrottles`]; start with
/// [`EndpointThrottles::builder`].
///
/// ```
/// use resilient::RetryThrottle;
/// use resilient::endpoint::EndpointThrottles;
///
/// let throttles = EndpointThrottles::builder("search")
///     .template(RetryThrottle::new(10, 0.1))
///     .capacity(256)
///     .build()
///     .unwrap();
/// # let _ = throttles;
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct EndpointThrottlesBuilder {
    prefix: String,
    template: (u32, f64),
    bound: Bound,
}

impl AtRest for Arc<RetryThrottle> {
    fn at_rest(&self, _now: Instant) -> bool {
        self.tokens() >= f64::from(self.max_tokens())
    }
}

impl EndpointThrottles {
    /// Starts configuring a map of throttles for the endpoints of
    /// `prefix` (the label of its evictions), by default of A6's
    /// `RetryThrottle::new(10, 0.1)`.
    ///
    /// ```
    /// use resilient::endpoint::EndpointThrottles;
    ///
    /// let throttles = EndpointThrottles::builder("payments").build().unwrap();
    /// assert_eq!(throttles.get("h:1").max_tokens(), 10);
    /// ```
    pub fn builder(prefix: impl Into<String>) -> EndpointThrottlesBuilder {
        EndpointThrottlesBuilder {
            prefix: prefix.into(),
            template: (10, 0.1),
            bound: Bound::default(),
        }
    }

    /// The throttle for `key`, made from the template on first use.
    ///
    /// ```
    /// use resilient::endpoint::EndpointThrottles;
    /// use std::sync::Arc;
    ///
    /// let throttles = EndpointThrottles::builder("c").build().unwrap();
    /// assert!(Arc::ptr_eq(&throttles.get("h:1"), &throttles.get("h:1")));
    /// ```
    pub fn get(&self, key: &str) -> Arc<RetryThrottle> {
        let (max_tokens, token_ratio) = self.template;
        self.map.get_or_make(key, || {
            Arc::new(RetryThrottle::new(max_tokens, token_ratio))
        })
    }

    bound_readers!(EndpointThrottles);

    /// Each key with its throttle's tokens now, by key.
    ///
    /// ```
    /// use resilient::endpoint::EndpointThrottles;
    ///
    /// let throttles = EndpointThrottles::builder("c").build().unwrap();
    /// throttles.get("h:1").record_failure();
    /// assert_eq!(throttles.tokens(), vec![("h:1".to_owned(), 9.0)]);
    /// ```
    pub fn tokens(&self) -> Vec<(String, f64)> {
        self.map
            .entries()
            .into_iter()
            .map(|(key, throttle)| (key, throttle.tokens()))
            .collect()
    }
}

impl fmt::Debug for EndpointThrottles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EndpointThrottles")
            .field("prefix", &self.map.prefix())
            .field("template", &self.template)
            .field("capacity", &self.capacity())
            .field("evictions", &self.evictions())
            .finish_non_exhaustive()
    }
}

impl EndpointThrottlesBuilder {
    /// The throttle every key's is made like: its `max_tokens` and
    /// `token_ratio`, starting full.
    ///
    /// ```
    /// use resilient::RetryThrottle;
    /// use resilient::endpoint::EndpointThrottles;
    ///
    /// let throttles = EndpointThrottles::builder("c")
    ///     .template(RetryThrottle::new(4, 0.25))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(throttles.get("h:1").token_ratio(), 0.25);
    /// ```
    pub fn template(mut self, template: RetryThrottle) -> Self {
        self.template = (template.max_tokens(), template.token_ratio());
        self
    }

    bound_setters!(EndpointThrottles);

    /// Checks the settings and builds the map: [`ConfigError::ZeroDuration`]
    /// for an `idle_after` of zero.
    ///
    /// ```
    /// use resilient::ConfigError;
    /// use resilient::endpoint::EndpointThrottles;
    /// use std::time::Duration;
    ///
    /// let err = EndpointThrottles::builder("c").idle_after(Duration::ZERO).build().unwrap_err();
    /// assert_eq!(err, ConfigError::ZeroDuration("idle_after"));
    /// ```
    pub fn build(self) -> Result<EndpointThrottles, ConfigError> {
        Ok(EndpointThrottles {
            template: self.template,
            map: KeyedMap::new(self.prefix, "throttle", self.bound)?,
        })
    }
}
