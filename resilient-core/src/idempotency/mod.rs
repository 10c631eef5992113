//! Idempotent execution: a side effect runs once per key, in one process
//! ([`MemoryStore`]) or across a fleet (`RedisStore`, feature `redis`).
//!
//! A call names its effect with a key (an order id, a request's
//! `Idempotency-Key` header). [`run_idempotent`] then does one of three
//! things, and says which with an [`IdempotencyStatus`]:
//!
//! * **[`Replayed`](IdempotencyStatus::Replayed)**: a success stored under the
//!   key within its TTL is returned; nothing runs.
//! * **[`Joined`](IdempotencyStatus::Joined)**: the key is in flight in
//!   another call; this one waits for it and returns its value. If that call
//!   fails, is cancelled or its process dies, the waiter claims the key and
//!   runs itself. The wait is bounded: past `max_wait` the call fails with
//!   [`IdempotencyInFlight`].
//! * **[`Executed`](IdempotencyStatus::Executed)**: the call claims the key
//!   and runs. A success of the primary body is stored for the TTL
//!   ([`DEFAULT_TTL`] unless told); a failure, or a value the caller marks as
//!   not storable (a fallback's), releases the claim and caches nothing.
//!
//! ```
//! use resilient::TokioClock;
//! use resilient::idempotency::{run_idempotent, IdempotencyStatus, MemoryStore, DEFAULT_TTL};
//!
//! static PAYMENTS: MemoryStore<String> = MemoryStore::new();
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() -> Result<(), resilient::idempotency::IdempotencyError> {
//! let charge = || async { (Ok::<_, std::io::Error>("charged 42".to_owned()), true) };
//!
//! let (first, status) = run_idempotent(&PAYMENTS, "order-7", DEFAULT_TTL, None, &TokioClock, charge).await?;
//! assert_eq!((first.unwrap(), status), ("charged 42".to_owned(), IdempotencyStatus::Executed));
//!
//! let (again, status) = run_idempotent(&PAYMENTS, "order-7", DEFAULT_TTL, None, &TokioClock, charge).await?;
//! assert_eq!((again.unwrap(), status), ("charged 42".to_owned(), IdempotencyStatus::Replayed));
//! # Ok(())
//! # }
//! ```
//!
//! # The guarantee and its scope
//!
//! At most one primary execution per key per TTL, **as far as the store
//! guarantees it**:
//!
//! * [`MemoryStore`] holds keys in this process: exact (a claim lasts as
//!   long as its holder), but other processes don't see them.
//! * `RedisStore` holds them in one Redis instance: a claim is `SET NX` with
//!   a lease, so one process in a fleet runs the body and the others join it.
//!   It is not Redlock and makes no claim across several masters: a failover
//!   to a replica that had not yet received the claim (replication is
//!   asynchronous) can hand the same key to a second caller, and so can a
//!   leader that stalls longer than its lease (a long GC-like pause, a frozen
//!   VM) without noticing. Redis bounds how long a dead process blocks a key
//!   (its lease), not how long a live one may take.
//!
//! A process that dies holds its claim until the lease runs out (30 s by
//! default, renewed every half lease while the body runs). A call that is
//! cancelled (its future dropped) or panics releases its claim at once.
//! Every claim has a fencing token, larger than that of every earlier claim
//! of its key ([`current_claim`]), so that a downstream can refuse the
//! writes of a holder that was paused past its lease.
//!
//! # Implementing a store
//!
//! [`IdempotencyStore`] is the whole contract: five operations on a key. Its
//! documentation describes the protocol; the two stores here are worked
//! examples of it, in memory and on Redis.

mod claim;
pub(crate) mod coordinator;
pub(crate) mod erased;
mod error;
mod fingerprint;
mod memory;
#[cfg(feature = "redis")]
pub(crate) mod redis;
mod store;

use std::time::Duration;

pub use claim::{ClaimInfo, current_claim};
// A claim held by a call of the engine, between its two steps.
pub(crate) use coordinator::{
    Acquired, Refused, Request, acquire, acquire_blocking, run_held, run_held_blocking,
};
pub(crate) use coordinator::{Held, HeldInMemory};
// What `#[resilient(idempotency = …)]` runs an async call on.
pub use coordinator::{run_idempotent, run_idempotent_blocking};
pub use error::{
    IdempotencyConflict, IdempotencyConflictFailure, IdempotencyError, IdempotencyFailure,
    IdempotencyInFlight, StoreError,
};
pub use fingerprint::fingerprint_of;
pub use memory::MemoryStore;
#[cfg(feature = "redis")]
pub use redis::{RedisStore, RedisValue};
pub use store::{Claim, ClaimRequest, ClaimToken, IdempotencyStore};

/// How long a success stays stored when no TTL is given: 24 hours, the
/// window payment APIs commonly give their idempotency keys.
///
/// ```
/// use resilient::idempotency::DEFAULT_TTL;
/// use std::time::Duration;
///
/// assert_eq!(DEFAULT_TTL, Duration::from_secs(24 * 60 * 60));
/// ```
pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a claim in a shared store lasts without renewal, unless the
/// store is told otherwise: 30 seconds.
///
/// The running call renews its claim every half lease, so the lease bounds
/// only how long a process that died keeps others waiting. (A
/// [`MemoryStore`]'s claims need no lease: they last as long as their
/// holder.)
///
/// ```
/// use resilient::idempotency::DEFAULT_LEASE;
/// use std::time::Duration;
///
/// assert_eq!(DEFAULT_LEASE, Duration::from_secs(30));
/// ```
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// How an idempotent call got its result.
///
/// ```
/// use resilient::TokioClock;
/// use resilient::idempotency::{run_idempotent, IdempotencyStatus, MemoryStore, DEFAULT_TTL};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let store = MemoryStore::new();
/// let body = || async { (Ok::<u32, String>(7), true) };
/// let (_, status) = run_idempotent(&store, "k", DEFAULT_TTL, None, &TokioClock, body).await.unwrap();
/// assert_eq!(status, IdempotencyStatus::Executed);
/// let (_, status) = run_idempotent(&store, "k", DEFAULT_TTL, None, &TokioClock, body).await.unwrap();
/// assert_eq!(status, IdempotencyStatus::Replayed);
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IdempotencyStatus {
    /// A stored success was returned without running anything.
    Replayed,
    /// Another call held the key; this one waited and returned its value.
    Joined,
    /// This call claimed the key and ran the body.
    Executed,
}

impl IdempotencyStatus {
    /// The status's name, as the report's table and JSON give it: `replayed`,
    /// `joined` or `executed`. Fit for a response header:
    ///
    /// ```
    /// use resilient::idempotency::IdempotencyStatus;
    ///
    /// assert_eq!(IdempotencyStatus::Replayed.as_str(), "replayed");
    /// assert_eq!(IdempotencyStatus::Executed.to_string(), "executed");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            IdempotencyStatus::Replayed => "replayed",
            IdempotencyStatus::Joined => "joined",
            IdempotencyStatus::Executed => "executed",
        }
    }

    /// The report's JSON names every enum of it by `name()`.
    #[cfg(feature = "serde")]
    pub(crate) const fn name(self) -> &'static str {
        self.as_str()
    }
}

