//! [`MemoryStore`]: idempotency keys held in this process, usable from a
//! `static`, from async code and from blocking threads.

use std::collections::BTreeMap;
use std::fmt;
use std::future::{self, Future};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::{Claim, ClaimToken, DEFAULT_LEASE, IdempotencyStore, StoreError};

/// The shortest lease a store grants: a zero lease would expire as it is
/// granted, and renewing every half of it would spin.
const MIN_LEASE: Duration = Duration::from_millis(1);

/// Below this many entries the map is never swept: sweeping a small map
/// costs more than the memory it frees.
const SWEEP_FLOOR: usize = 64;

/// Idempotency keys held in this process.
///
/// Exact within the process, invisible to others (use `RedisStore`, feature
/// `redis`, for a fleet). Built by a `const fn`, so it can be a `static`
/// next to the function it guards:
///
/// ```
/// use resilient::TokioClock;
/// use resilient::idempotency::{run_idempotent, IdempotencyStatus, MemoryStore, DEFAULT_TTL};
/// use std::sync::atomic::{AtomicU32, Ordering};
///
/// static EMAILS: MemoryStore<u64> = MemoryStore::new();
/// static SENT: AtomicU32 = AtomicU32::new(0);
///
/// async fn send_welcome(user: u64) -> (Result<u64, String>, IdempotencyStatus) {
///     let key = format!("welcome-{user}");
///     let body = || async move {
///         SENT.fetch_add(1, Ordering::Relaxed);
///         (Ok(user), true)
///     };
///     run_idempotent(&EMAILS, &key, DEFAULT_TTL, None, &TokioClock, body).await.unwrap()
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// assert_eq!(send_welcome(9).await, (Ok(9), IdempotencyStatus::Executed));
/// assert_eq!(send_welcome(9).await, (Ok(9), IdempotencyStatus::Replayed));
/// assert_eq!(SENT.load(Ordering::Relaxed), 1);
/// # }
/// ```
///
/// Waiting calls are woken when the key settles, without polling: async
/// ones through a `tokio::sync::Notify`, blocking ones
/// ([`run_idempotent_blocking`](super::run_idempotent_blocking)) through a
/// `Condvar`. Expired entries are dropped on access, and the whole map is
/// swept whenever it has doubled since the last sweep, so memory follows the
/// live keys without a background task. Time comes from the caller's `now`,
/// so paused tokio time or a [`FakeClock`](crate::FakeClock) drives TTLs
/// and leases in tests.
pub struct MemoryStore<T> {
    state: Mutex<State<T>>,
    /// Wakes blocking waiters; async ones wait on their key's `Notify`.
    settled: Condvar,
    lease: Duration,
}

struct State<T> {
    entries: BTreeMap<String, Entry<T>>,
    last_token: u128,
    sweep_at: usize,
}

enum Entry<T> {
    Claimed {
        token: ClaimToken,
        /// `None`: held until released (blocking claims, and leases too long
        /// for an `Instant`).
        lease_ends: Option<Instant>,
        /// Created by the first waiter. Each waiter holds a clone while it
        /// waits, so its count tells how many wait.
        waiters: Option<Arc<Notify>>,
    },
    Stored {
        value: T,
        /// `None`: a TTL too long for an `Instant`, that is, forever.
        expires: Option<Instant>,
    },
}

fn live(ends: Option<Instant>, now: Instant) -> bool {
    ends.is_none_or(|ends| now < ends)
}

impl<T> Entry<T> {
    fn is_live(&self, now: Instant) -> bool {
        match self {
            Entry::Claimed { lease_ends, .. } => live(*lease_ends, now),
            Entry::Stored { expires, .. } => live(*expires, now),
        }
    }
}

impl<T> MemoryStore<T> {
    /// An empty store whose claims last [`DEFAULT_LEASE`] without renewal.
    ///
    /// ```
    /// use resilient::idempotency::MemoryStore;
    ///
    /// static STORE: MemoryStore<String> = MemoryStore::new();
    /// assert_eq!(STORE.waiters("any"), 0);
    /// ```
    pub const fn new() -> MemoryStore<T> {
        MemoryStore {
            state: Mutex::new(State {
                entries: BTreeMap::new(),
                last_token: 0,
                sweep_at: SWEEP_FLOOR,
            }),
            settled: Condvar::new(),
            lease: DEFAULT_LEASE,
        }
    }

