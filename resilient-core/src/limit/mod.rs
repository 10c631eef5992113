//! Admission control: limiters an attempt takes a permit from before it
//! starts, and returns it to when it ends.
//!
//! | limiter | admits | pick it when |
//! |---|---|---|
//! | [`Bulkhead`] | at most `max` attempts in flight | a dependency falls over beyond a known concurrency (a pool of 32 connections) |
//! | [`RateLimiter`] | `n` attempts a second or a minute, with a burst (GCRA) | a provider publishes a quota (60 requests a minute) |
//! | [`AdaptiveLimit`] | a concurrency it finds from the attempts' latency and drops | the right concurrency is unknown or moves with the load |
//! | [`AdaptiveRate`] | everything until throttled, then a rate that backs off and recovers (CUBIC) | a provider throttles with 429s or Retry-After but publishes no quota |
//! | `RedisRateLimiter` (feature `redis`) | a [`RateLimiter`]'s rate across every process on one Redis server | the quota is the fleet's, not each process's |
//!
//! Every limiter implements [`Limiter`], so that a call can take its
//! permits from a list of them, in order, and users can write their own.
//!
//! ```
//! use resilient::limit::{Bulkhead, Completion, Limiter};
//! use std::time::{Duration, Instant};
//!
//! static DATABASE: Bulkhead = Bulkhead::new(2);
//!
//! let now = Instant::now();
//! DATABASE.try_acquire(now)?;
//! DATABASE.try_acquire(now)?;
//! assert!(DATABASE.try_acquire(now).is_err());
//! DATABASE.release(now, Duration::from_millis(3), Completion::Succeeded);
//! assert_eq!(DATABASE.available(), 1);
//! # Ok::<(), resilient::LimitExceeded>(())
//! ```
//!
//! # Layout
//!
//! * `bulkhead.rs`, `rate.rs`, `adaptive.rs`, `cubic.rs`: the limiters;
//! * `admit.rs`: permits taken from a list of limiters, waiting for them
//!   up to a bound, and returned when the attempt ends;
//! * `redis.rs`: `RedisRateLimiter`, the rate limiter's GCRA on a Redis
//!   key (feature `redis`);
//! * `atomic.rs`: std's or loom's atomics; `loom.rs`: the loom models.

mod adaptive;
pub(crate) mod admit;
mod atomic;
mod bulkhead;
mod cubic;
#[cfg(all(test, loom))]
mod loom;
mod rate;
#[cfg(feature = "redis")]
mod redis;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

pub use crate::error::{LimitExceeded, LimitExceededError};
#[cfg(feature = "http")]
pub use crate::priority::priority_extension;
pub use crate::priority::{Priorities, Priority};
pub use adaptive::AdaptiveLimit;
pub use bulkhead::Bulkhead;
pub use cubic::AdaptiveRate;
pub use rate::RateLimiter;
#[cfg(feature = "redis")]
pub use redis::{RedisRateLimiter, WhenUnreachable};

/// Something that admits attempts: a permit is taken before an attempt
/// starts and returned when it ends.
///
/// Every [`try_acquire`](Limiter::try_acquire) that returns `Ok` is
/// matched by exactly one [`release`](Limiter::release). A limiter that
/// refuses says, where it knows, when a permit may be free; one whose
/// permits come back when attempts end offers [`Waiters`] to wake the
/// callers that wait for them.
///
/// ```
/// use resilient::LimitExceeded;
/// use resilient::limit::{Completion, Limiter};
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::time::{Duration, Instant};
///
/// /// Admits nothing while a maintenance switch is on.
/// struct Maintenance(AtomicBool);
///
/// impl Limiter for Maintenance {
///     fn try_acquire(&self, _now: Instant) -> Result<(), LimitExceeded> {
///         if self.0.load(Ordering::Relaxed) {
///             return Err(LimitExceeded::new(self.name(), Some(Duration::from_secs(60))));
///         }
///         Ok(())
///     }
///     fn release(&self, _now: Instant, _rtt: Duration, _completion: Completion) {}
///     fn name(&self) -> &'static str {
///         "maintenance"
///     }
/// }
///
/// let switch = Maintenance(AtomicBool::new(true));
/// let refusal = switch.try_acquire(Instant::now()).unwrap_err();
/// assert_eq!(refusal.limiter(), "maintenance");
/// assert_eq!(refusal.retry_after(), Some(Duration::from_secs(60)));
/// ```
pub trait Limiter: Send + Sync {
    /// Takes a permit at `now`, or says why not.
    fn try_acquire(&self, now: Instant) -> Result<(), LimitExceeded>;

