//! [`KeyedMap`]: the bounded, sharded map from keys to per-key state that
//! [`EndpointBreakers`](super::EndpointBreakers),
//! [`EndpointThrottles`](super::EndpointThrottles) and
//! [`EndpointLimits`](super::EndpointLimits) each keep, so that the three
//! share one bound: at most a capacity of keys, idle keys dropped, the
//! least recently used key *at rest* evicted first, and one count of
//! evictions (with `metrics`, the counter
//! `resilient_endpoint_evictions_total`).
//!
//! What "at rest" means is the state's to say ([`AtRest`]): a breaker that
//! is closed, a throttle that is full, limiters with nothing in flight.
//! Evicting such a key forgets nothing a new one would not start with.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::clock::{Clock, SystemClock};
use crate::error::ConfigError;

/// How many keys a per-endpoint map keeps unless told otherwise.
pub const DEFAULT_CAPACITY: usize = 1024;

/// How long a key may go unused before it is dropped, unless told otherwise.
pub const DEFAULT_IDLE_AFTER: Duration = Duration::from_secs(600);

const SHARDS: usize = 16;

/// Whether a key's state can be evicted without forgetting anything: a
/// new state for the key would start the same.
pub(crate) trait AtRest {
    fn at_rest(&self, now: Instant) -> bool;
}

/// The bound a builder collects: capacity, idleness and the clock.
pub(crate) struct Bound {
    pub(crate) capacity: usize,
    pub(crate) idle_after: Duration,
    pub(crate) clock: Arc<dyn Fn() -> Instant + Send + Sync>,
}

impl Default for Bound {
    fn default() -> Self {
        Bound {
            capacity: DEFAULT_CAPACITY,
            idle_after: DEFAULT_IDLE_AFTER,
            clock: Arc::new(|| SystemClock.now()),
        }
    }
}

impl Bound {
    pub(crate) fn set_clock(&mut self, clock: impl Clock + 'static) {
        self.clock = Arc::new(move || clock.now());
    }
}

struct Slot<V> {
    value: V,
    used: Instant,
}

/// A bounded map from keys to `V`; see the [module documentation](self).
pub(crate) struct KeyedMap<V> {
    prefix: String,
    /// What the map holds, for the eviction counter's `kind` label.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    kind: &'static str,
    per_shard: usize,
    idle_after: Duration,
    clock: Arc<dyn Fn() -> Instant + Send + Sync>,
    hasher: RandomState,
    shards: Vec<Mutex<HashMap<String, Slot<V>>>>,
    evictions: AtomicU64,
}

impl<V: Clone + AtRest> KeyedMap<V> {
    /// An empty map of `kind` under `prefix`, bounded by `bound`.
    pub(crate) fn new(
        prefix: String,
        kind: &'static str,
        bound: Bound,
    ) -> Result<Self, ConfigError> {
        if bound.idle_after.is_zero() {
            return Err(ConfigError::ZeroDuration("idle_after"));
        }
        #[cfg(feature = "metrics")]
        {
            crate::catalog::describe();
            ::metrics::counter!(crate::catalog::ENDPOINT_EVICTIONS, "endpoints" => prefix.clone(), "kind" => kind)
                .increment(0);
        }
        Ok(KeyedMap {
            prefix,
            kind,
            per_shard: bound.capacity.max(1).div_ceil(SHARDS),
            idle_after: bound.idle_after,
            clock: bound.clock,
            hasher: RandomState::new(),
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            evictions: AtomicU64::new(0),
        })
    }

    /// The state of `key`, made by `make` on first use. A new key drops
    /// its shard's idle keys, then, if the shard is full, one more: the
    /// least recently used at rest, else the least recently used of all.
    pub(crate) fn get_or_make(&self, key: &str, make: impl FnOnce() -> V) -> V {
        let now = (self.clock)();
        let index = (self.hasher.hash_one(key) as usize) % self.shards.len();
        let mut shard = self.shards[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = shard.get_mut(key) {
            slot.used = now;
            return slot.value.clone();
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
            self.evicted(evicted as u64);
        }
        let value = make();
        shard.insert(
            key.to_owned(),
            Slot {
                value: value.clone(),
                used: now,
            },
        );
        value
    }

    fn evicted(&self, count: u64) {
        self.evictions.fetch_add(count, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        ::metrics::counter!(crate::catalog::ENDPOINT_EVICTIONS, "endpoints" => self.prefix.clone(), "kind" => self.kind)
            .increment(count);
    }

    /// Every key with its state, by key.
    pub(crate) fn entries(&self) -> Vec<(String, V)> {
        let mut entries: Vec<_> = self
            .shards
            .iter()
            .flat_map(|shard| {
                let shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
                shard
                    .iter()
                    .map(|(key, slot)| (key.clone(), slot.value.clone()))
                    .collect::<Vec<_>>()
            })
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries
    }
}

impl<V> KeyedMap<V> {
    pub(crate) fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Now, by the map's clock.
    pub(crate) fn now(&self) -> Instant {
        (self.clock)()
    }

    pub(crate) fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner).len())
            .sum()
    }

    pub(crate) fn capacity(&self) -> usize {
        self.per_shard * self.shards.len()
    }

    pub(crate) fn evictions(&self) -> u64 {
        self.evictions.load(Ordering::Relaxed)
    }
}