    /// Sets how long an async claim lasts without renewal (at least 1 ms).
    ///
    /// Within one process a claim ends with its call (success, failure,
    /// cancellation or panic all settle it), so the lease only frees a key
    /// whose future was neither polled nor dropped, such as one leaked with
    /// `mem::forget`. Claims of blocking calls have no lease: a blocked
    /// thread is still running.
    ///
    /// ```
    /// use resilient::idempotency::MemoryStore;
    /// use std::time::Duration;
    ///
    /// static STORE: MemoryStore<u8> = MemoryStore::new().with_lease(Duration::from_secs(5));
    /// assert_eq!(STORE.lease(), Duration::from_secs(5));
    /// assert_eq!(MemoryStore::<u8>::new().with_lease(Duration::ZERO).lease(), Duration::from_millis(1));
    /// ```
    pub const fn with_lease(mut self, lease: Duration) -> MemoryStore<T> {
        self.lease = if lease.as_nanos() < MIN_LEASE.as_nanos() {
            MIN_LEASE
        } else {
            lease
        };
        self
    }

    /// How long a claim lasts without renewal.
    ///
    /// ```
    /// use resilient::idempotency::{MemoryStore, DEFAULT_LEASE};
    ///
    /// assert_eq!(MemoryStore::<u8>::new().lease(), DEFAULT_LEASE);
    /// ```
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// How many calls are waiting for the current claim on `key` to settle.
    ///
    /// ```
    /// use resilient::idempotency::{IdempotencyStore, MemoryStore};
    /// use std::time::Instant;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let store = MemoryStore::<u8>::new();
    /// store.claim("k", Instant::now()).await.unwrap();
    /// let waiting = store.wait("k");
    /// assert_eq!(store.waiters("k"), 1);
    /// drop(waiting);
    /// assert_eq!(store.waiters("k"), 0);
    /// # }
    /// ```
    pub fn waiters(&self, key: &str) -> usize {
        match self.lock().entries.get(key) {
            Some(Entry::Claimed {
                waiters: Some(waiters),
                ..
            }) => Arc::strong_count(waiters) - 1,
            _ => 0,
        }
    }

    /// The state, even after a panic elsewhere poisoned the lock: no user
    /// code runs while the state is half-changed, so it is always whole.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes every call waiting on a claim that just settled.
    fn wake(&self, waiters: Option<Arc<Notify>>) {
        if let Some(waiters) = waiters {
            waiters.notify_waiters();
            self.settled.notify_all();
        }
    }

    /// Frees `key` if `token` holds it.
    pub(super) fn release_now(&self, key: &str, token: ClaimToken) -> bool {
        let mut state = self.lock();
        let Some(Entry::Claimed { token: held, .. }) = state.entries.get(key) else {
            return false;
        };
        if *held != token {
            return false;
        }
        let removed = state.entries.remove(key);
        drop(state);
        if let Some(Entry::Claimed { waiters, .. }) = removed {
            self.wake(waiters);
        }
        true
    }

