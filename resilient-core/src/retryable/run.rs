//! How a [`Retry`] runs: with a fallback, and to its outcome, blocking or
//! awaited.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::attempt::Attempt;
use crate::clock::Clock;
use crate::engine::Operation;
use crate::engine::hooks::{Classify, HookSet};
use crate::report::Outcome;

use super::sealed::SyncCheck;
use super::{Async, AsyncCheck, BeforeAttempt, Blocking, ClockFor, NoCheck, Retry};

impl<'b, F, T, E, H, K, W, B, G> Retry<'b, F, Blocking<T, E>, H, K, W, B, G> {
    /// Runs once when the primary attempts fail (for any reason but a
    /// panic), with the error that ended them; its result is the call's.
    ///
    /// ```
    /// use resilient::{FakeClock, RetryPolicy, Retryable};
    ///
    /// let policy = RetryPolicy::builder().max_attempts(2).build()?;
    /// let outcome = (|| Err::<&str, _>("down"))
    ///     .retry(&policy)
    ///     .fallback(|_| Ok("cached"))
    ///     .clock(FakeClock::new())
    ///     .call();
    /// assert!(outcome.report().fallback_used());
    /// assert_eq!(outcome.into_result(), Ok("cached"));
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    #[inline]
    pub fn fallback<G2>(self, fallback: G2) -> Retry<'b, F, Blocking<T, E>, H, K, W, B, G2>
    where
        G2: FnOnce(&E) -> Result<T, E>,
    {
        with!(self, fallback: Some(fallback))
    }
}

impl<'b, F, T, E, H, K, W, B, G> Retry<'b, F, Async<T, E>, H, K, W, B, G> {
    /// Runs once when the primary attempts fail (for any reason but a
    /// panic or a drop), with the error that ended them; its future's
    /// result is the call's. The future doesn't borrow the error:
    /// `|_| async { Ok(cached) }`, or copy what it needs first.
    ///
    /// ```
    /// use resilient::{RetryPolicy, Retryable};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let policy = RetryPolicy::builder().max_attempts(2).build().unwrap();
    /// let outcome = (|| async { Err::<&str, _>("down") })
    ///     .retry(&policy)
    ///     .fallback(|_| async { Ok("cached") })
    ///     .await;
    /// assert_eq!(outcome.into_result(), Ok("cached"));
    /// # }
    /// ```
    #[inline]
    pub fn fallback<G2, GF>(self, fallback: G2) -> Retry<'b, F, Async<T, E>, H, K, W, B, G2>
    where
        G2: FnOnce(&E) -> GF,
        GF: Future<Output = Result<T, E>>,
    {
        with!(self, fallback: Some(fallback))
    }
}

impl<'b, F, T, E, H, K, W, G> Retry<'b, F, Async<T, E>, H, K, W, NoCheck, G> {
    /// An async check before each attempt, handed the [`Attempt`] about
    /// to run: an error it returns, converted to the closure's with
    /// `From`, ends the call at once, never retried, and the body isn't
    /// called. As [`before_attempt`](Retry::before_attempt), it runs
    /// inside the attempt, once the gates admitted it, and a fallback
    /// still runs. For a question only an await answers (is the resource
    /// still there?) that would otherwise go inside the retried closure,
    /// with an error enum joining the two.
    ///
    /// ```
    /// use resilient::{Attempt, RetryPolicy, Retryable, StopReason};
    /// use std::sync::atomic::{AtomicU32, Ordering};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum JobError { Busy, Gone }
    ///
    /// #[derive(Debug)]
    /// struct Gone;
    /// impl From<Gone> for JobError {
    ///     fn from(_: Gone) -> Self { JobError::Gone }
    /// }
    ///
    /// async fn still_there(attempt: u32) -> bool { attempt < 3 } // a lookup, say
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let policy = RetryPolicy::builder().max_attempts(5).build().unwrap();
    /// let bodies = AtomicU32::new(0);
    /// let outcome = (|| async { bodies.fetch_add(1, Ordering::Relaxed); Err::<(), _>(JobError::Busy) })
    ///     .retry(&policy)
    ///     .before_attempt_async(async |attempt: Attempt| {
    ///         if still_there(attempt.number()).await { Ok(()) } else { Err(Gone) }
    ///     })
    ///     .await;
    /// assert_eq!(bodies.load(Ordering::Relaxed), 2); // the third attempt's check refused it
    /// assert_eq!(outcome.report().attempt_count(), 3);
    /// assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    /// assert_eq!(outcome.into_result(), Err(JobError::Gone));
    /// # }
    /// ```
    #[inline]
    pub fn before_attempt_async<C, CF, X>(
        self,
        check: C,
    ) -> Retry<'b, F, Async<T, E>, H, K, W, AsyncCheck<C>, G>
    where
        C: FnMut(Attempt) -> CF,
        CF: Future<Output = Result<(), X>>,
        E: From<X>,
    {
        with!(self, before: AsyncCheck(check))
    }
}

