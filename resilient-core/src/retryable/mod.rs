//! The closure API: [`Retryable`], an extension trait on closures, blocking
//! and async, and [`Retry`], the builder it starts. For code that retries
//! an operation its caller hands it (an SDK helper, a client wrapper, a job
//! runner), where no attribute can go.
//!
//! A [`Retry`] holds an [`Operation`] and fills it in by the attribute's
//! names; running it runs that operation, so every attempt goes through
//! the engine's one runner, with the same report. What it adds is its
//! own: the classifier of [`when`](Retry::when), joined at run time with
//! [`before_attempt`](Retry::before_attempt)'s verdict (an error of the
//! check is never retried), and the default clock of each kind of closure.

use std::borrow::Cow;
use std::future::{Future, Ready};
use std::marker::PhantomData;
use std::time::Duration;

use crate::attempt::Attempt;
use crate::clock::{Clock, SystemClock, TokioClock};
use crate::engine::Operation;
use crate::engine::hooks::{Hooks, IgnoreIf, RetryAfter, RetryAll, Validator};
use crate::error::{TimeoutError, ValidationError};
use crate::limit::{LimitExceededError, Limiter, Priority};
use crate::policy::RetryPolicy;
use crate::throttle::RetryBudget;

/// Retries a closure: `.retry(&POLICY)`, then the settings by the
/// attribute's names, then `.await` (async) or [`.call()`](Retry::call)
/// (blocking). Implemented for every `FnMut() -> Result<T, E>` and every
/// `FnMut() -> impl Future<Output = Result<T, E>>` whose error is `Debug`.
///
/// ```
/// use resilient::{Backoff, FakeClock, Jitter, RetryPolicy, Retryable};
/// use std::time::Duration;
///
/// #[derive(Debug, PartialEq)]
/// enum ApiError { Busy, NotFound }
///
/// static POLICY: RetryPolicy = RetryPolicy::builder()
///     .max_attempts(4)
///     .backoff(Backoff::exponential(Duration::from_secs(1), Duration::from_secs(30)).jitter(Jitter::None))
///     .build_const();
///
/// let clock = FakeClock::new();
/// let mut calls = 0;
/// let outcome = (|| {
///     calls += 1;
///     if calls < 3 { Err(ApiError::Busy) } else { Ok(calls) }
/// })
/// .retry(&POLICY)
/// .when(|e| *e == ApiError::Busy)
/// .clock(&clock)
/// .call();
/// assert_eq!(outcome.into_result(), Ok(3));
/// assert_eq!(clock.slept(), [Duration::from_secs(1), Duration::from_secs(2)]);
/// ```
///
/// An async closure, awaited (here on tokio's paused test time, which
/// `TokioClock`, the default clock of an async closure, follows):
///
/// ```
/// use resilient::{Backoff, RetryPolicy, Retryable};
/// use std::sync::Mutex;
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let policy = RetryPolicy::builder()
///     .max_attempts(3)
///     .backoff(Backoff::constant(Duration::from_millis(250)))
///     .build()
///     .unwrap();
/// let heard = Mutex::new(Vec::new());
/// let outcome = (|| async { Err::<(), _>("unavailable") })
///     .retry(&policy)
///     .notify(|e: &&str, next: Duration| heard.lock().unwrap().push((*e, next)))
///     .await;
/// assert_eq!(outcome.report().attempt_count(), 3);
/// // Before each wait, never after the final attempt.
/// assert_eq!(*heard.lock().unwrap(), [("unavailable", Duration::from_millis(250)); 2]);
/// # }
/// ```
pub trait Retryable<S: Shape>: Sized {
    /// Starts a [`Retry`] of this closure under `policy`, by value or by
    /// reference: its attempts, backoff, jitter and caps. The report
    /// records each failed attempt's error by its `Debug` text.
    #[inline]
    fn retry<P: PolicyArg<Hooks = Hooks>>(self, policy: P) -> Retry<'static, Self, S, P::Hooks>
    where
        S::Err: DebugError,
    {
        self.retry_described_by(policy, crate::error::debug_text::<S::Err>)
    }

