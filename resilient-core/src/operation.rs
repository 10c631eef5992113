//! [`Operation`]: the retry engine. A builder gathers the configuration;
//! [`Operation::start`] turns it into an [`Execution`], a small state
//! machine that decides, after each attempt, whether to stop, wait or try
//! again. The blocking and async drivers share every decision, so both
//! follow one schedule.

use std::future::{Future, poll_fn};
use std::marker::PhantomData;
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::attempt::Attempt;
use crate::backoff::{Backoff, Jitter};
use crate::breaker::{CircuitBreaker, CircuitPermit as Permit};
use crate::clock::{Clock, SystemClock};
use crate::error::{CircuitOpen, CircuitOpenError, ReportableError, TimeoutError, ValidationError};
use crate::events;
use crate::hooks::{
    AnyValue, Classify, NoHint, OnRetry, RateLimit, RetryAll, RetryEvent, Silent, Validate,
};
use crate::policy::{RetryPolicy, Settings};
use crate::report::{
    AttemptKind, AttemptRecord, Delay, DelaySource, ExecutionError, ExecutionReport, FailureKind,
    Outcome, StopReason,
};

/// One resilient operation: the policy, the per-attempt timeout, the
/// circuit breaker, the clock and the user's hooks. Run it with
/// [`run`](Operation::run) or [`run_async`](Operation::run_async) to get an
/// [`Outcome`] with the full report.
///
/// This is what `#[resilient]` expands to. Settings made directly on the
/// operation start from the defaults (one attempt, exponential backoff from
/// 100 ms to 10 s with full jitter); [`policy`](Operation::policy) replaces
/// them with a prebuilt [`RetryPolicy`].
///
/// Unlike [`RetryPolicy::builder`], an operation does not reject values: it
/// is built on every call, often from runtime values, and has no error to
/// return. It makes them harmless instead: a backoff multiplier below 1 (or
/// NaN) counts as 1, `min_retries` above the retries allowed counts as all
/// of them, and `max_attempts(0)` still makes the first attempt.
///
/// ```
/// use resilient::{Backoff, FakeClock, Jitter, Operation, StopReason};
/// use std::time::Duration;
///
/// #[derive(Debug, PartialEq)]
/// enum ApiError { Busy, NotFound }
/// impl std::fmt::Display for ApiError {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "{self:?}")
///     }
/// }
///
/// let clock = FakeClock::new();
/// let outcome = Operation::new()
///     .max_attempts(5)
///     .backoff(Backoff::exponential(Duration::from_secs(1), Duration::from_secs(60)).jitter(Jitter::None))
///     .retry_if(|e| *e == ApiError::Busy)
///     .clock(&clock)
///     .run(|attempt| if attempt.number() < 3 { Err(ApiError::Busy) } else { Err::<(), _>(ApiError::NotFound) });
///
/// assert_eq!(outcome.result(), &Err(ApiError::NotFound));
/// assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
/// assert_eq!(clock.slept(), [Duration::from_secs(1), Duration::from_secs(2)]);
/// ```
#[must_use = "an operation does nothing until it is run"]
pub struct Operation<
    'b,
    T,
    E,
    C = SystemClock,
    Cl = RetryAll,
    Rl = NoHint,
    V = AnyValue,
    Or = Silent,
> {
    common: Common<'b, E>,
    clock: C,
    classify: Cl,
    rate_limit: Rl,
    validate: V,
    on_retry: Or,
    value: PhantomData<fn() -> T>,
}

/// The longest wait or deadline the engine uses: 584 years, what the report
/// can record exactly. Longer values (`Duration::MAX`) are cut to it, so the
/// report always shows what was slept and granted.
pub(crate) const LONGEST: Duration = Duration::from_nanos(u64::MAX - 1);

/// A shared breaker and the error its rejections become.
type Breaker<'b, E> = (&'b CircuitBreaker, fn() -> E);

/// The parts of an operation whose types never change while building.
struct Common<'b, E> {
    settings: Settings,
    timeout: Option<Duration>,
    /// Makes the error of an interrupted attempt; `None`: never interrupt.
    timed_out: Option<fn() -> E>,
    breaker: Option<Breaker<'b, E>>,
    invalid: Option<fn() -> E>,
    /// Renders an error for the report; `None` where no report is kept.
    describe: Option<fn(&E) -> String>,
}

