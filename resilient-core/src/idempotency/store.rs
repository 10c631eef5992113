//! The contract between the coordinator and a place that holds idempotency
//! keys: [`IdempotencyStore`], what a claim returns ([`Claim`]) and the token
//! that proves who holds a key ([`ClaimToken`]).

use std::fmt;
use std::future::Future;
use std::time::{Duration, Instant};

use super::StoreError;

/// Where idempotency keys live: claims of running calls and the successes
/// they stored.
///
/// [`MemoryStore`](super::MemoryStore) (one process) and `RedisStore` (a
/// fleet, feature `redis`) implement it; a table in SQLite or Postgres can
/// too. A key is in one of three states: **free**, **claimed** (a call is
/// running it, under a [`ClaimToken`], until its lease runs out) or
/// **stored** (a success, until its TTL runs out). An expired claim or value
/// is free.
///
/// # Protocol
///
/// [`run_idempotent`](super::run_idempotent) drives a store like this:
///
/// 1. **claim**: [`claim`](Self::claim) looks the key up and, if it is free,
///    claims it, atomically: of two callers that claim a free key at once,
///    exactly one gets [`Claim::Acquired`]. A stored value comes back as
///    [`Claim::Stored`] (nothing runs); a live claim as
///    [`Claim::InFlight`].
/// 2. **wait**: on `InFlight`, [`wait`](Self::wait) until the key may have
///    changed, then claim again. The coordinator bounds the wait itself (it
///    drops the future at its deadline, or when the holder's lease would
///    have run out), so `wait` needs no deadline.
/// 3. **renew**: while the body runs, [`renew`](Self::renew) every half
///    lease, so that only a holder that stopped (a dead process, a future
///    no one polls) loses the key.
/// 4. **complete** or **release**: after a storable success,
///    [`complete`](Self::complete) replaces the claim by the value for the
///    TTL; after a failure, [`release`](Self::release) frees the key. Both
///    act only if the token still holds the claim, so a holder whose lease
///    ran out can't overwrite or free the key of the caller that took over.
///
/// `now` is the operation's clock (as for the circuit breaker), so tests
/// drive expiry with paused or fake time. A store shared between processes
/// keeps time on its server instead and ignores it.
///
/// Methods return `Send` futures so that an `async fn` made idempotent stays
/// `Send`. They must not panic: [`release`](Self::release) also runs in a
/// drop guard, possibly while a panic unwinds.
///
/// # Example
///
/// A store that counts claims and leaves the rest to a [`MemoryStore`]:
///
/// [`MemoryStore`]: super::MemoryStore
///
/// ```
/// use resilient::TokioClock;
/// use resilient::idempotency::{
///     run_idempotent, Claim, ClaimToken, IdempotencyStore, MemoryStore, StoreError, DEFAULT_TTL,
/// };
/// use std::future::Future;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::{Duration, Instant};
///
/// struct Counted {
///     inner: MemoryStore<String>,
///     claims: AtomicU32,
/// }
///
/// impl IdempotencyStore<String> for Counted {
///     fn claim(&self, key: &str, now: Instant) -> impl Future<Output = Result<Claim<String>, StoreError>> + Send {
///         self.claims.fetch_add(1, Ordering::Relaxed);
///         self.inner.claim(key, now)
///     }
///     fn wait(&self, key: &str) -> impl Future<Output = Result<(), StoreError>> + Send {
///         self.inner.wait(key)
///     }
///     fn complete(
///         &self,
///         key: &str,
///         token: ClaimToken,
///         value: &String,
///         ttl: Duration,
///         now: Instant,
///     ) -> impl Future<Output = Result<bool, StoreError>> + Send {
///         self.inner.complete(key, token, value, ttl, now)
///     }
///     fn release(&self, key: &str, token: ClaimToken) -> impl Future<Output = Result<bool, StoreError>> + Send + 'static {
///         IdempotencyStore::<String>::release(&self.inner, key, token)
///     }
///     fn renew(&self, key: &str, token: ClaimToken, now: Instant) -> impl Future<Output = Result<bool, StoreError>> + Send {
///         IdempotencyStore::<String>::renew(&self.inner, key, token, now)
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let store = Counted { inner: MemoryStore::new(), claims: AtomicU32::new(0) };
/// let body = || async { (Ok::<_, String>("sent".to_owned()), true) };
/// for _ in 0..3 {
///     let (result, _) = run_idempotent(&store, "mail-1", DEFAULT_TTL, None, &TokioClock, body).await.unwrap();
///     assert_eq!(result.unwrap(), "sent");
/// }
/// assert_eq!(store.claims.load(Ordering::Relaxed), 3);
/// # }
/// ```
pub trait IdempotencyStore<T>: Send + Sync {
    /// Returns the value stored under `key`, or claims the key for this
    /// store's lease if it is free, or reports that another call holds it.
    ///
    /// Atomic: two concurrent claims of a free key never both succeed.
    fn claim(
        &self,
        key: &str,
        now: Instant,
    ) -> impl Future<Output = Result<Claim<T>, StoreError>> + Send;