    /// Takes a permit at `now` for a call of `priority`, or says why not.
    /// The default ignores the priority: [`try_acquire`](Limiter::try_acquire).
    /// A limiter that sheds by priority refuses a lower one while it
    /// keeps permits for higher ones (see [`Priorities`]), with
    /// [`LimitExceeded::shed`].
    fn try_acquire_as(&self, now: Instant, priority: Priority) -> Result<(), LimitExceeded> {
        let _ = priority;
        self.try_acquire(now)
    }

    /// Returns a permit taken by [`try_acquire`](Limiter::try_acquire):
    /// the attempt ran for `rtt` and ended as `completion`.
    fn release(&self, now: Instant, rtt: Duration, completion: Completion);

    /// The name of this limiter, in [`LimitExceeded`] and as the
    /// `limiter` label of the metrics.
    fn name(&self) -> &'static str;

    /// Wakes callers waiting for a permit when one returns. `None` (the
    /// default) for a limiter whose refusals carry a
    /// [`retry_after`](LimitExceeded::retry_after), or whose permits never
    /// come back early.
    fn waiters(&self) -> Option<&Waiters> {
        None
    }

    /// Attempts holding a permit now, if this limiter counts them.
    fn in_flight(&self) -> Option<u32> {
        None
    }

    /// How many attempts may hold a permit at once now, for a limiter
    /// that counts them: a bulkhead's `max`, an adaptive limit's current
    /// limit.
    fn current_limit(&self) -> Option<u32> {
        None
    }

    /// For a limiter whose answer takes a round trip (to a server, as
    /// `RedisRateLimiter`'s): the answer of [`try_acquire`](Limiter::try_acquire)
    /// as a future, which async callers await instead of blocking their
    /// thread. `None` (the default): `try_acquire` answers at once.
    ///
    /// The caller may drop the future before it is ready (its own caller
    /// gave up): a permit counts as taken only once the future returns
    /// `Ok`, so a limiter whose permits come back must not count one
    /// before then. The permits the caller already took from the limiters
    /// before this one are returned either way, as
    /// [`Completion::Unused`].
    fn try_acquire_async(&self, now: Instant) -> Option<AcquireFuture<'_>> {
        let _ = now;
        None
    }
}

/// The answer of a limiter that takes a round trip: see
/// [`Limiter::try_acquire_async`].
pub type AcquireFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), LimitExceeded>> + Send + 'a>>;

/// A limiter behind a reference or an `Arc` is that limiter: the tower
/// layer and the reqwest middleware take a `&'static` one or an `Arc`.
macro_rules! forward_limiter {
    ($($holder:ty),*) => {$(
        impl<L: Limiter + ?Sized> Limiter for $holder {
            #[inline]
            fn try_acquire(&self, now: Instant) -> Result<(), LimitExceeded> {
                (**self).try_acquire(now)
            }
            #[inline]
            fn try_acquire_as(&self, now: Instant, priority: Priority) -> Result<(), LimitExceeded> {
                (**self).try_acquire_as(now, priority)
            }
            #[inline]
            fn release(&self, now: Instant, rtt: Duration, completion: Completion) {
                (**self).release(now, rtt, completion)
            }
            fn name(&self) -> &'static str {
                (**self).name()
            }
            fn waiters(&self) -> Option<&Waiters> {
                (**self).waiters()
            }
            fn in_flight(&self) -> Option<u32> {
                (**self).in_flight()
            }
            fn current_limit(&self) -> Option<u32> {
                (**self).current_limit()
            }
            fn try_acquire_async(&self, now: Instant) -> Option<AcquireFuture<'_>> {
                (**self).try_acquire_async(now)
            }
        }
    )*};
}

forward_limiter!(&L, std::sync::Arc<L>);