impl<T, E: ReportableError> Operation<'static, T, E> {
    /// An operation with the defaults: one attempt, every error retryable,
    /// the system clock. The report records each error's `Display` text.
    pub fn new() -> Self {
        let mut op = Operation::unreported();
        op.common.describe = Some(E::describe);
        op
    }
}

impl<T, E> Operation<'static, T, E> {
    /// An operation whose report will not be read: errors are not rendered.
    pub(crate) fn unreported() -> Self {
        Operation {
            common: Common {
                settings: Settings::default(),
                timeout: None,
                timed_out: None,
                breaker: None,
                invalid: None,
                describe: None,
            },
            clock: SystemClock,
            classify: RetryAll,
            rate_limit: NoHint,
            validate: AnyValue,
            on_retry: Silent,
            value: PhantomData,
        }
    }
}

impl<T, E: ReportableError> Default for Operation<'static, T, E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Rebuilds an operation with one of its generic parts replaced.
macro_rules! with_part {
    ($op:ident, clock = $value:expr) => {
        with_part!(@build $op, $value, $op.classify, $op.rate_limit, $op.validate, $op.on_retry)
    };
    ($op:ident, classify = $value:expr) => {
        with_part!(@build $op, $op.clock, $value, $op.rate_limit, $op.validate, $op.on_retry)
    };
    ($op:ident, rate_limit = $value:expr) => {
        with_part!(@build $op, $op.clock, $op.classify, $value, $op.validate, $op.on_retry)
    };
    ($op:ident, validate = $value:expr) => {
        with_part!(@build $op, $op.clock, $op.classify, $op.rate_limit, $value, $op.on_retry)
    };
    ($op:ident, on_retry = $value:expr) => {
        with_part!(@build $op, $op.clock, $op.classify, $op.rate_limit, $op.validate, $value)
    };
    (@build $op:ident, $clock:expr, $classify:expr, $rate_limit:expr, $validate:expr, $on_retry:expr) => {
        Operation {
            common: $op.common,
            clock: $clock,
            classify: $classify,
            rate_limit: $rate_limit,
            validate: $validate,
            on_retry: $on_retry,
            value: PhantomData,
        }
    };
}

impl<'b, T, E, C, Cl, Rl, V, Or> Operation<'b, T, E, C, Cl, Rl, V, Or> {
    /// Attempts on the backoff path, the first included: `retries + 1`.
    pub fn max_attempts(mut self, max_attempts: u32) -> Self {
        self.common.settings.max_attempts = max_attempts;
        self
    }