impl<'b, F, T, E, H, K, W, B, G> Retry<'b, F, Blocking<T, E>, H, K, W, B, G>
where
    F: FnMut() -> Result<T, E>,
    H: HookSet<T, E>,
    K: ClockFor,
    W: Classify<E>,
    B: BeforeAttempt<E> + SyncCheck,
    G: FnOnce(&E) -> Result<T, E>,
{
    /// Runs the blocking closure until it succeeds or the policy stops.
    pub fn call(self) -> Outcome<T, E> {
        let Retry {
            mut body,
            op,
            clock,
            when,
            mut before,
            fallback,
        } = self;
        let refused = AtomicBool::new(false);
        let op = op
            .clock(clock.blocking())
            .retry_if(|error: &E| !refused.load(Ordering::Relaxed) && when.is_retryable(error));
        let attempt = |attempt: Attempt| match before.check(&attempt) {
            Ok(()) => body(),
            Err(error) => {
                refused.store(true, Ordering::Relaxed);
                Err(error)
            }
        };
        match op.run_primary(attempt) {
            Ok(outcome) => outcome,
            Err(mut exec) => {
                if let Some(fallback) = fallback
                    && exec.needs_fallback()
                {
                    exec.fallback_blocking(|error, _| fallback(error));
                }
                exec.finish()
            }
        }
    }
}

impl<'b, F, Fut, T, E, H, K, W, B, G, GF> Retry<'b, F, Async<T, E>, H, K, W, B, G>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    H: HookSet<T, E>,
    K: ClockFor,
    W: Classify<E>,
    B: BeforeAttempt<E> + SyncCheck,
    G: FnOnce(&E) -> GF,
    GF: Future<Output = Result<T, E>>,
{
    /// Runs the async closure until it succeeds or the policy stops: the
    /// future `.await` boxes, held inline. It needs nothing to be `Send`,
    /// and allocates nothing on a first success; it is `Send` when the
    /// closure, its future and the settings are.
    pub async fn call(self) -> Outcome<T, E> {
        let Retry {
            mut body,
            op,
            clock,
            when,
            mut before,
            fallback,
        } = self;
        let refused = AtomicBool::new(false);
        let op = op
            .clock(clock.for_async())
            .retry_if(|error: &E| !refused.load(Ordering::Relaxed) && when.is_retryable(error));
        let attempt = |attempt: Attempt| {
            let started = match before.check(&attempt) {
                Ok(()) => Ok(body()),
                Err(error) => {
                    refused.store(true, Ordering::Relaxed);
                    Err(error)
                }
            };
            async move { started?.await }
        };
        to_outcome(op, attempt, fallback).await
    }
}

impl<'b, F, Fut, T, E, H, K, W, C, CF, X, G, GF>
    Retry<'b, F, Async<T, E>, H, K, W, AsyncCheck<C>, G>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    H: HookSet<T, E>,
    K: ClockFor,
    W: Classify<E>,
    C: FnMut(Attempt) -> CF,
    CF: Future<Output = Result<(), X>>,
    E: From<X>,
    G: FnOnce(&E) -> GF,
    GF: Future<Output = Result<T, E>>,
{
    /// Runs the async closure until it succeeds or the policy stops, each
    /// attempt after its check (see
    /// [`before_attempt_async`](Retry::before_attempt_async)).
    pub async fn call(self) -> Outcome<T, E> {
        let Retry {
            body,
            op,
            clock,
            when,
            before: AsyncCheck(mut check),
            fallback,
        } = self;
        let refused = AtomicBool::new(false);
        let op = op
            .clock(clock.for_async())
            .retry_if(|error: &E| !refused.load(Ordering::Relaxed) && when.is_retryable(error));
        // The body is called once its check has passed, inside the
        // attempt's future: it is shared with each future, for the
        // moment it takes to make the body's.
        let body = Mutex::new(body);
        let attempt = |attempt: Attempt| {
            let checked = check(attempt);
            let (body, refused) = (&body, &refused);
            async move {
                if let Err(error) = checked.await {
                    refused.store(true, Ordering::Relaxed);
                    return Err(E::from(error));
                }
                let run = (body.lock().unwrap_or_else(PoisonError::into_inner))();
                run.await
            }
        };
        to_outcome(op, attempt, fallback).await
    }
}