    /// Blocks until the claim on `key` settles, `timeout` passes, or a
    /// spurious wake-up; returns at once if `key` isn't claimed.
    pub(super) fn wait_blocking(&self, key: &str, timeout: Option<Duration>) {
        let mut state = self.lock();
        let Some(Entry::Claimed { waiters, .. }) = state.entries.get_mut(key) else {
            return;
        };
        // Holding a clone both counts this waiter and makes the settling
        // call notify the condvar.
        let _registered = Arc::clone(waiters.get_or_insert_with(Arc::default));
        match timeout {
            Some(timeout) => {
                let _woken = self
                    .settled
                    .wait_timeout(state, timeout)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            None => {
                let _woken = self
                    .settled
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
    }
}

impl<T: Clone> MemoryStore<T> {
    /// Looks `key` up, or claims it for `lease` (`None`: until released).
    pub(super) fn claim_now(&self, key: &str, now: Instant, lease: Option<Duration>) -> Claim<T> {
        let mut state = self.lock();
        state.sweep_if_due(now);
        state.last_token = state.last_token.wrapping_add(1);
        let token = ClaimToken::from_u128(state.last_token);
        let lease_ends = lease.and_then(|lease| now.checked_add(lease));
        match state.entries.get_mut(key) {
            Some(Entry::Stored { value, expires }) if live(*expires, now) => {
                return Claim::Stored(value.clone());
            }
            Some(Entry::Claimed { lease_ends, .. }) if live(*lease_ends, now) => {
                return Claim::InFlight {
                    expires_in: lease_ends.map(|ends| ends.saturating_duration_since(now)),
                };
            }
            Some(expired) => {
                // Calls still waiting on a lapsed claim go on waiting on its
                // successor, so they are woken when it settles.
                let waiters = match expired {
                    Entry::Claimed { waiters, .. } => waiters.take(),
                    Entry::Stored { .. } => None,
                };
                *expired = Entry::Claimed {
                    token,
                    lease_ends,
                    waiters,
                };
            }
            None => {
                state.entries.insert(
                    key.to_owned(),
                    Entry::Claimed {
                        token,
                        lease_ends,
                        waiters: None,
                    },
                );
            }
        }
        Claim::Acquired {
            token,
            lease: self.lease,
        }
    }

    pub(super) fn complete_now(
        &self,
        key: &str,
        token: ClaimToken,
        value: &T,
        ttl: Duration,
        now: Instant,
    ) -> bool {
        // Cloned before locking: user code never runs under the lock here.
        let value = value.clone();
        let mut state = self.lock();
        let Some(entry) = state.entries.get_mut(key) else {
            return false;
        };
        let waiters = match entry {
            Entry::Claimed {
                token: held,
                waiters,
                ..
            } if *held == token => waiters.take(),
            _ => return false,
        };
        *entry = Entry::Stored {
            value,
            expires: now.checked_add(ttl),
        };
        drop(state);
        self.wake(waiters);
        true
    }

    fn renew_now(&self, key: &str, token: ClaimToken, now: Instant) -> bool {
        match self.lock().entries.get_mut(key) {
            Some(Entry::Claimed {
                token: held,
                lease_ends,
                ..
            }) if *held == token => {
                *lease_ends = now.checked_add(self.lease);
                true
            }
            _ => false,
        }
    }
}

impl<T> State<T> {
    /// Drops expired entries once the map has doubled since the last sweep,
    /// so a sweep's cost is spread over the inserts that made it due.
    fn sweep_if_due(&mut self, now: Instant) {
        if self.entries.len() < self.sweep_at {
            return;
        }
        self.entries.retain(|_, entry| entry.is_live(now));
        self.sweep_at = (self.entries.len() * 2).max(SWEEP_FLOOR);
    }
}

impl<T: Clone + Send> IdempotencyStore<T> for MemoryStore<T> {
    fn claim(
        &self,
        key: &str,
        now: Instant,
    ) -> impl Future<Output = Result<Claim<T>, StoreError>> + Send {
        future::ready(Ok(self.claim_now(key, now, Some(self.lease))))
    }

    fn wait(&self, key: &str) -> impl Future<Output = Result<(), StoreError>> + Send {
        // Registered now, under the lock, so a claim that settles before the
        // future is first polled still wakes it.
        let notified = match self.lock().entries.get_mut(key) {
            Some(Entry::Claimed { waiters, .. }) => {
                Some(Arc::clone(waiters.get_or_insert_with(Arc::default)).notified_owned())
            }
            _ => None,
        };
        async move {
            if let Some(notified) = notified {
                notified.await;
            }
            Ok(())
        }
    }

    fn complete(
        &self,
        key: &str,
        token: ClaimToken,
        value: &T,
        ttl: Duration,
        now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        future::ready(Ok(self.complete_now(key, token, value, ttl, now)))
    }

    fn release(
        &self,
        key: &str,
        token: ClaimToken,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'static {
        // Done at the call, not at the first poll: the drop guard then frees
        // the key even where nothing polls the future.
        future::ready(Ok(self.release_now(key, token)))
    }

    fn renew(
        &self,
        key: &str,
        token: ClaimToken,
        now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        future::ready(Ok(self.renew_now(key, token, now)))
    }
}

impl<T> Default for MemoryStore<T> {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl<T> fmt::Debug for MemoryStore<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore")
            .field("keys", &self.lock().entries.len())
            .field("lease", &self.lease)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acquired<T>(claim: Claim<T>) -> ClaimToken {
        match claim {
            Claim::Acquired { token, .. } => token,
            _ => panic!("expected the key to be claimed"),
        }
    }

    #[test]
    fn expired_entries_are_swept_once_the_map_doubles() {
        let store = MemoryStore::<u32>::new();
        let start = Instant::now();
        for i in 0..SWEEP_FLOOR {
            let key = format!("k{i}");
            let token = acquired(store.claim_now(&key, start, Some(store.lease)));
            assert!(store.complete_now(&key, token, &1, Duration::from_secs(1), start));
        }
        assert_eq!(store.lock().entries.len(), SWEEP_FLOOR);

        let later = start + Duration::from_secs(1);
        acquired(store.claim_now("fresh", later, Some(store.lease)));
        // The sweep ran before "fresh" was inserted: only it is left.
        assert_eq!(store.lock().entries.len(), 1);
        assert_eq!(store.lock().sweep_at, SWEEP_FLOOR);
    }

    #[test]
    fn a_sweep_keeps_live_entries_and_waits_for_the_map_to_double_again() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        for i in 0..=SWEEP_FLOOR {
            acquired(store.claim_now(&format!("k{i}"), now, None));
        }
        // The claim that found 64 entries swept them, kept all (they live),
        // and put the next sweep at twice that.
        assert_eq!(store.lock().entries.len(), SWEEP_FLOOR + 1);
        assert_eq!(store.lock().sweep_at, SWEEP_FLOOR * 2);
    }

    #[test]
    fn only_the_holder_completes_releases_or_renews() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        let token = acquired(store.claim_now("k", now, Some(store.lease)));
        let stranger = ClaimToken::from_u128(token.as_u128() + 100);

        assert!(!store.renew_now("k", stranger, now));
        assert!(!store.release_now("k", stranger));
        assert!(!store.complete_now("k", stranger, &5, Duration::from_secs(1), now));
        assert_eq!(
            store.claim_now("k", now, Some(store.lease)),
            Claim::InFlight {
                expires_in: Some(DEFAULT_LEASE)
            }
        );

        assert!(store.renew_now("k", token, now + Duration::from_secs(10)));
        assert_eq!(
            store.claim_now("k", now + Duration::from_secs(10), None),
            Claim::InFlight {
                expires_in: Some(DEFAULT_LEASE)
            }
        );
        assert!(store.release_now("k", token));
        assert!(!store.release_now("k", token));
    }

    #[test]
    fn a_lapsed_claim_is_taken_over_and_its_holder_can_no_longer_complete() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        let first = acquired(store.claim_now("k", now, Some(store.lease)));
        let lapsed = now + DEFAULT_LEASE;
        let second = acquired(store.claim_now("k", lapsed, Some(store.lease)));
        assert_ne!(first, second);
        assert!(!store.complete_now("k", first, &1, Duration::from_secs(9), lapsed));
        assert!(store.complete_now("k", second, &2, Duration::from_secs(9), lapsed));
        assert_eq!(store.claim_now("k", lapsed, None), Claim::Stored(2));
    }