    /// Resolves once `key` may have left the claimed state: its claim was
    /// completed, released, or ran out.
    ///
    /// It may resolve early (the coordinator then claims, and waits again),
    /// but not at once while the claim stands: a store that can't be told of
    /// changes polls with a backoff. It need not time out: the coordinator
    /// drops it at its own deadline.
    fn wait(&self, key: &str) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Stores `value` under `key` for `ttl`, replacing the claim, if `token`
    /// still holds it; wakes the waiters.
    ///
    /// `Ok(false)` when the claim was lost (its lease ran out and another
    /// call took the key): nothing is stored.
    fn complete(
        &self,
        key: &str,
        token: ClaimToken,
        value: &T,
        ttl: Duration,
        now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Frees `key` if `token` still holds it; wakes the waiters.
    ///
    /// `Ok(false)` when the claim was already gone. The future must own
    /// what it needs (`'static`): the coordinator also releases from a drop
    /// guard, where it can't await; there it polls the future once and, if
    /// that doesn't finish it, spawns the rest on the current tokio runtime
    /// (without a runtime, the claim is left to run out its lease).
    fn release(
        &self,
        key: &str,
        token: ClaimToken,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'static;

    /// Extends the claim on `key` to a full lease from now, if `token` still
    /// holds it.
    ///
    /// `Ok(false)` when the claim was lost.
    fn renew(
        &self,
        key: &str,
        token: ClaimToken,
        now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
}

/// What [`IdempotencyStore::claim`] found under a key.
///
/// ```
/// use resilient::idempotency::{Claim, IdempotencyStore, MemoryStore};
/// use std::time::{Duration, Instant};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let store = MemoryStore::<u32>::new();
/// let now = Instant::now();
/// let Claim::Acquired { lease, .. } = store.claim("k", now).await.unwrap() else {
///     panic!("a free key is claimed");
/// };
/// assert_eq!(lease, Duration::from_secs(30));
/// assert!(matches!(
///     store.claim("k", now).await.unwrap(),
///     Claim::InFlight { expires_in: Some(left) } if left == Duration::from_secs(30)
/// ));
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim<T> {
    /// A success stored under the key, within its TTL.
    Stored(T),
    /// The key was free and is now held by the caller.
    Acquired {
        /// Proves the claim is the caller's: pass it to complete, release
        /// and renew.
        token: ClaimToken,
        /// How long the claim lasts without renewal.
        lease: Duration,
    },
    /// Another call holds the key.
    InFlight {
        /// The longest the holder's claim can last without a renewal, when
        /// the store knows: the coordinator wakes then to claim again.
        expires_in: Option<Duration>,
    },
}

/// Proof that a claim is the caller's: a 128-bit value unique to one claim.
///
/// Stores compare it before completing, releasing or renewing a claim, so
/// that a call whose lease ran out can't touch the claim of the call that
/// took over. Shown as 32 hex digits.
///
/// ```
/// use resilient::idempotency::ClaimToken;
///
/// let token = ClaimToken::from_u128(0xfeed);
/// assert_eq!(token.as_u128(), 0xfeed);
/// assert_eq!(token.to_string(), "0000000000000000000000000000feed");
/// assert_ne!(ClaimToken::random(), ClaimToken::random());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClaimToken(u128);

impl ClaimToken {
    /// A token from a random 128-bit value: unique across processes, for
    /// stores shared between them.
    pub fn random() -> ClaimToken {
        ClaimToken(rand::random())
    }

    /// A token from a known value, for stores that number their claims or
    /// read tokens back from their backend.
    pub const fn from_u128(value: u128) -> ClaimToken {
        ClaimToken(value)
    }

    /// The token's value.
    pub const fn as_u128(self) -> u128 {
        self.0
    }
}

impl fmt::Display for ClaimToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl fmt::Debug for ClaimToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ClaimToken({self})")
    }
}