    /// [`retry`](Retryable::retry) for an error that isn't `Debug`, or
    /// whose report text should be another: `describe` renders each
    /// failed attempt's error for the report.
    ///
    /// ```
    /// use resilient::{RetryPolicy, Retryable};
    ///
    /// struct Opaque(u16); // no Debug
    ///
    /// static POLICY: RetryPolicy = RetryPolicy::builder().max_attempts(2).build_const();
    /// let outcome = (|| Err::<(), _>(Opaque(503)))
    ///     .retry_described_by(&POLICY, |e: &Opaque| format!("status {}", e.0))
    ///     .call();
    /// assert_eq!(outcome.report().attempts()[0].error().unwrap().message(), "status 503");
    /// ```
    fn retry_described_by<P: PolicyArg<Hooks = Hooks>>(
        self,
        policy: P,
        describe: fn(&S::Err) -> String,
    ) -> Retry<'static, Self, S, P::Hooks>;
}

/// What a [`Retryable`] closure returns: [`Blocking`] or [`Async`], with
/// its success and error types. Inferred; named only in types.
pub trait Shape: sealed::Sealed {
    /// The success type.
    type Ok;
    /// The error type.
    type Err;
    /// The type of "no fallback", a fallback of this shape that never runs.
    type NoFallback;
}

/// A blocking closure's [`Shape`]: it returns `Result<T, E>`.
pub struct Blocking<T, E>(PhantomData<fn() -> (T, E)>);

/// An async closure's [`Shape`]: it returns a future of `Result<T, E>`.
pub struct Async<T, E>(PhantomData<fn() -> (T, E)>);

impl<T, E> Shape for Blocking<T, E> {
    type Ok = T;
    type Err = E;
    type NoFallback = fn(&E) -> Result<T, E>;
}

impl<T, E> Shape for Async<T, E> {
    type Ok = T;
    type Err = E;
    type NoFallback = fn(&E) -> Ready<Result<T, E>>;
}

mod sealed {
    pub trait Policy {}
    impl Policy for crate::RetryPolicy {}
    impl Policy for &crate::RetryPolicy {}
    impl Policy for &std::sync::LazyLock<crate::RetryPolicy> {}
    impl Policy for &std::sync::Arc<crate::RetryPolicy> {}

    pub trait Sealed {}
    impl<T, E> Sealed for super::Blocking<T, E> {}
    impl<T, E> Sealed for super::Async<T, E> {}

    /// The checks that run before the body is called, at once: none, or
    /// [`before_attempt`](super::Retry::before_attempt)'s. An
    /// [`AsyncCheck`](super::AsyncCheck) is not one, which keeps its run
    /// apart from theirs.
    pub trait SyncCheck {}
    impl<F, R> SyncCheck for F where F: FnMut(&crate::attempt::Attempt) -> R {}
    impl SyncCheck for super::NoCheck {}
}

impl<F, T, E> Retryable<Blocking<T, E>> for F
where
    F: FnMut() -> Result<T, E>,
{
    #[inline]
    fn retry_described_by<P: PolicyArg<Hooks = Hooks>>(
        self,
        policy: P,
        describe: fn(&E) -> String,
    ) -> Retry<'static, F, Blocking<T, E>, P::Hooks> {
        Retry::new(self, policy.policy(), describe)
    }
}

impl<F, Fut, T, E> Retryable<Async<T, E>> for F
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    #[inline]
    fn retry_described_by<P: PolicyArg<Hooks = Hooks>>(
        self,
        policy: P,
        describe: fn(&E) -> String,
    ) -> Retry<'static, F, Async<T, E>, P::Hooks> {
        Retry::new(self, policy.policy(), describe)
    }
}

/// The clock of a [`Retry`] not given one: [`SystemClock`] for a blocking
/// closure, [`TokioClock`] for an async one, as with the attribute.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultClock;

/// The clock a [`Retry`] runs on, for each kind of closure: the one given
/// to [`clock`](Retry::clock), or the [`DefaultClock`]'s.
pub trait ClockFor {
    /// The clock of a blocking run.
    type Blocking: Clock;
    /// The clock of an async run.
    type Async: Clock;
    /// The clock of a blocking run.
    fn blocking(self) -> Self::Blocking;
    /// The clock of an async run.
    fn for_async(self) -> Self::Async;
}

impl ClockFor for DefaultClock {
    type Blocking = SystemClock;
    type Async = TokioClock;

    #[inline]
    fn blocking(self) -> SystemClock {
        SystemClock
    }

    #[inline]
    fn for_async(self) -> TokioClock {
        TokioClock
    }
}

impl<C: Clock> ClockFor for C {
    type Blocking = C;
    type Async = C;

    #[inline]
    fn blocking(self) -> C {
        self
    }

    #[inline]
    fn for_async(self) -> C {
        self
    }
}

