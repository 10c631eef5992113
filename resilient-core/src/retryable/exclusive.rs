//! [`Exclusive`]: an `FnMut` listener or predicate, as the closure API
//! takes them (backon's hooks are `FnMut`), called through `&self` under
//! a lock of its own.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::engine::hooks::{Classify, NextDelay, OnRetryError, RetryEvent, TakeRetried};

/// An `FnMut` the engine calls through a shared reference: kept in a
/// `Mutex`, so that a closure that counts or collects needs no `Cell` or
/// lock of its own, and the retry's future stays `Send` whenever the
/// closure is. Made by [`Retry::when`](super::Retry::when) and
/// [`Retry::notify`](super::Retry::notify); named only in types.
pub struct Exclusive<F>(Mutex<F>);

impl<F> Exclusive<F> {
    pub(super) fn new(f: F) -> Exclusive<F> {
        Exclusive(Mutex::new(f))
    }

    fn with<R>(&self, call: impl FnOnce(&mut F) -> R) -> R {
        // A panic in the closure poisons the lock; the next call goes on
        // with the closure as it was left, as a `RefCell` would.
        call(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl<F> std::fmt::Debug for Exclusive<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Exclusive(..)")
    }
}

/// `when`: whether an error is retried.
impl<E, F: FnMut(&E) -> bool> Classify<E> for Exclusive<F> {
    fn is_retryable(&self, error: &E) -> bool {
        self.with(|when| when(error))
    }
}

/// `notify`: the error that caused a retry and the delay about to be slept.
impl<E, F: FnMut(&E, Duration)> OnRetryError<E> for Exclusive<F> {
    fn on_retry(&self, event: &RetryEvent<'_>, error: &E) {
        self.with(|notify| notify(error, event.delay()));
    }
}

/// `take_retried`: each retried error by value, the attempt it ended and
/// the wait after it.
impl<E, F: FnMut(E, u32, Duration)> TakeRetried<E> for Exclusive<F> {
    fn take(&self, error: E, attempt: u32, waited: Duration) {
        self.with(|take| take(error, attempt, waited));
    }
}

/// `delays`: the schedule's iterator, one delay per retry, in order.
impl<I: Iterator<Item = Duration>> NextDelay for Exclusive<I> {
    fn next_delay(&self, _: u32) -> Option<Duration> {
        self.with(Iterator::next)
    }
}