    /// The delay schedule between retries.
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.common.settings.backoff = backoff;
        self
    }

    /// Takes attempts, backoff, caps and rate-limit limits from a policy.
    pub fn policy(mut self, policy: &RetryPolicy) -> Self {
        self.common.settings = policy.settings;
        self
    }

    /// Hard cap on the whole operation. See [`interrupt_at_deadline`](Operation::interrupt_at_deadline)
    /// for cutting an async attempt at the remaining budget.
    pub fn budget(mut self, budget: Duration) -> Self {
        self.common.settings.budget = Some(budget);
        self
    }

    /// Soft cap, honoured once `min_retries` retries have run.
    pub fn max_elapsed(mut self, max_elapsed: Duration) -> Self {
        self.common.settings.max_elapsed = Some(max_elapsed);
        self
    }

    /// Retries guaranteed before the soft cap may stop the operation.
    pub fn min_retries(mut self, min_retries: u32) -> Self {
        self.common.settings.min_retries = min_retries;
        self
    }

    /// Total time the Retry-After path may wait (default 60 s).
    pub fn max_rate_limit_wait(mut self, max_wait: Duration) -> Self {
        self.common.settings.max_rate_limit_wait = max_wait;
        self
    }

    /// Retries the Retry-After path may add (default 10).
    pub fn max_rate_limit_retries(mut self, retries: u32) -> Self {
        self.common.settings.max_rate_limit_retries = retries;
        self
    }

    /// Seeds the jitter so that schedules are reproducible.
    pub fn jitter_seed(mut self, seed: u64) -> Self {
        self.common.settings.seed = Some(seed);
        self
    }

    /// Per-attempt timeout. An async attempt still running at its deadline,
    /// `min(timeout, budget - elapsed)`, is dropped and fails with
    /// `E::from(TimedOut)`. Blocking attempts cannot be interrupted: they
    /// see their deadline through [`Attempt::deadline`].
    pub fn timeout(mut self, timeout: Duration) -> Self
    where
        E: TimeoutError,
    {
        self.common.timeout = Some(timeout);
        self.interrupt_at_deadline()
    }

    /// Cuts an async attempt at its deadline even without a `timeout`, so
    /// that the `budget` holds while an attempt runs. Implied by
    /// [`timeout`](Operation::timeout).
    pub fn interrupt_at_deadline(mut self) -> Self
    where
        E: TimeoutError,
    {
        self.common.timed_out = Some(E::timed_out);
        self
    }

    /// Consults `breaker` before each primary attempt and reports each
    /// result to it. A rejected attempt doesn't run and fails with
    /// `E::from(CircuitOpen)`, classified like any other error.
    pub fn circuit_breaker<'c>(
        self,
        breaker: &'c CircuitBreaker,
    ) -> Operation<'c, T, E, C, Cl, Rl, V, Or>
    where
        'b: 'c,
        E: CircuitOpenError,
    {
        let mut op: Operation<'c, T, E, C, Cl, Rl, V, Or> = self;
        op.common.breaker = Some((breaker, E::circuit_open));
        op
    }

    /// The time source for deadlines, sleeps and the report.
    pub fn clock<C2: Clock>(self, clock: C2) -> Operation<'b, T, E, C2, Cl, Rl, V, Or> {
        with_part!(self, clock = clock)
    }

    /// Retries only the errors for which `classify` returns `true`.
    pub fn retry_if<F>(self, classify: F) -> Operation<'b, T, E, C, F, Rl, V, Or>
    where
        F: Fn(&E) -> bool,
    {
        with_part!(self, classify = classify)
    }

    /// Reads a Retry-After hint from retryable errors: such an error waits
    /// exactly the hint, without consuming a retry and without the backoff.
    pub fn rate_limit<F>(self, hint: F) -> Operation<'b, T, E, C, Cl, F, V, Or>
    where
        F: Fn(&E) -> Option<Duration>,
    {
        with_part!(self, rate_limit = hint)
    }

    /// Rejects successful values for which `check` returns `false`, as
    /// `E::from(ValidationFailed)`.
    pub fn validate<F>(mut self, check: F) -> Operation<'b, T, E, C, Cl, Rl, F, Or>
    where
        F: Fn(&T) -> bool,
        E: ValidationError,
    {
        self.common.invalid = Some(E::validation_failed);
        with_part!(self, validate = check)
    }

    /// Calls `listener` before each wait.
    pub fn on_retry<F>(self, listener: F) -> Operation<'b, T, E, C, Cl, Rl, V, F>
    where
        F: Fn(&RetryEvent<'_>),
    {
        with_part!(self, on_retry = listener)
    }
}