/// The check before each attempt, [`before_attempt`](Retry::before_attempt):
/// implemented by `FnMut(&Attempt) -> Result<(), E>` and by [`NoCheck`].
pub trait BeforeAttempt<E> {
    /// `Ok` to run the attempt; an error ends the call with it.
    fn check(&mut self, attempt: &Attempt) -> Result<(), E>;
}

impl<E, F: FnMut(&Attempt) -> Result<(), E>> BeforeAttempt<E> for F {
    #[inline]
    fn check(&mut self, attempt: &Attempt) -> Result<(), E> {
        self(attempt)
    }
}

/// An async check before each attempt of an async closure,
/// [`before_attempt_async`](Retry::before_attempt_async); named only in
/// types.
#[derive(Debug, Clone, Copy)]
pub struct AsyncCheck<C>(pub(super) C);

/// No check before attempts: the default of a [`Retry`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCheck;

impl<E> BeforeAttempt<E> for NoCheck {
    #[inline]
    fn check(&mut self, _: &Attempt) -> Result<(), E> {
        Ok(())
    }
}

/// A closure under retry: [`Retryable::retry`] starts it, each setter
/// takes one setting by the attribute's name, and `.await` (async) or
/// [`call`](Retry::call) runs it to an [`Outcome`](crate::Outcome) with its report.
///
/// Settings the policy holds (attempts, backoff, jitter and its seed,
/// `max_elapsed`) come from it; [`timeout`](Retry::timeout) and
/// [`budget`](Retry::budget) may be set here too. The type parameters
/// follow the setters (`H` the hooks, `K` the clock, `W` the classifier,
/// `B` the check, `G` the fallback) and need never be written.
///
/// `.await` boxes the run, so that its future has a name (one allocation
/// per call), and asks the closure, its future, the values and the
/// settings to be `Send`, so that the future is too. `.call().await` does
/// neither: the call's future is held inline and is `Send` exactly when
/// its parts are. In generic code without `Send` bounds, or with parts
/// that aren't `Send`, write `.call().await`:
///
/// ```
/// use resilient::{Outcome, RetryPolicy, Retryable};
/// use std::fmt::Debug;
/// use std::future::Future;
///
/// /// A library's helper: no bound on the caller's closure but `Debug`
/// /// errors.
/// async fn with_retries<F, Fut, T, E>(policy: &RetryPolicy, work: F) -> Outcome<T, E>
/// where
///     F: FnMut() -> Fut,
///     Fut: Future<Output = Result<T, E>>,
///     E: Debug,
/// {
///     work.retry(policy).call().await
/// }
/// # let _ = with_retries(&RetryPolicy::builder().build().unwrap(), || async { Ok::<_, ()>(1) });
/// ```
#[must_use = "a retry does nothing until it is awaited or called"]
pub struct Retry<
    'b,
    F,
    S: Shape,
    H = Hooks,
    K = DefaultClock,
    W = RetryAll,
    B = NoCheck,
    G = <S as Shape>::NoFallback,
> {
    body: F,
    op: Operation<'b, S::Ok, S::Err, SystemClock, H>,
    clock: K,
    when: W,
    before: B,
    fallback: Option<G>,
}

impl<F, S: Shape> Retry<'static, F, S> {
    fn new(body: F, policy: &RetryPolicy, describe: fn(&S::Err) -> String) -> Self {
        Retry {
            body,
            op: Operation::described_by(describe).policy(policy),
            clock: DefaultClock,
            when: RetryAll,
            before: NoCheck,
            fallback: None,
        }
    }
}

/// Rebuilds a retry with one of its parts replaced, the others moved over.
macro_rules! with {
    ($retry:ident, op: $value:expr) => {
        Retry {
            op: $value,
            body: $retry.body,
            clock: $retry.clock,
            when: $retry.when,
            before: $retry.before,
            fallback: $retry.fallback,
        }
    };
    ($retry:ident, clock: $value:expr) => {
        Retry {
            clock: $value,
            body: $retry.body,
            op: $retry.op,
            when: $retry.when,
            before: $retry.before,
            fallback: $retry.fallback,
        }
    };
    ($retry:ident, when: $value:expr) => {
        Retry {
            when: $value,
            body: $retry.body,
            op: $retry.op,
            clock: $retry.clock,
            before: $retry.before,
            fallback: $retry.fallback,
        }
    };
    ($retry:ident, before: $value:expr) => {
        Retry {
            before: $value,
            body: $retry.body,
            op: $retry.op,
            clock: $retry.clock,
            when: $retry.when,
            fallback: $retry.fallback,
        }
    };
    ($retry:ident, fallback: $value:expr) => {
        Retry {
            fallback: $value,
            body: $retry.body,
            op: $retry.op,
            clock: $retry.clock,
            when: $retry.when,
            before: $retry.before,
        }
    };
}