/// How an attempt that held a permit ended: what the adaptive limiters
/// learn from.
///
/// ```
/// use resilient::limit::{AdaptiveLimit, Completion, Limiter};
/// use std::time::{Duration, Instant};
///
/// let limit = AdaptiveLimit::aimd().initial(30);
/// let now = Instant::now();
/// limit.try_acquire(now)?;
/// limit.release(now, Duration::from_millis(5), Completion::Dropped);
/// assert_eq!(limit.limit(), 27);
/// # Ok::<(), resilient::LimitExceeded>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Completion {
    /// It succeeded, or failed with an error that is not the dependency's
    /// fault (a fatal error).
    Succeeded,
    /// It timed out or failed with a retryable error: the dependency is
    /// overloaded or unreachable.
    Dropped,
    /// The dependency asked to slow down (a Retry-After hint).
    Throttled,
    /// It never reached the dependency, or its result was not waited
    /// for: another limiter refused, or the attempt was cancelled.
    Unused,
}

/// The callers waiting for a limiter's permit, to wake when one returns:
/// async callers through a `tokio::sync::Notify`, blocking ones through a
/// condition variable. A limiter embeds one, returns it from
/// [`Limiter::waiters`] and calls [`wake`](Waiters::wake) after each
/// release; waking costs one atomic read while nobody waits.
///
/// ```
/// use resilient::limit::Waiters;
///
/// static WAITERS: Waiters = Waiters::new();
/// WAITERS.wake(); // nobody waits: nothing to do
/// ```
#[derive(Debug)]
pub struct Waiters {
    waiting: AtomicUsize,
    /// Made when the first caller waits; with the `config` feature, also
    /// woken by every [`install`](crate::config::install) and
    /// [`clear`](crate::config::clear), which may have resized the limiter.
    woken: OnceLock<Arc<Woken>>,
}

/// How waiting callers are woken: async ones through a `Notify`, blocking
/// ones through a condition variable.
#[derive(Debug, Default)]
struct Woken {
    notify: tokio::sync::Notify,
    lock: Mutex<()>,
    ready: Condvar,
}

impl Woken {
    /// Wakes every caller waiting, so that each tries again.
    fn wake(&self) {
        self.notify.notify_waiters();
        let _held = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.ready.notify_all();
    }
}

#[cfg(feature = "config")]
impl crate::config::Resized for Woken {
    fn wake(&self) {
        Woken::wake(self);
    }
}

impl Default for Waiters {
    fn default() -> Self {
        Self::new()
    }
}

impl Waiters {
    /// Nobody waiting yet.
    pub const fn new() -> Self {
        Self {
            waiting: AtomicUsize::new(0),
            woken: OnceLock::new(),
        }
    }

    /// Wakes every waiting caller, so that each tries again: call it after
    /// a permit returns.
    pub fn wake(&self) {
        // SeqCst pairs with `register`: a waiter that registered before
        // this load is woken; one that registers after it sees the permit
        // when it tries again.
        if self.waiting.load(Ordering::SeqCst) == 0 {
            return;
        }
        if let Some(woken) = self.woken.get() {
            woken.wake();
        }
    }

    /// How many callers wait now.
    ///
    /// ```
    /// use resilient::limit::{Bulkhead, Limiter};
    ///
    /// let pool = Bulkhead::new(1);
    /// assert_eq!(pool.waiters().map(|waiters| waiters.waiting()), Some(0));
    /// ```
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }

    /// Counts one more waiter until the guard drops.
    fn register(&self) -> Registered<'_> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        Registered(self)
    }

    /// A wake of the async callers waiting. One call, rather than a field
    /// read through [`woken`](Self::woken) in the caller, so that the
    /// caller's future keeps no reference to the `Woken` beside it.
    fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.woken().notify.notified()
    }

    /// How the waiting callers are woken, made at the first wait.
    fn woken(&self) -> &Woken {
        self.woken.get_or_init(|| {
            let woken = Arc::new(Woken::default());
            #[cfg(feature = "config")]
            crate::config::wake_on_install(Arc::downgrade(&woken) as _);
            woken
        })
    }
}

/// A waiter counted by [`Waiters::register`].
struct Registered<'a>(&'a Waiters);

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}
