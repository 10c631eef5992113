//! [`KeyedMap`]: the bounded map from keys to per-key state that
//! [`EndpointBreakers`](super::EndpointBreakers),
//! [`EndpointThrottles`](super::EndpointThrottles) and
//! [`EndpointLimits`](super::EndpointLimits) each keep, so that the three
//! share one bound: at most a capacity of keys across the whole map, idle
//! keys dropped, the least recently used key *at rest* evicted first, and
//! one count of evictions (with `metrics`, the counter
//! `resilient_endpoint_evictions_total`).
//!
//! What "at rest" and "in use" mean is the state's to say ([`AtRest`]): at
//! rest is a breaker that is closed, a throttle that is full, limiters with
//! nothing in flight; in use is an isolated breaker or limiters with a
//! permit out. Evicting a key at rest forgets nothing a new one would not
//! start with; a key in use is never idle.
//!
//! Lookups lock one of 16 shards. Adding a key takes one more lock, held by
//! whoever adds ([`Adding`]): it counts the keys and keeps what the last
//! pass over the shards found, the oldest keys at rest in order and when
//! the next key turns idle. A pass is made only when a key may have turned
//! idle, or when the map is full and those candidates are used up, so
//! adding a key to a full map costs a pass over it once per
//! [`CANDIDATES`] evictions, not each time.

use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::clock::{Clock, SystemClock};
use crate::error::ConfigError;

/// How many keys a per-endpoint map keeps unless told otherwise.
pub const DEFAULT_CAPACITY: usize = 1024;

/// How long a key may go unused before it is dropped, unless told otherwise.
pub const DEFAULT_IDLE_AFTER: Duration = Duration::from_secs(600);

const SHARDS: usize = 16;

/// How many of the oldest keys at rest a pass keeps as the next to evict.
const CANDIDATES: usize = 32;

/// Whether a key's state can be evicted without forgetting anything, and
/// whether it holds something that idleness must not drop.
pub(crate) trait AtRest {
    /// A new state for the key would start the same.
    fn at_rest(&self, now: Instant) -> bool;

    /// The state holds what a caller or an operator placed in it (a permit
    /// out, an isolation): it is never idle, and is evicted only when no
    /// other key can go.
    fn in_use(&self, _now: Instant) -> bool {
        false
    }
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

type Shard<V> = HashMap<String, Slot<V>>;

/// A key found by a pass: when it was used then, its shard, and its name.
type Found = (Instant, usize, String);

/// A bounded map from keys to `V`; see the [module documentation](self).
pub(crate) struct KeyedMap<V> {
    prefix: String,
    /// What the map holds, for the eviction counter's `kind` label.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    kind: &'static str,
    capacity: usize,
    idle_after: Duration,
    clock: Arc<dyn Fn() -> Instant + Send + Sync>,
    hasher: RandomState,
    shards: Vec<Mutex<Shard<V>>>,
    adding: Mutex<Adding>,
    evictions: AtomicU64,
}

/// What whoever adds a key holds.
#[derive(Default)]
struct Adding {
    /// How many keys the map holds.
    len: usize,
    /// The oldest keys at rest at the last pass, the least recently used
    /// first: each is evicted only if it is still unused and at rest.
    candidates: VecDeque<Found>,
    /// When the next key may turn idle; `None` before the first key.
    idle_due: Option<Instant>,
}

/// The eviction rule's ranks after "at rest": the least recently used key
/// not in use, else the least recently used of all.
#[derive(Default)]
struct LastResort {
    ranks: [Option<Found>; 2],
}

impl LastResort {
    fn offer(&mut self, rank: usize, used: Instant, shard: usize, key: &str) {
        let best = &mut self.ranks[rank];
        // `<=` would pick the last of keys used at one instant, not the
        // first: either, since shards list their keys in no set order.
        if best.as_ref().is_none_or(|(oldest, ..)| used < *oldest) {
            *best = Some((used, shard, key.to_owned()));
        }
    }