/// Declares the setters of the gates, each handing its gate to the
/// operation's setter of the same name (`engine/operation/`), with the
/// bound its refusal asks of the error: a line here, or, for a gate of one
/// shared value, a row of `shared_gates!`, which comes here as its second
/// form.
macro_rules! gate_forwarders {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($arg:ident: $ty:ty) => $field:ident: $gate:ident, E: $bound:path, $maker:ident,
        on a layer: [$($setup:literal),* $(,)?] $value:literal;
    )*) => {
        gate_forwarders! {$(
            $(#[$doc])*
            $name<'c>($arg: &'c $ty), E: $bound;
        )*}
    };
    ($(
        $(#[$doc:meta])*
        $name:ident<$lt:lifetime>($arg:ident: $ty:ty) $(, E: $bound:path)?;
    )*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name<$lt>(self, $arg: $ty) -> Retry<$lt, F, S, H, K, W, B, G>
        where
            'b: $lt,
            $(S::Err: $bound,)?
        {
            with!(self, op: self.op.$name($arg))
        }
    )*};
}

impl<'b, F, S: Shape, H, K, W, B, G> Retry<'b, F, S, H, K, W, B, G> {
    /// Which errors are retried (default: all). An error it rejects ends
    /// the call with [`StopReason::NotRetryable`](crate::StopReason).
    ///
    /// ```
    /// use resilient::{FakeClock, RetryPolicy, Retryable, StopReason};
    ///
    /// let policy = RetryPolicy::builder().max_attempts(5).build()?;
    /// let outcome = (|| Err::<(), _>(404))
    ///     .retry(&policy)
    ///     .when(|status| *status >= 500)
    ///     .clock(FakeClock::new())
    ///     .call();
    /// assert_eq!(outcome.report().attempt_count(), 1);
    /// assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    #[inline]
    pub fn when<W2>(self, when: W2) -> Retry<'b, F, S, H, K, Exclusive<W2>, B, G>
    where
        W2: FnMut(&S::Err) -> bool,
    {
        with!(self, when: Exclusive::new(when))
    }

    /// Which errors are ignored (default: none): such an error ends the
    /// call at once with [`StopReason::Ignored`](crate::StopReason::Ignored),
    /// never retried and without the fallback, and counts as neither a
    /// success nor a failure for the circuit breaker, the retry throttle
    /// and the adaptive limits (see
    /// [`Operation::ignore_if`](crate::Operation::ignore_if)).
    ///
    /// ```
    /// use resilient::{FakeClock, RetryPolicy, Retryable, StopReason};
    ///
    /// let policy = RetryPolicy::builder().max_attempts(5).build()?;
    /// let outcome = (|| Err::<(), _>("cancelled"))
    ///     .retry(&policy)
    ///     .ignore_if(|error| *error == "cancelled")
    ///     .clock(FakeClock::new())
    ///     .call();
    /// assert_eq!(outcome.report().attempt_count(), 1);
    /// assert_eq!(outcome.report().stop_reason(), StopReason::Ignored);
    /// assert!(outcome.report().attempts()[0].ignored());
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    #[inline]
    pub fn ignore_if<I>(self, ignore: I) -> Retry<'b, F, S, IgnoreIf<I, H>, K, W, B, G>
    where
        I: Fn(&S::Err) -> bool,
    {
        with!(self, op: self.op.ignore_if(ignore))
    }

    /// Reads a server's Retry-After hint from a retryable error: the
    /// engine waits that long, without spending a retry (the attribute's
    /// `rate_limit`).
    #[inline]
    pub fn retry_after<R>(self, hint: R) -> Retry<'b, F, S, RetryAfter<R, H>, K, W, B, G>
    where
        R: Fn(&S::Err) -> Option<Duration>,
    {
        with!(self, op: self.op.retry_after(hint))
    }

    /// Checks each successful value; one that fails is
    /// `E::from(ValidationFailed)`, retried like any error.
    #[inline]
    pub fn validate<V>(self, check: V) -> Retry<'b, F, S, Validator<V, H>, K, W, B, G>
    where
        V: Fn(&S::Ok) -> bool,
        S::Err: ValidationError,
    {
        with!(self, op: self.op.validate(check))
    }