impl<'b, T, E, C, Cl, Rl, V, Or> Operation<'b, T, E, C, Cl, Rl, V, Or>
where
    C: Clock,
    Cl: Classify<E>,
    Rl: RateLimit<E>,
    V: Validate<T>,
    Or: OnRetry,
{
    /// Starts the clock. Drive the returned [`Execution`] with
    /// `next_*` / `attempt_*`, or use [`run`](Operation::run) and
    /// [`run_async`](Operation::run_async), which do it for you.
    pub fn start(&self) -> Execution<'_, 'b, T, E, C, Cl, Rl, V, Or> {
        let start = self.clock.now();
        Execution {
            op: self,
            start,
            now: start,
            elapsed: Duration::ZERO,
            report: ExecutionReport::new(),
            result: None,
            primaries: 0,
            rate_limit_retries: 0,
            rate_limit_waited: Duration::ZERO,
            pending: None,
            stop: None,
            rng: None,
        }
    }

    /// Runs the blocking `f` until it succeeds or the operation stops.
    pub fn run<F>(self, f: F) -> Outcome<T, E>
    where
        F: FnMut(Attempt) -> Result<T, E>,
    {
        self.run_with_fallback(f, None::<fn(Attempt) -> Result<T, E>>)
    }

    /// [`run`](Operation::run), then `fallback` once if the primary
    /// attempts failed.
    pub fn run_with_fallback<F, G>(self, mut f: F, fallback: Option<G>) -> Outcome<T, E>
    where
        F: FnMut(Attempt) -> Result<T, E>,
        G: FnOnce(Attempt) -> Result<T, E>,
    {
        let mut exec = self.start();
        while exec.next_blocking() {
            exec.attempt_blocking(&mut f);
        }
        if let Some(fallback) = fallback {
            if exec.needs_fallback() {
                exec.fallback_blocking(fallback);
            }
        }
        exec.finish()
    }

    /// Runs the async `f` until it succeeds or the operation stops.
    /// Dropping the future stops everything at once.
    pub async fn run_async<F>(self, f: F) -> Outcome<T, E>
    where
        F: AsyncFnMut(Attempt) -> Result<T, E>,
    {
        self.run_async_with_fallback(f, None::<NoFallback<T, E>>)
            .await
    }

    /// [`run_async`](Operation::run_async), then `fallback` once if the
    /// primary attempts failed.
    pub async fn run_async_with_fallback<F, G>(self, mut f: F, fallback: Option<G>) -> Outcome<T, E>
    where
        F: AsyncFnMut(Attempt) -> Result<T, E>,
        G: AsyncFnOnce(Attempt) -> Result<T, E>,
    {
        let mut exec = self.start();
        while exec.next_async().await {
            exec.attempt_async(&mut f).await;
        }
        if let Some(fallback) = fallback {
            if exec.needs_fallback() {
                exec.fallback_async(fallback).await;
            }
        }
        exec.finish()
    }
}

/// Stands in for "no fallback" in [`Operation::run_async`].
type NoFallback<T, E> = fn(Attempt) -> std::future::Ready<Result<T, E>>;

/// A running operation: decides, after each attempt, whether to stop, wait
/// or try again.
///
/// Drive it with a loop; the blocking and async forms are the same:
///
/// ```
/// use resilient::{Backoff, FakeClock, Operation};
///
/// let clock = FakeClock::new();
/// let operation = Operation::new()
///     .max_attempts(3)
///     .backoff(Backoff::none())
///     .clock(&clock);
/// let mut exec = operation.start();
/// while exec.next_blocking() {
///     exec.attempt_blocking(|attempt| if attempt.number() < 3 { Err("busy") } else { Ok(()) });
/// }
/// let outcome = exec.finish();
/// assert_eq!(outcome.report().attempt_count(), 3);
/// ```
pub struct Execution<'o, 'b, T, E, C, Cl, Rl, V, Or> {
    op: &'o Operation<'b, T, E, C, Cl, Rl, V, Or>,
    start: Instant,
    /// The latest clock reading, reused where no time can have passed.
    now: Instant,
    /// `now` as an offset from `start`.
    elapsed: Duration,
    report: ExecutionReport,
    result: Option<Result<T, E>>,
    primaries: u32,
    rate_limit_retries: u32,
    rate_limit_waited: Duration,
    /// The wait decided before the next attempt.
    pending: Option<Delay>,
    stop: Option<StopReason>,
    rng: Option<SmallRng>,
}

/// A failed attempt: the error and what kind of failure produced it.
type Failure<E> = (E, FailureKind);

