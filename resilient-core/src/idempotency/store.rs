//! The contract between the coordinator and a place that holds idempotency
//! keys: [`IdempotencyStore`], what a claim asks ([`ClaimRequest`]) and
//! returns ([`Claim`]), and the token that proves who holds a key
//! ([`ClaimToken`]).

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
///    exactly one gets [`Claim::Acquired`], with a fencing token larger than
///    that of every earlier claim of the key. A stored value comes back as
///    [`Claim::Stored`] (nothing runs); a live claim as
///    [`Claim::InFlight`]; either, under another fingerprint than the
///    request's, as [`Claim::Conflict`].
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
///    A TTL of zero hands the value to the calls waiting on that claim only
///    (they claim again naming its fencing token in
///    [`ClaimRequest::joined`]); any other caller finds the key free.
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
///     run_idempotent, Claim, ClaimRequest, ClaimToken, IdempotencyStore, MemoryStore, StoreError,
///     DEFAULT_TTL,
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
///     fn claim(
///         &self,
///         key: &str,
///         request: ClaimRequest,
///         now: Instant,
///     ) -> impl Future<Output = Result<Claim<String>, StoreError>> + Send {
///         self.claims.fetch_add(1, Ordering::Relaxed);
///         self.inner.claim(key, request, now)
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
    /// store's lease if it is free, or reports that another call holds it,
    /// or that the key is held under another fingerprint than the
    /// request's.
    ///
    /// Atomic: two concurrent claims of a free key never both succeed, and
    /// each claim gets a fencing token larger than every earlier one of the
    /// key. A value handed over with a TTL of zero is returned only to a
    /// request that [`joined`](ClaimRequest::joined) the claim that stored
    /// it; to any other, the key is free.
    fn claim(
        &self,
        key: &str,
        request: ClaimRequest,
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
    /// still holds it; wakes the waiters. With a `ttl` of zero the value is
    /// kept only for the calls waiting on this claim (see
    /// [`claim`](Self::claim)).
    ///
    /// `Ok(false)` when the claim was lost (its lease ran out and another
    /// call took the key): nothing is stored. A store that keeps values in
    /// another form (JSON…) checks that the value reads back before storing
    /// it, and fails with [`StoreError::Serialize`] or
    /// [`StoreError::Deserialize`] otherwise: a value that can't be read back
    /// must not block its key.
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
/// use resilient::idempotency::{Claim, ClaimRequest, IdempotencyStore, MemoryStore};
/// use std::time::{Duration, Instant};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let store = MemoryStore::<u32>::new();
/// let now = Instant::now();
/// let request = ClaimRequest::new();
/// let Claim::Acquired { lease, fencing_token, .. } = store.claim("k", request, now).await.unwrap() else {
///     panic!("a free key is claimed");
/// };
/// // An in-process claim lasts as long as its holder.
/// assert_eq!(lease, Duration::MAX);
/// assert!(matches!(
///     store.claim("k", request, now).await.unwrap(),
///     Claim::InFlight { expires_in: None, fencing_token: Some(holder) } if holder == fencing_token
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
        /// How long the claim lasts without renewal; `Duration::MAX` for a
        /// claim that lasts as long as its holder (it is never renewed).
        lease: Duration,
        /// Larger than the fencing token of every earlier claim of the key.
        fencing_token: u64,
    },
    /// Another call holds the key.
    InFlight {
        /// The longest the holder's claim can last without a renewal, when
        /// the store knows: the coordinator wakes then to claim again.
        expires_in: Option<Duration>,
        /// The holder's fencing token, when the store knows it: a waiter
        /// names it when it claims again, to be handed a value stored with
        /// a TTL of zero.
        fencing_token: Option<u64>,
    },
    /// The key is claimed or stored under another fingerprint than the
    /// request's: the key was reused for other parameters.
    Conflict,
}

/// What a call asks of [`IdempotencyStore::claim`] besides the key.
///
/// ```
/// use resilient::idempotency::ClaimRequest;
///
/// let request = ClaimRequest::new().fingerprint(Some(0xfeed)).joined(Some(7));
/// assert_eq!((request.fingerprint, request.joined), (Some(0xfeed), Some(7)));
/// assert_eq!(ClaimRequest::new(), ClaimRequest::default());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ClaimRequest {
    /// The hash of the call's parameters: a key held under another
    /// fingerprint is a [`Claim::Conflict`]. `None`: not checked.
    pub fingerprint: Option<u64>,
    /// The fencing token of the claim this call waited on, if it waited.
    pub joined: Option<u64>,
}

impl ClaimRequest {
    /// A request without a fingerprint, from a call that has not waited.
    pub const fn new() -> ClaimRequest {
        ClaimRequest {
            fingerprint: None,
            joined: None,
        }
    }

    /// Sets the fingerprint of the call's parameters.
    pub const fn fingerprint(mut self, fingerprint: Option<u64>) -> ClaimRequest {
        self.fingerprint = fingerprint;
        self
    }

    /// Sets the fencing token of the claim the call waited on.
    pub const fn joined(mut self, joined: Option<u64>) -> ClaimRequest {
        self.joined = joined;
        self
    }

    /// Whether a key held under `held` conflicts with this request: both
    /// have a fingerprint, and they differ.
    pub fn conflicts_with(&self, held: Option<u64>) -> bool {
        matches!((self.fingerprint, held), (Some(asked), Some(held)) if asked != held)
    }
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
        ClaimToken(
            u128::from(crate::seed::random_u64()) << 64 | u128::from(crate::seed::random_u64()),
        )
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