    /// A check before each attempt, handed the [`Attempt`] about to run:
    /// its error ends the call at once, never retried, and the body
    /// doesn't run. It runs inside the attempt, once the gates (breaker,
    /// limiters) admitted it, so its error is recorded as that attempt's,
    /// with [`StopReason::NotRetryable`](crate::StopReason); a fallback
    /// still runs.
    ///
    /// ```
    /// use resilient::{Attempt, FakeClock, RetryPolicy, Retryable, StopReason};
    /// use std::sync::atomic::{AtomicBool, Ordering};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum JobError { Busy, Cancelled }
    ///
    /// let cancelled = AtomicBool::new(false);
    /// let policy = RetryPolicy::builder().max_attempts(5).build()?;
    /// let outcome = (|| {
    ///     cancelled.store(true, Ordering::Relaxed); // the caller gives up meanwhile
    ///     Err::<(), _>(JobError::Busy)
    /// })
    /// .retry(&policy)
    /// .before_attempt(|_: &Attempt| {
    ///     if cancelled.load(Ordering::Relaxed) { Err(JobError::Cancelled) } else { Ok(()) }
    /// })
    /// .clock(FakeClock::new())
    /// .call();
    /// assert_eq!(outcome.report().attempt_count(), 2);
    /// assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    /// assert_eq!(outcome.into_result(), Err(JobError::Cancelled));
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    #[inline]
    pub fn before_attempt<B2>(self, check: B2) -> Retry<'b, F, S, H, K, W, B2, G>
    where
        B2: FnMut(&Attempt) -> Result<(), S::Err>,
    {
        with!(self, before: check)
    }