impl<'b, T, E, C, Cl, Rl, V, Or> Execution<'_, 'b, T, E, C, Cl, Rl, V, Or>
where
    C: Clock,
    Cl: Classify<E>,
    Rl: RateLimit<E>,
    V: Validate<T>,
    Or: OnRetry,
{
    /// Waits (blocking) for the pending delay, if any, and says whether
    /// another attempt should run.
    pub fn next_blocking(&mut self) -> bool {
        if self.stop.is_some() {
            return false;
        }
        if let Some(delay) = self.pending {
            self.op.clock.sleep(delay.duration());
            return self.after_wait();
        }
        true
    }

    /// Waits (async) for the pending delay, if any, and says whether
    /// another attempt should run.
    pub async fn next_async(&mut self) -> bool {
        if self.stop.is_some() {
            return false;
        }
        if let Some(delay) = self.pending {
            self.op.clock.sleep_async(delay.duration()).await;
            return self.after_wait();
        }
        true
    }

    /// Runs one blocking primary attempt and records it.
    pub fn attempt_blocking<F>(&mut self, f: F)
    where
        F: FnOnce(Attempt) -> Result<T, E>,
    {
        let Some((attempt, permit)) = self.begin() else {
            return;
        };
        let result = f(attempt).map_err(|e| (e, FailureKind::Operation));
        self.settle(result, permit);
    }

    /// Runs one async primary attempt, cut at its deadline when the
    /// operation interrupts, and records it.
    pub async fn attempt_async<F>(&mut self, f: F)
    where
        F: AsyncFnOnce(Attempt) -> Result<T, E>,
    {
        let Some((attempt, permit)) = self.begin() else {
            return;
        };
        let result = match (attempt.deadline, self.op.common.timed_out) {
            (Some(deadline), Some(timed_out)) => {
                let (clock, started) = (&self.op.clock, self.now);
                // Measured from the attempt's start, not from the first poll.
                let timer = || {
                    let spent = clock.now().saturating_duration_since(started);
                    clock.sleep_async(deadline.saturating_sub(spent))
                };
                match race(f(attempt), timer).await {
                    Some(result) => result.map_err(|e| (e, FailureKind::Operation)),
                    None => Err((timed_out(), FailureKind::Timeout)),
                }
            }
            _ => f(attempt).await.map_err(|e| (e, FailureKind::Operation)),
        };
        self.settle(result, permit);
    }

    /// Whether the primary attempts ended in failure, so a fallback is due.
    pub fn needs_fallback(&self) -> bool {
        self.stop.is_some() && matches!(self.result, Some(Err(_)))
    }

    /// Runs the blocking fallback once and records it.
    pub fn fallback_blocking<F>(&mut self, f: F)
    where
        F: FnOnce(Attempt) -> Result<T, E>,
    {
        let attempt = self.begin_fallback();
        let result = f(attempt);
        self.settle_fallback(result);
    }

    /// Runs the async fallback once and records it.
    pub async fn fallback_async<F>(&mut self, f: F)
    where
        F: AsyncFnOnce(Attempt) -> Result<T, E>,
    {
        let attempt = self.begin_fallback();
        let result = f(attempt).await;
        self.settle_fallback(result);
    }

    /// Ends the operation: the last result and the report.
    ///
    /// # Panics
    ///
    /// If no attempt was run: `next_*` always allows the first one.
    pub fn finish(mut self) -> Outcome<T, E> {
        let stop = self.stop.unwrap_or(StopReason::Succeeded);
        self.report.finish(self.elapsed, stop);
        let result = self
            .result
            .expect("Execution::finish called before any attempt ran");
        Outcome::new(result, self.report)
    }

    fn describe(&self, error: &E) -> String {
        self.op
            .common
            .describe
            .map(|describe| describe(error))
            .unwrap_or_default()
    }

    /// Reads the clock; returns the time elapsed since the start.
    fn tick(&mut self) -> Duration {
        self.now = self.op.clock.now();
        self.elapsed = self.now.saturating_duration_since(self.start);
        self.elapsed
    }

    /// After a wait: the budget may have passed while sleeping.
    fn after_wait(&mut self) -> bool {
        let elapsed = self.tick();
        if let Some(budget) = self.op.common.settings.budget {
            if elapsed >= budget {
                let delay = self.pending.take();
                self.report.set_unattributed_delay(delay);
                self.stop = Some(StopReason::BudgetExhausted);
                return false;
            }
        }
        true
    }

    /// The time granted to an attempt starting at `started_at`.
    fn deadline(&self, started_at: Duration) -> Option<Duration> {
        let remaining = self
            .op
            .common
            .settings
            .budget
            .map(|budget| budget.saturating_sub(started_at));
        let deadline = match (self.op.common.timeout, remaining) {
            (Some(timeout), Some(remaining)) => Some(timeout.min(remaining)),
            (timeout, remaining) => timeout.or(remaining),
        };
        deadline.map(|d| d.min(LONGEST))
    }

    /// Prepares a primary attempt; `None` if the breaker rejected it (the
    /// rejection is already recorded).
    fn begin(&mut self) -> Option<(Attempt, Option<Permit<'b>>)> {
        // The first attempt starts with the operation: no second clock read.
        let started_at = if self.primaries == 0 && self.pending.is_none() {
            self.elapsed
        } else {
            self.tick()
        };
        let now = self.now;
        self.primaries = self.primaries.saturating_add(1);
        let attempt = Attempt {
            number: self.report.attempt_count().saturating_add(1),
            retry_number: self.primaries - 1,
            deadline: self.deadline(started_at),
            fallback: false,
        };
        self.report.push(AttemptRecord::begin(
            attempt.number,
            AttemptKind::Primary,
            started_at,
            attempt.deadline,
            self.pending.take(),
        ));
        let mut permit = None;
        if let Some((breaker, circuit_open)) = self.op.common.breaker {
            match breaker.try_acquire(now) {
                Ok(granted) => permit = Some(granted),
                Err(CircuitOpen) => {
                    self.fail((circuit_open(), FailureKind::CircuitOpen), None);
                    return None;
                }
            }
        }
        Some((attempt, permit))
    }

    fn settle(&mut self, result: Result<T, Failure<E>>, permit: Option<Permit<'b>>) {
        let end = self.tick();
        let now = self.now;
        self.report
            .last_mut()
            .expect("begin pushed a record")
            .end_at(end);
        let result = match result {
            Ok(value) if self.op.validate.is_valid(&value) => Ok(value),
            Ok(_) => {
                let invalid = self
                    .op
                    .common
                    .invalid
                    .expect("a validator comes with its error");
                Err((invalid(), FailureKind::Validation))
            }
            Err(failure) => Err(failure),
        };
        match result {
            Ok(value) => {
                if let Some(permit) = permit {
                    permit.record_success(now);
                }
                self.result = Some(Ok(value));
                self.stop = Some(StopReason::Succeeded);
            }
            Err(failure) => self.fail(failure, permit),
        }
    }

    /// Records a failed primary attempt, reports it to the breaker that
    /// admitted it (only retryable failures count against a breaker), and
    /// decides what comes next.
    fn fail(&mut self, failure: Failure<E>, permit: Option<Permit<'b>>) {
        let (error, kind) = failure;
        let retryable = self.op.classify.is_retryable(&error);
        if let Some(permit) = permit {
            if retryable {
                permit.record_failure(self.now);
            } else {
                permit.record_success(self.now);
            }
        }
        let hint = if retryable {
            self.op.rate_limit.retry_after(&error)
        } else {
            None
        };
        let message = self.describe(&error);
        let record = self.report.last_mut().expect("begin pushed a record");
        let number = record.number();
        let recorded = record.set_error(ExecutionError::new(kind, retryable, message));
        if kind == FailureKind::CircuitOpen {
            events::circuit_rejected(number);
        }
        events::attempt_failed(number, recorded);
        self.result = Some(Err(error));
        let next = self.decide(retryable, hint, kind, self.elapsed);
        match next {
            Ok(delay) => {
                let record = self.report.last_mut().expect("begin pushed a record");
                let event = RetryEvent {
                    attempt: record.number(),
                    delay: delay.duration(),
                    source: delay.source(),
                    error: record.error().expect("just recorded"),
                };
                self.op.on_retry.on_retry(&event);
                events::retry_scheduled(event.attempt, event.delay, event.source);
                self.pending = Some(delay);
            }
            Err(stop) => self.stop = Some(stop),
        }
    }

    /// After a failure at `elapsed`: the wait before the next attempt, or
    /// why the operation stops.
    fn decide(
        &mut self,
        retryable: bool,
        hint: Option<Duration>,
        kind: FailureKind,
        elapsed: Duration,
    ) -> Result<Delay, StopReason> {
        let settings = self.op.common.settings;
        let rejected = kind == FailureKind::CircuitOpen;
        if !retryable {
            return Err(if rejected {
                StopReason::CircuitOpen
            } else {
                StopReason::NotRetryable
            });
        }
        if settings.budget.is_some_and(|budget| elapsed >= budget) {
            return Err(StopReason::BudgetExhausted);
        }
        let retries_run = self.primaries - 1;
        // A floor above the retries allowed counts as all of them.
        let floor = settings
            .min_retries
            .min(settings.max_attempts.saturating_sub(1));
        if settings
            .max_elapsed
            .is_some_and(|cap| elapsed >= cap && retries_run >= floor)
        {
            return Err(StopReason::BudgetExhausted);
        }
        let starts_too_late = |wait: Duration| {
            settings
                .budget
                .is_some_and(|budget| elapsed.saturating_add(wait) >= budget)
        };
        if let Some(wait) = hint {
            let waited = self.rate_limit_waited.saturating_add(wait);
            if self.rate_limit_retries >= settings.max_rate_limit_retries
                || waited > settings.max_rate_limit_wait
                || starts_too_late(wait)
            {
                events::rate_limit_wait_exceeded(
                    self.report.attempt_count(),
                    wait,
                    self.rate_limit_waited,
                    settings.max_rate_limit_wait,
                );
                return Err(StopReason::RateLimitExhausted);
            }
            self.rate_limit_retries += 1;
            self.rate_limit_waited = waited;
            return Ok(Delay::new(wait.min(LONGEST), DelaySource::RetryAfter));
        }
        // Attempts on the backoff path; Retry-After retries don't count.
        let backoff_attempts = self.primaries - self.rate_limit_retries;
        if backoff_attempts >= settings.max_attempts {
            return Err(if rejected {
                StopReason::CircuitOpen
            } else {
                StopReason::AttemptsExhausted
            });
        }
        let delay = self.backoff_delay(backoff_attempts);
        if starts_too_late(delay) {
            return Err(StopReason::BudgetExhausted);
        }
        Ok(Delay::new(delay.min(LONGEST), DelaySource::Backoff))
    }

    fn backoff_delay(&mut self, retry: u32) -> Duration {
        let backoff = self.op.common.settings.backoff;
        if backoff.jitter_kind() == Jitter::None {
            return backoff.nominal_delay(retry);
        }
        let seed = self.op.common.settings.seed;
        let rng = self.rng.get_or_insert_with(|| match seed {
            Some(seed) => SmallRng::seed_from_u64(seed),
            None => SmallRng::from_rng(&mut rand::rng()),
        });
        backoff.delay(retry, rng)
    }

    fn begin_fallback(&mut self) -> Attempt {
        let started_at = self.tick();
        let attempt = Attempt {
            number: self.report.attempt_count().saturating_add(1),
            retry_number: self.primaries.saturating_sub(1),
            deadline: None,
            fallback: true,
        };
        self.report.push(AttemptRecord::begin(
            attempt.number,
            AttemptKind::Fallback,
            started_at,
            None,
            None,
        ));
        attempt
    }

    fn settle_fallback(&mut self, result: Result<T, E>) {
        let end = self.tick();
        let retryable = match &result {
            Ok(_) => None,
            Err(error) => Some((self.op.classify.is_retryable(error), self.describe(error))),
        };
        let record = self
            .report
            .last_mut()
            .expect("begin_fallback pushed a record");
        record.end_at(end);
        if let Some((retryable, message)) = retryable {
            record.set_error(ExecutionError::new(
                FailureKind::Operation,
                retryable,
                message,
            ));
        }
        events::fallback_used(record.number(), result.is_ok());
        self.result = Some(result);
    }
}

/// Polls `work` against a timer: `Some` with the work's output if it
/// finishes first, `None` if the timer does.
///
/// The timer is made only when the work first returns `Pending`: an
/// attempt that completes on its first poll never reads the clock again
/// nor registers a timer.
async fn race<F, S, M>(work: F, make_timer: M) -> Option<F::Output>
where
    F: Future,
    S: Future<Output = ()>,
    M: FnOnce() -> S,
{
    let mut work = pin!(work);
    let mut make_timer = Some(make_timer);
    let mut timer = pin!(None::<S>);
    poll_fn(|cx| {
        if let Poll::Ready(output) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        if let Some(make) = make_timer.take() {
            timer.set(Some(make()));
        }
        match timer.as_mut().as_pin_mut() {
            Some(timer) => timer.poll(cx).map(|()| None),
            None => Poll::Pending,
        }
    })
    .await
}