/// Runs `op`'s attempts, then the fallback if one is due, to the outcome:
/// the course of every async run of the closure API.
async fn to_outcome<T, E, C, H, A, AF, G, GF>(
    op: Operation<'_, T, E, C, H>,
    attempt: A,
    fallback: Option<G>,
) -> Outcome<T, E>
where
    C: Clock,
    H: HookSet<T, E>,
    A: FnMut(Attempt) -> AF,
    AF: Future<Output = Result<T, E>>,
    G: FnOnce(&E) -> GF,
    GF: Future<Output = Result<T, E>>,
{
    match op.run_primary_async(attempt).await {
        Ok(outcome) => outcome,
        Err(mut exec) => {
            if let Some(fallback) = fallback
                && exec.needs_fallback()
            {
                exec.fallback_async(async |error: &E, _| fallback(error).await)
                    .await;
            }
            exec.finish()
        }
    }
}

impl<'b, F, Fut, T, E, H, K, W, B, G, GF> IntoFuture for Retry<'b, F, Async<T, E>, H, K, W, B, G>
where
    F: FnMut() -> Fut + Send + 'b,
    Fut: Future<Output = Result<T, E>> + Send + 'b,
    T: Send + 'b,
    E: Send + Sync + 'b,
    H: HookSet<T, E> + Send + Sync + 'b,
    K: ClockFor + Send + 'b,
    W: Classify<E> + Send + Sync + 'b,
    B: BeforeAttempt<E> + SyncCheck + Send + 'b,
    G: FnOnce(&E) -> GF + Send + 'b,
    GF: Future<Output = Result<T, E>> + Send + 'b,
{
    type Output = Outcome<T, E>;
    type IntoFuture = Pin<Box<dyn Future<Output = Outcome<T, E>> + Send + 'b>>;

    /// [`call`](Retry::call), boxed, so that it has a name: one
    /// allocation per call. `.call().await` makes none.
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.call())
    }
}

impl<'b, F, Fut, T, E, H, K, W, C, CF, X, G, GF> IntoFuture
    for Retry<'b, F, Async<T, E>, H, K, W, AsyncCheck<C>, G>
where
    F: FnMut() -> Fut + Send + 'b,
    Fut: Future<Output = Result<T, E>> + Send + 'b,
    T: Send + 'b,
    E: From<X> + Send + Sync + 'b,
    X: 'b,
    H: HookSet<T, E> + Send + Sync + 'b,
    K: ClockFor + Send + 'b,
    W: Classify<E> + Send + Sync + 'b,
    C: FnMut(Attempt) -> CF + Send + 'b,
    CF: Future<Output = Result<(), X>> + Send + 'b,
    G: FnOnce(&E) -> GF + Send + 'b,
    GF: Future<Output = Result<T, E>> + Send + 'b,
{
    type Output = Outcome<T, E>;
    type IntoFuture = Pin<Box<dyn Future<Output = Outcome<T, E>> + Send + 'b>>;

    /// [`call`](Retry::call), boxed: one allocation per call.
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.call())
    }
}

impl<F, T, E, H, K, W, B, G> Retry<'static, F, Async<T, E>, H, K, W, B, G>
where
    Self: IntoFuture<Output = Outcome<T, E>, IntoFuture: Send + 'static>,
    T: Clone + Send + 'static,
    E: Clone + Send + 'static,
{
    /// Runs this retry for `key` in `group`, or joins the run of `key`
    /// already in flight there: concurrent calls of a key share one run,
    /// and each gets a clone of its outcome (see
    /// [`Coalesce`](crate::coalesce::Coalesce)). The closure, its
    /// settings and its hooks are `'static`, since the run may outlive
    /// this caller while others wait on it.
    ///
    /// ```
    /// use resilient::coalesce::Coalesce;
    /// use resilient::{RetryPolicy, Retryable};
    ///
    /// static POLICY: RetryPolicy = RetryPolicy::builder().max_attempts(3).build_const();
    /// static PRICES: Coalesce<u32, String> = Coalesce::new();
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let price = |sku: u32| (move || async move { Ok::<_, String>(sku * 100) }).retry(&POLICY).coalesce(&PRICES, sku.to_string());
    /// let (a, b) = tokio::join!(price(7), price(7));
    /// assert_eq!((a.into_result(), b.into_result()), (Ok(700), Ok(700)));
    /// # }
    /// ```
    pub fn coalesce(
        self,
        group: &crate::coalesce::Coalesce<T, E>,
        key: impl Into<String>,
    ) -> crate::coalesce::Joined<T, E> {
        group.run(key, move || self.into_future())
    }
}
