//! The setters of an [`Operation`] that push a hook onto its stack.

use std::time::Duration;

use super::Operation;
use crate::engine::hooks::{
    CustomDelays, ErrorListener, IgnoreIf, Listener, Notify, ReportHook, RetriedListener,
    RetryAfter, RetryEvent, RetryIf, RetryListener, Validator,
};
use crate::error::ValidationError;
use crate::report::ExecutionReport;

impl<'b, T, E, C, H> Operation<'b, T, E, C, H> {
    /// Retries only the errors for which `classify` returns `true`.
    #[inline]
    pub fn retry_if<F>(self, classify: F) -> Operation<'b, T, E, C, RetryIf<F, H>>
    where
        F: Fn(&E) -> bool,
    {
        with_part!(self, push RetryIf(classify))
    }

    /// Ignores the errors for which `ignore` returns `true`: such an error
    /// ends the call at once, never retried and without a fallback (the
    /// attribute's `fallback_on` or `fallback_if` may still choose it),
    /// with [`StopReason::Ignored`](crate::StopReason::Ignored), and counts
    /// as neither a success nor a failure for the circuit breaker, the
    /// retry throttle and the adaptive limits, as if the attempt had not
    /// run. For errors that say nothing of the dependency's health: a
    /// request the caller cancelled, a resource that doesn't exist.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitOpen, CircuitState, FakeClock, Operation, StopReason};
    /// use std::time::{Duration, Instant};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum Error { NotFound, Open }
    /// impl From<CircuitOpen> for Error {
    ///     fn from(_: CircuitOpen) -> Self { Error::Open }
    /// }
    /// impl std::fmt::Display for Error {
    ///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    ///         write!(f, "{self:?}")
    ///     }
    /// }
    ///
    /// let breaker = CircuitBreaker::builder()
    ///     .failure_threshold(1)
    ///     .break_duration(Duration::from_secs(30))
    ///     .build()?;
    /// let clock = FakeClock::new();
    /// for _ in 0..3 {
    ///     let outcome = Operation::new()
    ///         .max_attempts(3)
    ///         .ignore_if(|error: &Error| *error == Error::NotFound)
    ///         .circuit_breaker(&breaker)
    ///         .clock(clock.clone())
    ///         .run(|_attempt| Err::<(), _>(Error::NotFound));
    ///     assert_eq!(outcome.report().stop_reason(), StopReason::Ignored);
    /// }
    /// // Three ignored errors, and the breaker (one failure opens it) is still closed.
    /// assert_eq!(breaker.state(Instant::now()), CircuitState::Closed);
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    #[inline]
    pub fn ignore_if<F>(self, ignore: F) -> Operation<'b, T, E, C, IgnoreIf<F, H>>
    where
        F: Fn(&E) -> bool,
    {
        with_part!(self, push IgnoreIf(ignore))
    }

    /// Reads a Retry-After hint from retryable errors: such an error waits
    /// exactly the hint, without consuming a retry and without the backoff.
    #[inline]
    pub fn retry_after<F>(self, hint: F) -> Operation<'b, T, E, C, RetryAfter<F, H>>
    where
        F: Fn(&E) -> Option<std::time::Duration>,
    {
        with_part!(self, push RetryAfter(hint))
    }

    /// The former name of [`retry_after`](Operation::retry_after), easily
    /// taken for the rate limiter that [`limit`](Operation::limit) takes.
    #[doc(hidden)]
    #[deprecated(since = "0.1.0", note = "renamed `retry_after`")]
    #[inline]
    pub fn rate_limit<F>(self, hint: F) -> Operation<'b, T, E, C, RetryAfter<F, H>>
    where
        F: Fn(&E) -> Option<std::time::Duration>,
    {
        self.retry_after(hint)
    }

    /// Rejects successful values for which `check` returns `false`, as
    /// `E::from(ValidationFailed)`.
    #[inline]
    pub fn validate<F>(mut self, check: F) -> Operation<'b, T, E, C, Validator<F, H>>
    where
        F: Fn(&T) -> bool,
        E: ValidationError,
    {
        self.plan.invalid = Some(E::validation_failed);
        with_part!(self, push Validator(check))
    }