    #[test]
    fn durations_past_what_an_instant_holds_mean_forever() {
        let store = MemoryStore::<u32>::new().with_lease(Duration::MAX);
        let now = Instant::now();
        let token = acquired(store.claim_now("k", now, Some(store.lease)));
        assert_eq!(
            store.claim_now("k", now, None),
            Claim::InFlight { expires_in: None }
        );
        assert!(store.renew_now("k", token, now));
        assert!(store.complete_now("k", token, &3, Duration::MAX, now));
        assert_eq!(
            store.claim_now("k", now + Duration::from_secs(1 << 40), None),
            Claim::Stored(3)
        );
    }

    #[test]
    fn a_clone_that_panics_under_the_lock_leaves_the_store_usable() {
        use std::sync::atomic::{AtomicBool, Ordering};

        static REFUSE: AtomicBool = AtomicBool::new(false);
        #[derive(Debug, PartialEq)]
        struct Fragile;
        impl Clone for Fragile {
            fn clone(&self) -> Self {
                assert!(!REFUSE.load(Ordering::Relaxed), "clone refused");
                Fragile
            }
        }

        let store = MemoryStore::<Fragile>::new();
        let now = Instant::now();
        let token = acquired(store.claim_now("k", now, None));
        assert!(store.complete_now("k", token, &Fragile, DEFAULT_LEASE, now));

        REFUSE.store(true, Ordering::Relaxed);
        let replay = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.claim_now("k", now, None)
        }));
        REFUSE.store(false, Ordering::Relaxed);
        assert!(replay.is_err());
        assert!(store.state.is_poisoned());

        assert_eq!(store.claim_now("k", now, None), Claim::Stored(Fragile));
        let other = acquired(store.claim_now("j", now, None));
        assert!(store.release_now("j", other));
    }
}