    fn first(self) -> Option<Found> {
        self.ranks.into_iter().flatten().next()
    }
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
            capacity: bound.capacity.max(1),
            idle_after: bound.idle_after,
            clock: bound.clock,
            hasher: RandomState::new(),
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            adding: Mutex::new(Adding::default()),
            evictions: AtomicU64::new(0),
        })
    }

    /// The state of `key`, made by `make` on first use. A new key first
    /// drops the keys that turned idle, then, if the map is full, evicts
    /// one more by the rule: the least recently used key at rest, else the
    /// least recently used not in use, else the least recently used.
    pub(crate) fn get_or_make(&self, key: &str, make: impl FnOnce() -> V) -> V {
        let now = (self.clock)();
        let index = (self.hasher.hash_one(key) as usize) % SHARDS;
        if let Some(value) = self.touch(index, key, now) {
            return value;
        }
        let mut adding = self.adding.lock().unwrap_or_else(PoisonError::into_inner);
        // Another caller may have added it while this one waited.
        if let Some(value) = self.touch(index, key, now) {
            return value;
        }
        let before = adding.len;
        if adding.idle_due.is_some_and(|due| now >= due) {
            self.pass(&mut adding, now);
        }
        while adding.len >= self.capacity {
            let found = match adding.candidates.pop_front() {
                Some(found) => Some((found, true)),
                None => {
                    let last_resort = self.pass(&mut adding, now);
                    match adding.candidates.pop_front() {
                        Some(found) => Some((found, true)),
                        None if adding.len >= self.capacity => last_resort.map(|f| (f, false)),
                        None => None,
                    }
                }
            };
            if let Some(((used, shard, victim), at_rest)) = found
                && self.evict(shard, &victim, used, at_rest.then_some(now))
            {
                adding.len -= 1;
            }
        }
        let evicted = before - adding.len;
        // (`>= 0` would count 0 evictions, which changes no count.)
        if evicted > 0 {
            self.evicted(evicted as u64);
        }
        let value = make();
        let slot = Slot {
            value: value.clone(),
            used: now,
        };
        self.shard(index).insert(key.to_owned(), slot);
        adding.len += 1;
        adding
            .idle_due
            .get_or_insert(now.checked_add(self.idle_after).unwrap_or(now));
        value
    }

    /// The state of `key` if the map holds it, as it is: neither made nor
    /// marked used.
    #[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
    pub(crate) fn get(&self, key: &str) -> Option<V> {
        let index = (self.hasher.hash_one(key) as usize) % SHARDS;
        self.shard(index).get(key).map(|slot| slot.value.clone())
    }

    /// The state of `key` if the map holds it, marked used at `now`.
    fn touch(&self, index: usize, key: &str, now: Instant) -> Option<V> {
        let mut shard = self.shard(index);
        let slot = shard.get_mut(key)?;
        slot.used = now;
        Some(slot.value.clone())
    }

    /// Evicts `key` if it is where a pass found it and unused since, and,
    /// given the time to judge it at, still at rest.
    fn evict(&self, index: usize, key: &str, used: Instant, at_rest: Option<Instant>) -> bool {
        let mut shard = self.shard(index);
        let unchanged = shard.get(key).is_some_and(|slot| {
            slot.used == used && at_rest.is_none_or(|now| slot.value.at_rest(now))
        });
        unchanged && shard.remove(key).is_some()
    }

    /// One pass over every shard: drops the keys idle and not in use,
    /// keeps the oldest keys at rest as the next candidates, and notes when
    /// the next key may turn idle. Returns the last resort, for a full map
    /// with no key at rest.
    fn pass(&self, adding: &mut Adding, now: Instant) -> Option<Found> {
        let mut oldest: BinaryHeap<Found> = BinaryHeap::with_capacity(CANDIDATES + 1);
        let mut last_resort = LastResort::default();
        let mut idle_due: Option<Instant> = None;
        let later = now.checked_add(self.idle_after).unwrap_or(now);
        for (index, shard) in self.shards.iter().enumerate() {
            let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            let before = shard.len();
            shard.retain(|key, slot| {
                let in_use = slot.value.in_use(now);
                let due = slot.used.checked_add(self.idle_after).unwrap_or(later);
                if !in_use && now >= due {
                    return false;
                }
                // A key in use past its idle time is looked at again later.
                // (`>=` would look at one whose time is exactly now again
                // at the next new key, a pass sooner: the same outcome.)
                let due = if due > now { due } else { later };
                idle_due = Some(idle_due.map_or(due, |earliest| earliest.min(due)));
                if slot.value.at_rest(now) {
                    oldest.push((slot.used, index, key.clone()));
                    // (`==` or `>=` would keep one candidate fewer: a pass sooner,
                    // the same keys evicted.)
                    if oldest.len() > CANDIDATES {
                        oldest.pop();
                    }
                } else {
                    last_resort.offer(usize::from(in_use), slot.used, index, key);
                }
                true
            });
            adding.len -= before - shard.len();
        }
        adding.candidates = oldest.into_sorted_vec().into();
        adding.idle_due = idle_due;
        last_resort.first()
    }

    fn shard(&self, index: usize) -> MutexGuard<'_, Shard<V>> {
        self.shards[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
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
        self.adding
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len
    }

    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    pub(crate) fn evictions(&self) -> u64 {
        self.evictions.load(Ordering::Relaxed)
    }
}

/// The setters of the bound, for a builder with a `bound: Bound` field;
/// `$Map` names the map in the examples.
macro_rules! bound_setters {
    ($Map:ident) => {
        /// The most keys kept at once across the whole map (1024 by
        /// default); 0 counts as 1.
        ///
        /// ```
        #[doc = concat!("use resilient::endpoint::", stringify!($Map), ";")]
        ///
        #[doc = concat!("let map = ", stringify!($Map), "::builder(\"c\").capacity(100).build().unwrap();")]
        /// assert_eq!(map.capacity(), 100);
        /// ```
        pub fn capacity(mut self, keys: usize) -> Self {
            self.bound.capacity = keys;
            self
        }

        /// How long a key may go unused before it is dropped (10 minutes by
        /// default), when the map is next given a new key. A key in use
        /// (an isolated breaker, limiters with a permit out) is never idle.
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
