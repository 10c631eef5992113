//! The process's retry budget: one [`RetryBudget`] that every operation
//! without a throttle of its own keeps its retries and hedges within,
//! turned on by [`budget_default`] or by a configuration's
//! `[throttles.default]` (feature `config`).
//!
//! An attribute's function, an `Operation` and the closure API have no
//! retry budget unless given one: a function has no client to share one
//! with. A process that wants every call bounded turns the default on once;
//! the tower layer and the reqwest middleware keep their own per-client
//! budget whatever this says.
//!
//! While no default is in force, an operation reads one relaxed atomic to
//! learn so. While one is, every call goes through the engine, which tells
//! the budget of each attempt's result and asks it before each retry.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{PoisonError, RwLock};

use super::RetryBudget;
#[cfg(feature = "config")]
use super::RetryThrottle;

/// The budget [`budget_default`] set, if any.
static SET: RwLock<Option<&'static dyn RetryBudget>> = RwLock::new(None);

/// Whether [`budget_default`] set one: read before [`SET`], which is
/// locked only while it is.
static SET_IN_CODE: AtomicBool = AtomicBool::new(false);

/// The throttle that `[throttles.default]` turns on and sets: gRPC A6's
/// example numbers (10 tokens, 0.1 a success) unless the entry sets its
/// own. Its token count survives a reload, as any named throttle's.
#[cfg(feature = "config")]
static CONFIGURED: RetryThrottle =
    RetryThrottle::new(10, 0.1).named(crate::config::BUDGET_DEFAULT_NAME);

/// Makes `budget` the retry budget of every operation without a throttle
/// of its own: attribute functions, `Operation`s and the closure API, in
/// this whole process. It replaces a budget set before, and takes
/// precedence over a configuration's `[throttles.default]`.
///
/// An operation opts out with a throttle of its own:
/// [`Unlimited`] for none at all (`throttle = &Unlimited` on the
/// attribute, `.throttle(&Unlimited)` on the builders).
///
/// A process-wide setting: its example is a program of its own, so that
/// no other call in it meets the budget.
///
/// ```rust,standalone_crate
/// use resilient::throttle::{self, Unlimited};
/// use resilient::{Backoff, Operation, RetryThrottle, StopReason};
///
/// static BUDGET: RetryThrottle = RetryThrottle::new(4, 0.1);
/// throttle::budget_default(&BUDGET);
///
/// let failing = || Operation::new().max_attempts(5).backoff(Backoff::none());
/// // 4 tokens: a retry runs while more than 2 are left.
/// let first = failing().run(|_| Err::<(), _>("down"));
/// assert_eq!(first.report().attempt_count(), 2);
/// let second = failing().run(|_| Err::<(), _>("down"));
/// assert_eq!(second.report().stop_reason(), StopReason::Throttled);
///
/// // An operation with a throttle of its own keeps it.
/// let own = failing().throttle(&Unlimited).run(|_| Err::<(), _>("down"));
/// assert_eq!(own.report().attempt_count(), 5);
/// ```
pub fn budget_default(budget: &'static dyn RetryBudget) {
    *SET.write().unwrap_or_else(PoisonError::into_inner) = Some(budget);
    SET_IN_CODE.store(true, Ordering::Release);
}

/// Undoes [`budget_default`]: operations without a throttle of their own
/// go back to none, or to a configuration's `[throttles.default]`.
pub fn clear_budget_default() {
    let mut set = SET.write().unwrap_or_else(PoisonError::into_inner);
    *set = None;
    SET_IN_CODE.store(false, Ordering::Release);
}

/// The process's retry budget in force: the one [`budget_default`] set,
/// else the configured `[throttles.default]`, else none.
///
/// ```
/// use resilient::throttle;
///
/// assert!(throttle::budget_default_in_force().is_none());
/// ```
pub fn budget_default_in_force() -> Option<&'static dyn RetryBudget> {
    if SET_IN_CODE.load(Ordering::Acquire)
        && let Some(budget) = *SET.read().unwrap_or_else(PoisonError::into_inner)
    {
        return Some(budget);
    }
    #[cfg(feature = "config")]
    if crate::config::budget_default_configured() {
        return Some(&CONFIGURED);
    }
    None
}

/// Whether any default is in force: one or two relaxed loads, on every
/// call of an operation without a throttle of its own.
#[inline(always)]
pub(crate) fn in_force() -> bool {
    #[cfg(feature = "config")]
    if crate::config::budget_default_configured() {
        return true;
    }
    SET_IN_CODE.load(Ordering::Relaxed)
}

/// A retry budget that allows every retry and counts nothing: a throttle
/// of an operation's own that keeps it out of the process's
/// [`budget_default`].
///
/// ```
/// use resilient::RetryBudget;
/// use resilient::throttle::Unlimited;
///
/// Unlimited.record_failure();
/// assert!(Unlimited.allows_retry());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unlimited;

impl RetryBudget for Unlimited {
    fn record_failure(&self) {}

    fn record_success(&self) {}

    fn allows_retry(&self) -> bool {
        true
    }
}