    /// The clock (default: [`TokioClock`] for an async closure, so that
    /// paused test time drives it; [`SystemClock`] for a blocking one).
    ///
    /// ```
    /// use resilient::{Backoff, FakeClock, RetryPolicy, Retryable};
    /// use std::time::Duration;
    ///
    /// let policy = RetryPolicy::builder()
    ///     .max_attempts(3)
    ///     .backoff(Backoff::constant(Duration::from_secs(2)))
    ///     .build()?;
    /// let clock = FakeClock::new();
    /// let _ = (|| Err::<(), _>("busy")).retry(&policy).clock(&clock).call();
    /// assert_eq!(clock.slept(), [Duration::from_secs(2); 2]);
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    #[inline]
    pub fn clock<C: Clock>(self, clock: C) -> Retry<'b, F, S, H, C, W, B, G> {
        with!(self, clock: clock)
    }

    /// Names the operation, for the report, the events and the metrics
    /// (default `"operation"`).
    #[inline]
    pub fn name(self, name: impl Into<Cow<'static, str>>) -> Self {
        with!(self, op: self.op.name(name))
    }

    /// Per-attempt timeout: an async attempt still running at its
    /// deadline, `min(timeout, budget − elapsed)`, is dropped and fails
    /// with `E::from(TimedOut)`. A blocking attempt reads its deadline
    /// from [`Attempt::deadline`] in [`before_attempt`](Retry::before_attempt).
    ///
    /// ```
    /// use resilient::{RetryPolicy, Retryable, TimedOut};
    /// use std::time::Duration;
    ///
    /// #[derive(Debug, PartialEq)]
    /// struct Slow;
    /// impl From<TimedOut> for Slow {
    ///     fn from(_: TimedOut) -> Self { Slow }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let policy = RetryPolicy::builder().max_attempts(2).build().unwrap();
    /// let outcome = (|| async {
    ///     tokio::time::sleep(Duration::from_secs(60)).await;
    ///     Ok::<_, Slow>(1)
    /// })
    /// .retry(&policy)
    /// .timeout(Duration::from_secs(1))
    /// .budget(Duration::from_secs(10))
    /// .await;
    /// let granted: Vec<_> = outcome.report().attempts().iter().map(|a| a.deadline()).collect();
    /// assert_eq!(granted, [Some(Duration::from_secs(1)); 2]);
    /// assert_eq!(outcome.into_result(), Err(Slow));
    /// # }
    /// ```
    #[inline]
    pub fn timeout(self, timeout: Duration) -> Self
    where
        S::Err: TimeoutError,
    {
        with!(self, op: self.op.timeout(timeout))
    }

    /// Hard cap on the whole call: no attempt starts at or after it, no
    /// wait runs into it, and each attempt's deadline is at most what is
    /// left of it.
    #[inline]
    pub fn budget(self, budget: Duration) -> Self {
        with!(self, op: self.op.budget(budget))
    }

    /// Soft cap: once elapsed (and `min_retries` retries have run), the
    /// next failure ends the call.
    #[inline]
    pub fn max_elapsed(self, max_elapsed: Duration) -> Self {
        with!(self, op: self.op.max_elapsed(max_elapsed))
    }

    /// Seeds the jitter, for a reproducible schedule.
    #[inline]
    pub fn jitter_seed(self, seed: u64) -> Self {
        with!(self, op: self.op.jitter_seed(seed))
    }

    /// The most attempt records the report keeps (64 by default): past
    /// it, the first half and the latest, with exact counts, so that a
    /// call that retries for ever keeps constant memory.
    ///
    /// ```
    /// use resilient::{Backoff, RetryPolicy, Retryable};
    /// use std::time::Duration;
    ///
    /// // backon's `without_max_times()`: unbounded, and bounded by a budget.
    /// let policy = RetryPolicy::builder()
    ///     .unbounded()
    ///     .backoff(Backoff::constant(Duration::from_millis(1)))
    ///     .budget(Duration::from_secs(3600))
    ///     .build()
    ///     .unwrap();
    /// let mut calls = 0;
    /// let outcome = (|| {
    ///     calls += 1;
    ///     if calls < 10_000 { Err("busy") } else { Ok(calls) }
    /// })
    /// .retry(&policy)
    /// .clock(resilient::FakeClock::new())
    /// .max_records(8)
    /// .call();
    /// assert_eq!(outcome.report().attempt_count(), 10_000);
    /// assert_eq!(outcome.report().attempts().len(), 8);
    /// assert_eq!(outcome.report().records_left_out(), 9_992);
    /// ```
    #[inline]
    pub fn max_records(self, records: u32) -> Self {
        with!(self, op: self.op.max_records(records))
    }

    /// The call's priority, for the limiters that shed by priority (see
    /// [`Priorities`](crate::limit::Priorities)); default
    /// [`Medium`](Priority::Medium).
    ///
    /// ```
    /// use resilient::limit::{Bulkhead, Limiter, Priorities, Priority};
    /// use resilient::{LimitExceeded, RetryPolicy, Retryable};
    ///
    /// #[derive(Debug)]
    /// struct Busy(LimitExceeded);
    /// impl From<LimitExceeded> for Busy {
    ///     fn from(refusal: LimitExceeded) -> Self { Busy(refusal) }
    /// }
    ///
    /// static POOL: Bulkhead = Bulkhead::new(1).shed_by_priority(Priorities::none().reserve(Priority::High, 1.0));
    /// let limiters: [&dyn Limiter; 1] = [&POOL];
    /// let policy = RetryPolicy::builder().build().unwrap();
    /// let low = (|| Ok::<_, Busy>(1)).retry(&policy).limit(&limiters).priority(Priority::Low).call();
    /// assert_eq!(low.into_result().unwrap_err().0.shed_priority(), Some(Priority::Low));
    /// let high = (|| Ok::<_, Busy>(2)).retry(&policy).limit(&limiters).priority(Priority::High).call();
    /// assert_eq!(high.into_result().unwrap(), 2);
    /// ```
    #[inline]
    pub fn priority(self, priority: Priority) -> Self {
        with!(self, op: self.op.priority(priority))
    }

    crate::engine::gates::shared_gates!(gate_forwarders);

    gate_forwarders! {
        /// Shares a retry budget with other calls: a retry runs only while it
        /// allows ([`StopReason::Throttled`](crate::StopReason) otherwise).
        throttle<'c>(throttle: &'c dyn RetryBudget);
        /// Takes a permit from each of `limiters` before every attempt; a
        /// refusal fails with `E::from(LimitExceeded)` and ends the call.
        limit<'c>(limiters: &'c [&'c dyn Limiter]), E: LimitExceededError;
    }

    /// How long an attempt may wait for the limiters' permits (default 0).
    #[inline]
    pub fn limit_wait(self, wait: Duration) -> Self {
        with!(self, op: self.op.limit_wait(wait))
    }
}

// After `with!`, which its setters use.
mod bounds;
mod exclusive;
mod listeners;
mod run;

pub use bounds::{DebugError, PolicyArg};
pub use exclusive::Exclusive;
