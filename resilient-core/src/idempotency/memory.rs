//! [`MemoryStore`]: idempotency keys held in this process, usable from a
//! `static`, from async code and from blocking threads.

use std::collections::BTreeMap;
use std::fmt;
use std::future::{self, Future};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::{Claim, ClaimRequest, ClaimToken, IdempotencyStore, StoreError};

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
/// A claim lasts as long as its holder, whatever time it takes: in one
/// process the store knows that the holder is alive, since the holder's
/// guard releases the claim when its call ends, fails, panics or is
/// cancelled. So no lease can run out under a holder that is slow or not
/// polled for a while, and no second run can start beside it. (A future
/// leaked with `mem::forget` keeps its key, as it keeps its memory.)
///
/// Waiting calls are woken when the key settles, without polling: async
/// ones through a `tokio::sync::Notify`, blocking ones
/// ([`run_idempotent_blocking`](super::run_idempotent_blocking)) through a
/// `Condvar`. Expired entries are dropped on access, and the whole map is
/// swept whenever it has doubled since the last sweep, so memory follows the
/// live keys without a background task. Time comes from the caller's `now`,
/// so paused tokio time or a [`FakeClock`](crate::FakeClock) drives TTLs in
/// tests.
pub struct MemoryStore<T> {
    state: Mutex<State<T>>,
    /// Wakes blocking waiters; async ones wait on their key's `Notify`.
    settled: Condvar,
}

struct State<T> {
    entries: BTreeMap<String, Slot<T>>,
    last_token: u128,
    /// The last fencing token handed out, for any key: one counter makes
    /// every key's tokens grow.
    last_fence: u64,
    sweep_at: usize,
}

enum Slot<T> {
    Claimed {
        token: ClaimToken,
        fencing_token: u64,
        fingerprint: Option<u64>,
        /// Created by the first waiter. Each waiter holds a clone while it
        /// waits, so its count tells how many wait.
        waiters: Option<Arc<Notify>>,
    },
    Stored {
        value: T,
        fingerprint: Option<u64>,
        /// `None`: a TTL too long for an `Instant`, that is, forever.
        expires: Option<Instant>,
    },
    /// A value completed with a TTL of zero: returned only to the calls
    /// that waited on the claim `fencing_token`; free for any other.
    HandedOver { value: T, fencing_token: u64 },
}

fn live(ends: Option<Instant>, now: Instant) -> bool {
    ends.is_none_or(|ends| now < ends)
}

impl<T> Slot<T> {
    /// Whether a sweep keeps the entry.
    fn is_live(&self, now: Instant) -> bool {
        match self {
            Slot::Claimed { .. } => true,
            Slot::Stored { expires, .. } => live(*expires, now),
            Slot::HandedOver { .. } => false,
        }
    }
}

