//! The plain runs of [`RetryPolicy`] and [`ThrottledPolicy`]: operations
//! without a report, returning the raw `Result`.

use std::future::Future;

use super::operation::Operation;
use crate::attempt::Attempt;
use crate::clock::{Clock, SystemClock, TokioClock};
use crate::error::RetryError;
use crate::policy::RetryPolicy;
use crate::throttle::RetryBudget;

impl RetryPolicy {
    /// Runs `f` until it succeeds or the policy stops, retrying every
    /// error, on the system clock.
    ///
    /// ```
    /// use resilient::{Backoff, RetryPolicy};
    ///
    /// let policy = RetryPolicy::builder().max_attempts(2).backoff(Backoff::none()).build()?;
    /// let err = policy.run(|attempt| Err::<(), _>(attempt.number())).unwrap_err();
    /// assert_eq!((err.attempts(), *err.cause()), (2, 2));
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    pub fn run<T, E, F>(&self, f: F) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Result<T, E>,
    {
        self.run_with_clock(SystemClock, f)
    }

    /// [`run`](RetryPolicy::run) on the given clock.
    pub fn run_with_clock<T, E, F, C>(&self, clock: C, f: F) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Result<T, E>,
        C: Clock,
    {
        self.gated(None).run_with_clock(clock, f)
    }

    /// Runs the async `f` until it succeeds or the policy stops, retrying
    /// every error, on tokio's clock.
    ///
    /// `f` makes one future per attempt: an `async |attempt| …` closure
    /// that borrows what it uses, or `|attempt| { let s = s.clone(); async
    /// move { … } }`. The returned future is `Send` whenever those are.
    ///
    /// ```
    /// use resilient::{Backoff, RetryPolicy};
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), resilient::ConfigError> {
    /// let policy = RetryPolicy::builder()
    ///     .max_attempts(3)
    ///     .backoff(Backoff::constant(Duration::from_secs(5)))
    ///     .build()?;
    /// let value = policy
    ///     .run_async(async |attempt| if attempt.number() < 3 { Err("busy") } else { Ok("done") })
    ///     .await;
    /// assert_eq!(value, Ok("done"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn run_async<T, E, F, Fut>(&self, f: F) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        self.run_async_with_clock(TokioClock, f).await
    }

    /// [`run_async`](RetryPolicy::run_async) on the given clock.
    pub async fn run_async_with_clock<T, E, F, Fut, C>(
        &self,
        clock: C,
        f: F,
    ) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        C: Clock,
    {
        self.gated(None).run_async_with_clock(clock, f).await
    }
}

/// A [`RetryPolicy`] whose runs share a retry budget with other calls:
/// made by [`RetryPolicy::throttled`].
///
/// ```
/// use resilient::{Backoff, FakeClock, RetryPolicy, RetryThrottle};
///
/// static THROTTLE: RetryThrottle = RetryThrottle::new(4, 0.1);
///
/// let policy = RetryPolicy::builder().max_attempts(6).backoff(Backoff::none()).build()?;
/// let err = policy
///     .throttled(&THROTTLE)
///     .run_with_clock(FakeClock::new(), |_| Err::<(), _>("down"))
///     .unwrap_err();
/// // 4 tokens: the first failure leaves 3 (a retry may run), the second 2 (none may).
/// assert_eq!(err.attempts(), 2);
/// # Ok::<(), resilient::ConfigError>(())
/// ```
#[derive(Clone, Copy)]
pub struct ThrottledPolicy<'t> {
    policy: RetryPolicy,
    /// The throttle's gate; `None` for a policy's own runners, which are
    /// this one's without a throttle.
    throttle: Option<&'t dyn RetryBudget>,
}

impl RetryPolicy {
    /// This policy, its retries allowed only while `throttle` allows them
    /// (see [`Operation::throttle`]).
    pub fn throttled<'t>(&self, throttle: &'t dyn RetryBudget) -> ThrottledPolicy<'t> {
        self.gated(Some(throttle))
    }

    /// This policy with the gates its runners consult: one set of runners
    /// serves the policy and the throttled policy.
    fn gated<'t>(&self, throttle: Option<&'t dyn RetryBudget>) -> ThrottledPolicy<'t> {
        ThrottledPolicy {
            policy: *self,
            throttle,
        }
    }
}

impl std::fmt::Debug for ThrottledPolicy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThrottledPolicy")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl<'t> ThrottledPolicy<'t> {
    /// The operation each run starts from: the policy's settings, no
    /// report, and the throttle, if any.
    fn operation<T, E>(&self) -> Operation<'t, T, E> {
        let op = Operation::unreported().policy(&self.policy);
        match self.throttle {
            Some(throttle) => op.throttle(throttle),
            None => op,
        }
    }

    /// [`RetryPolicy::run`], throttled.
    pub fn run<T, E, F>(&self, f: F) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Result<T, E>,
    {
        self.run_with_clock(SystemClock, f)
    }

    /// [`RetryPolicy::run_with_clock`], throttled.
    pub fn run_with_clock<T, E, F, C>(&self, clock: C, f: F) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Result<T, E>,
        C: Clock,
    {
        self.operation().clock(clock).run(f).into_retry_result()
    }

    /// [`RetryPolicy::run_async`], throttled.
    pub async fn run_async<T, E, F, Fut>(&self, f: F) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        self.run_async_with_clock(TokioClock, f).await
    }

    /// [`RetryPolicy::run_async_with_clock`], throttled.
    pub async fn run_async_with_clock<T, E, F, Fut, C>(
        &self,
        clock: C,
        f: F,
    ) -> Result<T, RetryError<E>>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        C: Clock,
    {
        self.operation()
            .clock(clock)
            .run_async(f)
            .await
            .into_retry_result()
    }
}
