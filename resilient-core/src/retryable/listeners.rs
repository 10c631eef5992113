//! A [`Retry`]'s listeners (of each retry, borrowing the error before the
//! wait or taking it after; of the report), and its own schedule of
//! delays.

use std::time::Duration;

use crate::engine::hooks::{
    CustomDelays, ErrorListener, ReportHook, RetriedListener, RetryEvent, RetryListener,
};
use crate::report::ExecutionReport;

use super::{Exclusive, Retry, Shape};

/// The hooks of a [`Retry`] given [`delays`](Retry::delays): the
/// iterator's, on top of `H`.
type Schedule<I, H> = CustomDelays<Exclusive<<I as IntoIterator>::IntoIter>, H>;

impl<'b, F, S: Shape, H, K, W, B, G> Retry<'b, F, S, H, K, W, B, G> {
    /// Calls `listener` before each wait with the error that caused the
    /// retry and the delay about to be slept; never after the final
    /// attempt.
    ///
    /// ```
    /// use resilient::{Backoff, FakeClock, RetryPolicy, Retryable};
    /// use std::cell::RefCell;
    /// use std::time::Duration;
    ///
    /// let policy = RetryPolicy::builder()
    ///     .max_attempts(3)
    ///     .backoff(Backoff::constant(Duration::from_secs(1)))
    ///     .build()?;
    /// let heard = RefCell::new(Vec::new());
    /// let mut status = 500;
    /// let _ = (|| { status += 1; Err::<(), _>(status) })
    ///     .retry(&policy)
    ///     .notify(|status: &u16, next| heard.borrow_mut().push((*status, next)))
    ///     .clock(FakeClock::new())
    ///     .call();
    /// assert_eq!(*heard.borrow(), [(501, Duration::from_secs(1)), (502, Duration::from_secs(1))]);
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    #[inline]
    pub fn notify<N>(
        self,
        listener: N,
    ) -> Retry<'b, F, S, ErrorListener<Exclusive<N>, H>, K, W, B, G>
    where
        N: FnMut(&S::Err, Duration),
    {
        with!(self, op: self.op.error_listener(Exclusive::new(listener)))
    }

    /// Takes each retried error by value, once the engine is done with
    /// it: `listener` gets the error, the number of the attempt that
    /// failed with it and the wait after it, as the next attempt begins
    /// (after that wait; [`notify`](Retry::notify) borrows the error
    /// before it). The report keeps the error's text; the error that ends
    /// the call is not handed over but returned, as the outcome's. Where
    /// no attempt follows (the caller dropped the call during the wait,
    /// or a shutdown's grace deadline passed), the error goes with the
    /// call, untaken.
    ///
    /// For an error that isn't `Clone` and belongs to a caller's callback,
    /// as a loop over backon hands it:
    ///
    /// ```
    /// use resilient::{Backoff, FakeClock, Jitter, RetryPolicy, Retryable};
    /// use std::time::Duration;
    ///
    /// #[derive(Debug)]
    /// struct Upload(String); // not Clone
    ///
    /// let policy = RetryPolicy::builder()
    ///     .max_attempts(3)
    ///     .backoff(Backoff::exponential(Duration::from_secs(1), Duration::from_secs(60)).jitter(Jitter::None))
    ///     .build()?;
    /// let mut failures = Vec::new();
    /// let mut tries = 0;
    /// let outcome = (|| {
    ///     tries += 1;
    ///     Err::<(), _>(Upload(format!("part {tries} refused")))
    /// })
    /// .retry(&policy)
    /// .take_retried(|error: Upload, attempt, waited| failures.push((error.0, attempt, waited)))
    /// .clock(FakeClock::new())
    /// .call();
    /// assert_eq!(outcome.into_result().unwrap_err().0, "part 3 refused");
    /// assert_eq!(failures, [
    ///     ("part 1 refused".to_owned(), 1, Duration::from_secs(1)),
    ///     ("part 2 refused".to_owned(), 2, Duration::from_secs(2)),
    /// ]);
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    #[inline]
    pub fn take_retried<L>(
        self,
        listener: L,
    ) -> Retry<'b, F, S, RetriedListener<Exclusive<L>, H>, K, W, B, G>
    where
        L: FnMut(S::Err, u32, Duration),
    {
        with!(self, op: self.op.retried_listener(Exclusive::new(listener)))
    }

    /// Calls `listener` before each wait with the engine's [`RetryEvent`]
    /// (the attempt, the delay and its source, the recorded error), as
    /// the attribute's `on_retry` does.
    #[inline]
    pub fn on_retry<L>(self, listener: L) -> Retry<'b, F, S, RetryListener<L, H>, K, W, B, G>
    where
        L: Fn(&RetryEvent<'_>),
    {
        with!(self, op: self.op.on_retry(listener))
    }

    /// Calls `listener` before each wait with the event (the attempt that
    /// failed, the delay, its source) and the typed error that caused the
    /// retry: [`notify`](Retry::notify) with the attempt's number.
    #[inline]
    pub fn on_retry_error<L>(self, listener: L) -> Retry<'b, F, S, ErrorListener<L, H>, K, W, B, G>
    where
        L: Fn(&RetryEvent<'_>, &S::Err),
    {
        with!(self, op: self.op.on_retry_error(listener))
    }

    /// Hands the report to `hook` when the call ends, before the outcome
    /// is returned.
    #[inline]
    pub fn on_report<R>(self, hook: R) -> Retry<'b, F, S, ReportHook<R, H>, K, W, B, G>
    where
        R: Fn(&ExecutionReport),
    {
        with!(self, op: self.op.on_report(hook))
    }

    /// The delays before the retries, from any iterator of `Duration`s, in
    /// place of the policy's backoff: backon's backoffs are iterators, and
    /// a schedule of one's own is `std::iter::from_fn`. Each delay is
    /// slept as it comes, with no jitter and no `max_delay`; once the
    /// iterator ends, so do the retries
    /// ([`AttemptsExhausted`](crate::StopReason::AttemptsExhausted)). The
    /// policy's `max_attempts`, a budget and a Retry-After hint still
    /// apply; a wait a hint decides takes nothing from the iterator.
    ///
    /// ```
    /// use resilient::{FakeClock, RetryPolicy, Retryable, StopReason};
    /// use std::time::Duration;
    ///
    /// // The policy bounds nothing here: the schedule does.
    /// static POLICY: RetryPolicy = RetryPolicy::builder().max_attempts(u32::MAX).build_const();
    ///
    /// let clock = FakeClock::new();
    /// let mut next = Duration::from_millis(250);
    /// let doubling_to_a_second = std::iter::from_fn(move || {
    ///     let delay = next;
    ///     next = (next * 2).min(Duration::from_secs(1));
    ///     Some(delay)
    /// });
    /// let outcome = (|| Err::<(), _>("busy"))
    ///     .retry(&POLICY)
    ///     .delays(doubling_to_a_second.take(4))
    ///     .clock(&clock)
    ///     .call();
    /// assert_eq!(clock.slept(), [250, 500, 1000, 1000].map(Duration::from_millis));
    /// assert_eq!(outcome.report().stop_reason(), StopReason::AttemptsExhausted);
    /// ```
    #[inline]
    pub fn delays<I>(self, delays: I) -> Retry<'b, F, S, Schedule<I, H>, K, W, B, G>
    where
        I: IntoIterator<Item = Duration>,
    {
        with!(self, op: self.op.custom_delays(Exclusive::new(delays.into_iter())))
    }
}