/// The key to evict from a full shard: the least recently used one at
/// rest, else the least recently used of all.
fn victim<V: AtRest>(shard: &HashMap<String, Slot<V>>, now: Instant) -> Option<String> {
    let oldest = |at_rest: bool| {
        shard
            .iter()
            .filter(|(_, slot)| !at_rest || slot.value.at_rest(now))
            .min_by_key(|(_, slot)| slot.used)
            .map(|(key, _)| key.clone())
    };
    oldest(true).or_else(|| oldest(false))
}

/// The setters of the bound, for a builder with a `bound: Bound` field;
/// `$Map` names the map in the examples.
macro_rules! bound_setters {
    ($Map:ident) => {
        /// The most keys kept at once (1024 by default). It is spread over
        /// 16 shards, so it is rounded up to a multiple of 16; 0 counts as 1.
        ///
        /// ```
        #[doc = concat!("use resilient::endpoint::", stringify!($Map), ";")]
        ///
        #[doc = concat!("let map = ", stringify!($Map), "::builder(\"c\").capacity(100).build().unwrap();")]
        /// assert_eq!(map.capacity(), 112);
        /// ```
        pub fn capacity(mut self, keys: usize) -> Self {
            self.bound.capacity = keys;
            self
        }

        /// How long a key may go unused before it is dropped (10 minutes by
        /// default), when its shard is next given a new key.
        ///
        /// ```
        #[doc = concat!("use resilient::endpoint::", stringify!($Map), ";")]
        /// use std::time::Duration;
        ///
        #[doc = concat!("let builder = ", stringify!($Map), "::builder(\"c\").idle_after(Duration::from_secs(30));")]
        /// # let _ = builder;
        /// ```
        pub fn idle_after(mut self, idle: ::std::time::Duration) -> Self {
            self.bound.idle_after = idle;
            self
        }

        /// The clock that says when a key was last used.
        ///
        /// ```
        /// use resilient::FakeClock;
        #[doc = concat!("use resilient::endpoint::", stringify!($Map), ";")]
        ///
        #[doc = concat!("let builder = ", stringify!($Map), "::builder(\"c\").clock(FakeClock::new());")]
        /// # let _ = builder;
        /// ```
        pub fn clock(mut self, clock: impl $crate::clock::Clock + 'static) -> Self {
            self.bound.set_clock(clock);
            self
        }
    };
}

/// What every per-endpoint map tells of its bound, for a type with a
/// `map: KeyedMap<_>` field; `$Map` names it in the examples.
macro_rules! bound_readers {
    ($Map:ident) => {
        /// How many keys the map holds now.
        ///
        /// ```
        #[doc = concat!("use resilient::endpoint::", stringify!($Map), ";")]
        ///
        #[doc = concat!("let map = ", stringify!($Map), "::builder(\"c\").build().unwrap();")]
        /// assert_eq!(map.len(), 0);
        /// assert!(map.is_empty());
        /// ```
        pub fn len(&self) -> usize {
            self.map.len()
        }

        /// Whether the map holds no key.
        ///
        /// ```
        #[doc = concat!("use resilient::endpoint::", stringify!($Map), ";")]
        ///
        #[doc = concat!("assert!(", stringify!($Map), "::builder(\"c\").build().unwrap().is_empty());")]
        /// ```
        pub fn is_empty(&self) -> bool {
            self.map.len() == 0
        }

        /// The most keys the map holds at once.
        ///
        /// ```
        #[doc = concat!("use resilient::endpoint::", stringify!($Map), ";")]
        ///
        #[doc = concat!("let map = ", stringify!($Map), "::builder(\"c\").capacity(64).build().unwrap();")]
        /// assert_eq!(map.capacity(), 64);
        /// ```
        pub fn capacity(&self) -> usize {
            self.map.capacity()
        }

        /// How many keys were evicted so far, for capacity or idleness;
        /// with the `metrics` feature also counted as
        /// `resilient_endpoint_evictions_total{endpoints, kind}`.
        ///
        /// ```
        #[doc = concat!("use resilient::endpoint::", stringify!($Map), ";")]
        ///
        #[doc = concat!("assert_eq!(", stringify!($Map), "::builder(\"c\").build().unwrap().evictions(), 0);")]
        /// ```
        pub fn evictions(&self) -> u64 {
            self.map.evictions()
        }
    };
}

pub(crate) use {bound_readers, bound_setters};