/// Writes [`as_str`](IdempotencyStatus::as_str).
impl std::fmt::Display for IdempotencyStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether an executed call's value was stored for later calls, and why
/// not: [`ExecutionReport::idempotency_stored`](crate::ExecutionReport::idempotency_stored),
/// JSON key `idempotency_stored`.
///
/// ```
/// use resilient::idempotency::IdempotencyStored;
///
/// assert!(IdempotencyStored::Stored.is_stored());
/// assert!(!IdempotencyStored::Unserializable.is_stored());
/// assert_eq!(IdempotencyStored::DoesNotReadBack.to_string(), "does_not_read_back");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IdempotencyStored {
    /// Stored for the TTL: later calls replay it.
    Stored,
    /// Handed to the calls waiting on this one, stored for none after
    /// (`idempotency_ttl = "0s"`).
    TtlZero,
    /// The call failed: nothing to store, the key is free again.
    Failure,
    /// A fallback's value: returned, never replayed.
    Fallback,
    /// A value chaos injected in place of the body's (`chaos_outcome`):
    /// returned, never replayed, since the body's side effect never ran.
    Injected,
    /// The store could not serialise the value.
    Unserializable,
    /// The value serialised to something that does not read back as the
    /// same type (`f64::NAN` becomes JSON `null`): stored, it would fail
    /// every later call, so it is not.
    DoesNotReadBack,
    /// The store failed (unreachable, an error of its own).
    StoreFailed,
    /// The call lost its claim before it finished (its lease ran out and
    /// another call took the key): the store refused the stale value.
    ClaimLost,
}

impl IdempotencyStored {
    /// Whether later calls replay the value.
    ///
    /// ```
    /// use resilient::idempotency::IdempotencyStored;
    ///
    /// assert!(!IdempotencyStored::TtlZero.is_stored());
    /// ```
    pub const fn is_stored(self) -> bool {
        matches!(self, IdempotencyStored::Stored)
    }

    /// The name in the report's JSON form.
    #[cfg(feature = "serde")]
    pub(crate) const fn name(self) -> &'static str {
        self.as_str()
    }

    /// Whether the store took the value (stored it, or handed it over).
    pub(crate) const fn completed(self) -> bool {
        matches!(self, IdempotencyStored::Stored | IdempotencyStored::TtlZero)
    }

    /// The name in the report's table and JSON form.
    ///
    /// ```
    /// use resilient::idempotency::IdempotencyStored;
    ///
    /// assert_eq!(IdempotencyStored::ClaimLost.as_str(), "claim_lost");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            IdempotencyStored::Stored => "stored",
            IdempotencyStored::TtlZero => "ttl_zero",
            IdempotencyStored::Failure => "failure",
            IdempotencyStored::Fallback => "fallback",
            IdempotencyStored::Injected => "injected",
            IdempotencyStored::Unserializable => "unserializable",
            IdempotencyStored::DoesNotReadBack => "does_not_read_back",
            IdempotencyStored::StoreFailed => "store_failed",
            IdempotencyStored::ClaimLost => "claim_lost",
        }
    }
}

impl std::fmt::Display for IdempotencyStored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