    /// Calls `listener` before each wait.
    #[inline]
    pub fn on_retry<F>(self, listener: F) -> Operation<'b, T, E, C, RetryListener<F, H>>
    where
        F: Fn(&RetryEvent<'_>),
    {
        with_part!(self, push RetryListener(listener))
    }

    /// Calls `listener` before each wait with the event and the error
    /// that caused the retry, typed: what the attribute's `on_retry`
    /// pushes for a closure of two parameters. It runs after a listener
    /// of [`on_retry`](Operation::on_retry), if both are set. See
    /// [`OnRetryError`](crate::hooks::OnRetryError).
    #[inline]
    pub fn on_retry_error<F>(self, listener: F) -> Operation<'b, T, E, C, ErrorListener<F, H>>
    where
        F: Fn(&RetryEvent<'_>, &E),
    {
        with_part!(self, push ErrorListener(listener))
    }

    /// Pushes a typed listener of any kind (the closure API's `FnMut` ones).
    #[inline]
    pub(crate) fn error_listener<L>(
        self,
        listener: L,
    ) -> Operation<'b, T, E, C, ErrorListener<L, H>>
    where
        L: crate::engine::hooks::OnRetryError<E>,
    {
        with_part!(self, push ErrorListener(listener))
    }

    /// Pushes a custom schedule of delays (the closure API's `delays`).
    #[inline]
    pub(crate) fn custom_delays<D>(self, delays: D) -> Operation<'b, T, E, C, CustomDelays<D, H>>
    where
        D: crate::engine::hooks::NextDelay,
    {
        with_part!(self, push CustomDelays(delays))
    }

    /// Pushes the taker of retried errors (the closure API's
    /// `take_retried`).
    #[inline]
    pub(crate) fn retried_listener<L>(
        self,
        listener: L,
    ) -> Operation<'b, T, E, C, RetriedListener<L, H>>
    where
        L: crate::engine::hooks::TakeRetried<E>,
    {
        with_part!(self, push RetriedListener(listener))
    }

    /// Calls `listener` before each wait: a function of the event, as
    /// [`on_retry`](Operation::on_retry) takes, or of the event and the
    /// error, as [`on_retry_error`](Operation::on_retry_error) takes; which
    /// one is inferred from its signature. What the attribute's `on_retry`
    /// calls for a function named by path.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation, RetryEvent};
    ///
    /// fn plain(event: &RetryEvent<'_>) {
    ///     assert_eq!(event.attempt(), 1);
    /// }
    /// fn typed(event: &RetryEvent<'_>, error: &&str) {
    ///     assert_eq!((event.attempt(), *error), (1, "busy"));
    /// }
    ///
    /// let outcome = Operation::new()
    ///     .max_attempts(2)
    ///     .listen(plain)
    ///     .listen(typed)
    ///     .clock(FakeClock::new())
    ///     .run(|_| Err::<(), _>("busy"));
    /// assert_eq!(outcome.report().retry_count(), 1);
    /// ```
    #[inline]
    pub fn listen<L, M>(self, listener: L) -> Operation<'b, T, E, C, L::Layer<H>>
    where
        L: Listener<E, M>,
    {
        let hooks = listener.push(self.plan.hooks);
        with_part!(@build self, self.plan.clock, hooks)
    }

    /// Calls `listener` before each wait with the error that caused the
    /// retry and the delay about to be slept; never after the final
    /// attempt.
    ///
    /// ```
    /// use resilient::{Backoff, FakeClock, Operation};
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    ///
    /// let heard = Mutex::new(Vec::new());
    /// let outcome = Operation::new()
    ///     .max_attempts(3)
    ///     .backoff(Backoff::constant(Duration::from_secs(2)))
    ///     .notify(|error: &&str, next| heard.lock().unwrap().push((*error, next)))
    ///     .clock(FakeClock::new())
    ///     .run(|_| Err::<(), _>("busy"));
    /// assert_eq!(outcome.report().attempt_count(), 3);
    /// assert_eq!(*heard.lock().unwrap(), [("busy", Duration::from_secs(2)); 2]);
    /// ```
    #[inline]
    pub fn notify<F>(self, listener: F) -> Operation<'b, T, E, C, ErrorListener<Notify<F>, H>>
    where
        F: Fn(&E, Duration),
    {
        with_part!(self, push ErrorListener(Notify(listener)))
    }

    /// Hands the report of each run to `hook` before the outcome is
    /// returned: where the report goes when the caller only wants the
    /// result.
    ///
    /// ```
    /// use resilient::{ExecutionReport, FakeClock, Operation};
    /// use std::sync::Mutex;
    ///
    /// let seen = Mutex::new(Vec::new());
    /// let result = Operation::new()
    ///     .name("cache.get")
    ///     .max_attempts(2)
    ///     .clock(FakeClock::new())
    ///     .on_report(|report: &ExecutionReport| {
    ///         seen.lock().unwrap().push((report.name().to_owned(), report.attempt_count()))
    ///     })
    ///     .run(|attempt| if attempt.number() == 1 { Err("miss") } else { Ok(3) })
    ///     .into_result();
    /// assert_eq!(result, Ok(3));
    /// assert_eq!(*seen.lock().unwrap(), [("cache.get".to_owned(), 2)]);
    /// ```
    #[inline]
    pub fn on_report<F>(self, hook: F) -> Operation<'b, T, E, C, ReportHook<F, H>>
    where
        F: Fn(&ExecutionReport),
    {
        with_part!(self, push ReportHook(hook))
    }

    /// Reads the HTTP status of each attempt's result into its record (0
    /// for none): what the tower layer and the reqwest middleware set.
    #[cfg(feature = "tower")]
    #[inline]
    pub(crate) fn status_reader<F>(
        self,
        reader: F,
    ) -> Operation<'b, T, E, C, crate::engine::hooks::StatusReader<F, H>>
    where
        F: Fn(Result<&T, &E>) -> u16,
    {
        use crate::engine::hooks::StatusReader;
        with_part!(self, push StatusReader(reader))
    }

    /// Names the endpoint the call's attempts go to, for their records:
    /// what the tower layer and the reqwest middleware set.
    #[cfg(feature = "tower")]
    #[inline]
    pub(crate) fn endpoint(
        self,
        endpoint: Option<std::sync::Arc<str>>,
    ) -> Operation<'b, T, E, C, crate::engine::hooks::EndpointOf<Option<std::sync::Arc<str>>, H>>
    {
        use crate::engine::hooks::EndpointOf;
        with_part!(self, push EndpointOf(endpoint))
    }
}
