//! A circuit breaker per endpoint: one [`CircuitBreaker`] per key (by
//! default a request's `host:port`), built on first use from a template,
//! so that one sick host opens its own breaker and no other.
//!
//! Memory is bounded: an [`EndpointBreakers`] holds at most
//! [`capacity`](EndpointBreakersBuilder::capacity) keys (1024 by default).
//! When a new key would go over, one key is evicted, chosen by this rule:
//!
//! 1. the least recently used key whose breaker is closed;
//! 2. only if every key's breaker is open or half-open, the least recently
//!    used key of all.
//!
//! So a key whose breaker is open is never evicted while a closed one can
//! go instead: evicting it would forget that its host is sick. Keys not used
//! for [`idle_after`](EndpointBreakersBuilder::idle_after) are also dropped
//! when their shard is next touched, whatever their breaker's state, since
//! an idle breaker has nothing left to protect. "Used" and "idle" are read
//! from the map's [`Clock`], so tests drive them with a
//! [`FakeClock`](crate::FakeClock).
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

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::breaker::{CircuitBreaker, CircuitBreakerBuilder, CircuitState};
use crate::clock::{Clock, SystemClock};
use crate::error::ConfigError;

/// How many keys an [`EndpointBreakers`] keeps unless told otherwise.
pub const DEFAULT_CAPACITY: usize = 1024;

/// How long a key may go unused before it is dropped, unless told otherwise.
pub const DEFAULT_IDLE_AFTER: Duration = Duration::from_secs(600);

const SHARDS: usize = 16;

struct Slot {
    breaker: Arc<CircuitBreaker>,
    used: Instant,
}

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
    prefix: String,
    template: CircuitBreakerBuilder,
    per_shard: usize,
    idle_after: Duration,
    clock: Arc<dyn Fn() -> Instant + Send + Sync>,
    hasher: RandomState,
    shards: Vec<Mutex<HashMap<String, Slot>>>,
    evictions: AtomicU64,
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
    capacity: usize,
    idle_after: Duration,
    clock: Arc<dyn Fn() -> Instant + Send + Sync>,
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
            capacity: DEFAULT_CAPACITY,
            idle_after: DEFAULT_IDLE_AFTER,
            clock: Arc::new(|| SystemClock.now()),
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
        let now = (self.clock)();
        let index = (self.hasher.hash_one(key) as usize) % self.shards.len();
        let mut shard = self.shards[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = shard.get_mut(key) {
            slot.used = now;
            return Arc::clone(&slot.breaker);
        }
        let before = shard.len();
        let idle_after = self.idle_after;
        shard.retain(|_, slot| now.saturating_duration_since(slot.used) < idle_after);
        let mut evicted = before - shard.len();
        if shard.len() >= self.per_shard
            && let Some(victim) = victim(&shard, now)
        {
            shard.remove(&victim);
            evicted += 1;
        }
        if evicted > 0 {
            self.evictions.fetch_add(evicted as u64, Ordering::Relaxed);
            #[cfg(feature = "metrics")]
            metrics::counter!("resilient_endpoint_evictions_total", "endpoints" => self.prefix.clone())
                .increment(evicted as u64);
        }
        let breaker = Arc::new(self.build_breaker(key));
        shard.insert(
            key.to_owned(),
            Slot {
                breaker: Arc::clone(&breaker),
                used: now,
            },
        );
        breaker
    }

    fn build_breaker(&self, key: &str) -> CircuitBreaker {
        // The template's rules were checked in `build`.
        self.template
            .clone()
            .name(format!("{}/{}", self.prefix, key))
            .build()
            .unwrap_or_default()
    }

    /// How many keys the map holds now.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// let breakers = EndpointBreakers::builder("c").build().unwrap();
    /// assert_eq!(breakers.len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner).len())
            .sum()
    }

    /// Whether the map holds no key.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// assert!(EndpointBreakers::builder("c").build().unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most keys the map holds at once.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// let breakers = EndpointBreakers::builder("c").capacity(64).build().unwrap();
    /// assert_eq!(breakers.capacity(), 64);
    /// ```
    pub fn capacity(&self) -> usize {
        self.per_shard * self.shards.len()
    }

    /// How many keys were evicted so far, for capacity or idleness; with the
    /// `metrics` feature also counted as `resilient_endpoint_evictions_total`.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// assert_eq!(EndpointBreakers::builder("c").build().unwrap().evictions(), 0);
    /// ```
    pub fn evictions(&self) -> u64 {
        self.evictions.load(Ordering::Relaxed)
    }

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
        let now = (self.clock)();
        let mut states: Vec<_> = self
            .shards
            .iter()
            .flat_map(|shard| {
                let shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
                shard
                    .iter()
                    .map(|(key, slot)| (key.clone(), slot.breaker.state(now)))
                    .collect::<Vec<_>>()
            })
            .collect();
        states.sort_by(|a, b| a.0.cmp(&b.0));
        states
    }
}

/// The key to evict from a full shard: the least recently used closed one,
/// else the least recently used of all.
fn victim(shard: &HashMap<String, Slot>, now: Instant) -> Option<String> {
    let oldest = |closed: bool| {
        shard
            .iter()
            .filter(|(_, slot)| !closed || slot.breaker.state(now) == CircuitState::Closed)
            .min_by_key(|(_, slot)| slot.used)
            .map(|(key, _)| key.clone())
    };
    oldest(true).or_else(|| oldest(false))
}

impl fmt::Debug for EndpointBreakers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EndpointBreakers")
            .field("prefix", &self.prefix)
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

    /// The most keys kept at once (1024 by default). It is spread over 16
    /// shards, so it is rounded up to a multiple of 16; 0 counts as 1.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// let breakers = EndpointBreakers::builder("c").capacity(100).build().unwrap();
    /// assert_eq!(breakers.capacity(), 112);
    /// ```
    pub fn capacity(mut self, keys: usize) -> Self {
        self.capacity = keys;
        self
    }

    /// How long a key may go unused before it is dropped (10 minutes by
    /// default).
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    /// use std::time::Duration;
    ///
    /// let builder = EndpointBreakers::builder("c").idle_after(Duration::from_secs(30));
    /// # let _ = builder;
    /// ```
    pub fn idle_after(mut self, idle: Duration) -> Self {
        self.idle_after = idle;
        self
    }

    /// The clock that says when a key was last used.
    ///
    /// ```
    /// use resilient::FakeClock;
    /// use resilient::endpoint::EndpointBreakers;
    ///
    /// let builder = EndpointBreakers::builder("c").clock(FakeClock::new());
    /// # let _ = builder;
    /// ```
    pub fn clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(move || clock.now());
        self
    }

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
        if self.idle_after.is_zero() {
            return Err(ConfigError::ZeroDuration("idle_after"));
        }
        // Checked, not built: a breaker built here would publish a view and
        // a gauge for no endpoint.
        self.template.check()?;
        let per_shard = self.capacity.max(1).div_ceil(SHARDS);
        Ok(EndpointBreakers {
            prefix: self.prefix,
            template: self.template,
            per_shard,
            idle_after: self.idle_after,
            clock: self.clock,
            hasher: RandomState::new(),
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            evictions: AtomicU64::new(0),
        })
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