impl<T> MemoryStore<T> {
    /// An empty store.
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
                last_fence: 0,
                sweep_at: SWEEP_FLOOR,
            }),
            settled: Condvar::new(),
        }
    }

    /// How many calls are waiting for the current claim on `key` to settle.
    ///
    /// ```
    /// use resilient::idempotency::{ClaimRequest, IdempotencyStore, MemoryStore};
    /// use std::time::Instant;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let store = MemoryStore::<u8>::new();
    /// store.claim("k", ClaimRequest::new(), Instant::now()).await.unwrap();
    /// let waiting = store.wait("k");
    /// assert_eq!(store.waiters("k"), 1);
    /// drop(waiting);
    /// assert_eq!(store.waiters("k"), 0);
    /// # }
    /// ```
    pub fn waiters(&self, key: &str) -> usize {
        match self.lock().entries.get(key) {
            Some(Slot::Claimed {
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
        let Some(Slot::Claimed { token: held, .. }) = state.entries.get(key) else {
            return false;
        };
        if *held != token {
            return false;
        }
        let removed = state.entries.remove(key);
        drop(state);
        if let Some(Slot::Claimed { waiters, .. }) = removed {
            self.wake(waiters);
        }
        true
    }

    /// Blocks until the claim on `key` settles, `timeout` passes, or a
    /// spurious wake-up; returns at once if `key` isn't claimed.
    pub(super) fn wait_blocking(&self, key: &str, timeout: Option<Duration>) {
        let mut state = self.lock();
        let Some(Slot::Claimed { waiters, .. }) = state.entries.get_mut(key) else {
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
    /// Looks `key` up, or claims it until released.
    pub(super) fn claim_now(&self, key: &str, request: ClaimRequest, now: Instant) -> Claim<T> {
        let mut state = self.lock();
        state.sweep_if_due(now);
        let waiters = match state.entries.get_mut(key) {
            Some(Slot::Stored {
                value,
                fingerprint,
                expires,
            }) if live(*expires, now) => {
                if request.conflicts_with(*fingerprint) {
                    return Claim::Conflict;
                }
                return Claim::Stored(value.clone());
            }
            Some(Slot::Claimed {
                fencing_token,
                fingerprint,
                ..
            }) => {
                if request.conflicts_with(*fingerprint) {
                    return Claim::Conflict;
                }
                return Claim::InFlight {
                    expires_in: None,
                    fencing_token: Some(*fencing_token),
                };
            }
            Some(Slot::HandedOver {
                value,
                fencing_token,
            }) if request.joined == Some(*fencing_token) => {
                return Claim::Stored(value.clone());
            }
            // Expired, or handed over to other waiters: free.
            Some(_) | None => None,
        };
        state.last_token = state.last_token.wrapping_add(1);
        state.last_fence = state.last_fence.saturating_add(1);
        let token = ClaimToken::from_u128(state.last_token);
        let fencing_token = state.last_fence;
        state.entries.insert(
            key.to_owned(),
            Slot::Claimed {
                token,
                fencing_token,
                fingerprint: request.fingerprint,
                waiters,
            },
        );
        Claim::Acquired {
            token,
            lease: Duration::MAX,
            fencing_token,
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
        let (waiters, fencing_token, fingerprint) = match entry {
            Slot::Claimed {
                token: held,
                waiters,
                fencing_token,
                fingerprint,
            } if *held == token => (waiters.take(), *fencing_token, *fingerprint),
            _ => return false,
        };
        *entry = if ttl.is_zero() {
            Slot::HandedOver {
                value,
                fencing_token,
            }
        } else {
            Slot::Stored {
                value,
                fingerprint,
                expires: now.checked_add(ttl),
            }
        };
        drop(state);
        self.wake(waiters);
        true
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
        request: ClaimRequest,
        now: Instant,
    ) -> impl Future<Output = Result<Claim<T>, StoreError>> + Send {
        future::ready(Ok(self.claim_now(key, request, now)))
    }

    fn wait(&self, key: &str) -> impl Future<Output = Result<(), StoreError>> + Send {
        // Registered now, under the lock, so a claim that settles before the
        // future is first polled still wakes it.
        let notified = match self.lock().entries.get_mut(key) {
            Some(Slot::Claimed { waiters, .. }) => {
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
        _now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        // A claim lasts as long as its holder: nothing to extend.
        let held = matches!(
            self.lock().entries.get(key),
            Some(Slot::Claimed { token: held, .. }) if *held == token
        );
        future::ready(Ok(held))
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
            let token = acquired(store.claim_now(&key, ClaimRequest::new(), start));
            assert!(store.complete_now(&key, token, &1, Duration::from_secs(1), start));
        }
        assert_eq!(store.lock().entries.len(), SWEEP_FLOOR);

        let later = start + Duration::from_secs(1);
        acquired(store.claim_now("fresh", ClaimRequest::new(), later));
        // The sweep ran before "fresh" was inserted: only it is left.
        assert_eq!(store.lock().entries.len(), 1);
        assert_eq!(store.lock().sweep_at, SWEEP_FLOOR);
    }

    #[test]
    fn a_sweep_keeps_live_entries_and_waits_for_the_map_to_double_again() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        for i in 0..=SWEEP_FLOOR {
            acquired(store.claim_now(&format!("k{i}"), ClaimRequest::new(), now));
        }
        // The claim that found 64 entries swept them, kept all (they live),
        // and put the next sweep at twice that.
        assert_eq!(store.lock().entries.len(), SWEEP_FLOOR + 1);
        assert_eq!(store.lock().sweep_at, SWEEP_FLOOR * 2);
    }

    #[test]
    fn only_the_holder_completes_or_releases() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        let token = acquired(store.claim_now("k", ClaimRequest::new(), now));
        let stranger = ClaimToken::from_u128(token.as_u128() + 100);

        assert!(!store.release_now("k", stranger));
        assert!(!store.complete_now("k", stranger, &5, Duration::from_secs(1), now));
        assert!(matches!(
            store.claim_now("k", ClaimRequest::new(), now),
            Claim::InFlight {
                expires_in: None,
                ..
            }
        ));
        assert!(store.release_now("k", token));
        assert!(!store.release_now("k", token));
    }

    #[test]
    fn a_claim_outlives_any_time_its_holder_takes() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        let token = acquired(store.claim_now("k", ClaimRequest::new(), now));
        let much_later = now + Duration::from_secs(1 << 40);
        assert!(matches!(
            store.claim_now("k", ClaimRequest::new(), much_later),
            Claim::InFlight { .. }
        ));
        assert!(store.complete_now("k", token, &3, Duration::MAX, much_later));
        assert_eq!(
            store.claim_now(
                "k",
                ClaimRequest::new(),
                much_later + Duration::from_secs(1 << 40)
            ),
            Claim::Stored(3)
        );
    }

    #[test]
    fn fencing_tokens_grow_with_every_claim() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        let fence = |claim| match claim {
            Claim::Acquired { fencing_token, .. } => fencing_token,
            _ => panic!("expected the key to be claimed"),
        };
        let first = store.claim_now("k", ClaimRequest::new(), now);
        let Claim::Acquired { token, .. } = first else {
            panic!()
        };
        let first = fence(first);
        assert!(store.release_now("k", token));
        let second = fence(store.claim_now("k", ClaimRequest::new(), now));
        let other = fence(store.claim_now("j", ClaimRequest::new(), now));
        assert!(first < second && second < other, "{first} {second} {other}");
    }

    #[test]
    fn a_value_handed_over_reaches_only_the_waiters_of_its_claim() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        let Claim::Acquired {
            token,
            fencing_token,
            ..
        } = store.claim_now("k", ClaimRequest::new(), now)
        else {
            panic!("expected the key to be claimed");
        };
        assert!(store.complete_now("k", token, &8, Duration::ZERO, now));
        let waiter = ClaimRequest::new().joined(Some(fencing_token));
        assert_eq!(store.claim_now("k", waiter, now), Claim::Stored(8));
        assert_eq!(store.claim_now("k", waiter, now), Claim::Stored(8));
        acquired(store.claim_now("k", ClaimRequest::new(), now));
    }

    #[test]
    fn a_key_held_under_another_fingerprint_conflicts() {
        let store = MemoryStore::<u32>::new();
        let now = Instant::now();
        let with = |fingerprint| ClaimRequest::new().fingerprint(Some(fingerprint));
        let token = acquired(store.claim_now("k", with(1), now));
        assert_eq!(store.claim_now("k", with(2), now), Claim::Conflict);
        assert!(matches!(
            store.claim_now("k", with(1), now),
            Claim::InFlight { .. }
        ));
        assert!(store.complete_now("k", token, &4, Duration::from_secs(9), now));
        assert_eq!(store.claim_now("k", with(2), now), Claim::Conflict);
        assert_eq!(store.claim_now("k", with(1), now), Claim::Stored(4));
        assert_eq!(
            store.claim_now("k", ClaimRequest::new(), now),
            Claim::Stored(4)
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
        let token = acquired(store.claim_now("k", ClaimRequest::new(), now));
        assert!(store.complete_now("k", token, &Fragile, Duration::from_secs(30), now));

        REFUSE.store(true, Ordering::Relaxed);
        let replay = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.claim_now("k", ClaimRequest::new(), now)
        }));
        REFUSE.store(false, Ordering::Relaxed);
        assert!(replay.is_err());
        assert!(store.state.is_poisoned());

        assert_eq!(
            store.claim_now("k", ClaimRequest::new(), now),
            Claim::Stored(Fragile)
        );
        let other = acquired(store.claim_now("j", ClaimRequest::new(), now));
        assert!(store.release_now("j", other));
    }
}
