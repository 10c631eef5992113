//! [`Operation`]: the builder of one resilient call, and the `run` methods
//! that drive an [`Execution`] to its [`Outcome`]. The setters that push a
//! hook are `hook_setters.rs`'s; the steps `#[resilient]` calls, hidden from
//! the docs, `protocol.rs`'s. Its first attempt is `first.rs`'s; the plain
//! runs of [`RetryPolicy`] are `policy_runs.rs`.

#[cfg(feature = "tower")]
use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

use super::execution::Execution;
use super::gates::{AdaptiveGate, BreakerGate, ChaosGate, Fault, Gates, LimitGate, shared_gates};
use super::hooks::{HookSet, Hooks};
use super::plan::Plan;
use crate::attempt::Attempt;
use crate::chaos::Switches;
use crate::clock::{Clock, SystemClock, Untimed};
use crate::error::{ReportableError, TimeoutError, debug_text};
use crate::limit::{LimitExceededError, Limiter};
use crate::observe::Tally;
use crate::policy::RetryPolicy;
use crate::report::{Outcome, UNNAMED};
use crate::settings::{Settings, settings_setters};
use crate::throttle::RetryBudget;

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
pub struct Operation<'b, T, E, C = SystemClock, H = Hooks> {
    pub(crate) plan: Plan<'b, T, E, C, H>,
}

impl<T, E: ReportableError> Operation<'static, T, E> {
    /// An operation with the defaults: one attempt, every error retryable,
    /// the system clock. The report records each error's `Display` text.
    #[inline]
    pub fn new() -> Self {
        let mut op = Operation::unreported();
        op.plan.describe = Some(E::describe);
        op
    }
}

impl<T, E> Operation<'static, T, E> {
    /// An operation with the defaults whose report records each error as
    /// `describe` renders it: for an error type without `Display`, its
    /// `Debug` text.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation};
    ///
    /// #[derive(Debug)]
    /// struct Refused { code: u16 }
    ///
    /// let outcome = Operation::described_by(|e: &Refused| format!("{e:?}"))
    ///     .max_attempts(2)
    ///     .clock(FakeClock::new())
    ///     .run(|_| Err::<(), _>(Refused { code: 503 }));
    /// let last = outcome.report().attempts().last().unwrap();
    /// assert_eq!(last.error().unwrap().message(), "Refused { code: 503 }");
    /// ```
    #[inline]
    pub fn described_by(describe: fn(&E) -> String) -> Self {
        Operation::unreported().describe(describe)
    }

    /// An operation with the defaults whose report records each error's
    /// `Debug` text: [`new`](Operation::new) for an error type that is
    /// `Debug` but not `Display`, such as a generic library's error that
    /// is `Display` only for some of its type parameters.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation};
    ///
    /// #[derive(Debug)]
    /// struct Refused { code: u16 }
    ///
    /// let outcome = Operation::described_by_debug()
    ///     .max_attempts(2)
    ///     .clock(FakeClock::new())
    ///     .run(|_| Err::<(), _>(Refused { code: 503 }));
    /// assert_eq!(outcome.report().attempt_count(), 2);
    /// let last = outcome.report().attempts().last().unwrap();
    /// assert_eq!(last.error().unwrap().message(), "Refused { code: 503 }");
    /// ```
    #[inline]
    pub fn described_by_debug() -> Self
    where
        E: std::fmt::Debug,
    {
        Operation::described_by(debug_text::<E>)
    }

    /// An operation whose report will not be read: errors are not rendered.
    #[inline]
    pub(crate) const fn unreported() -> Self {
        Operation {
            plan: Plan {
                settings: Settings::DEFAULT,
                name: Cow::Borrowed(UNNAMED),
                clock: SystemClock,
                hooks: Hooks::NONE,
                timed_out: None,
                gates: Gates::none(),
                invalid: None,
                describe: None,
                tally: None,
                value: PhantomData,
            },
        }
    }
}

impl<T, E: ReportableError> Default for Operation<'static, T, E> {
    fn default() -> Self {
        Self::new()
    }
}

/// `Operation`'s setters of the gates of `shared_gates!`
/// (`gates/mod.rs`): each stores its gate in
/// its field of the gate table, with the maker of the error its refusal
/// becomes, which its bound on `E` provides.
macro_rules! gate_setters {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($arg:ident: $ty:ty) => $field:ident: $gate:ident, E: $bound:path, $maker:ident,
        on a layer: [$($setup:literal),* $(,)?] $value:literal;
    )*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name<'c>(self, $arg: &'c $ty) -> Operation<'c, T, E, C, H>
        where
            'b: 'c,
            E: $bound,
        {
            let mut op: Operation<'c, T, E, C, H> = self;
            op.plan.gates.$field = Some($gate::new($arg, E::$maker));
            op
        }
    )*};
}

/// Rebuilds an operation with its clock replaced, or with one more layer
/// of hooks on its stack.
macro_rules! with_part {
    ($op:ident, clock = $clock:expr) => {
        with_part!(@build $op, $clock, $op.plan.hooks)
    };
    ($op:ident, push $layer:ident($hook:expr)) => {
        with_part!(@build $op, $op.plan.clock, $layer { hook: $hook, rest: $op.plan.hooks })
    };
    (@build $op:ident, $clock:expr, $hooks:expr) => {
        $crate::engine::Operation {
            plan: $crate::engine::plan::Plan {
                settings: $op.plan.settings,
                name: $op.plan.name,
                clock: $clock,
                hooks: $hooks,
                timed_out: $op.plan.timed_out,
                gates: $op.plan.gates,
                invalid: $op.plan.invalid,
                describe: $op.plan.describe,
                tally: $op.plan.tally,
                value: ::std::marker::PhantomData,
            },
        }
    };
}

impl<'b, T, E, C, H> Operation<'b, T, E, C, H> {
    settings_setters!(plan.settings);

    /// Takes attempts, backoff, caps and rate-limit limits from a policy.
    #[inline]
    pub fn policy(mut self, policy: &RetryPolicy) -> Self {
        let timeout = self.plan.settings.timeout;
        self.plan.settings = policy.settings;
        self.plan.settings.timeout = timeout;
        self
    }

    /// How the report renders each error: `Display` for
    /// [`Operation::new`], what the attribute picks (`Display`, or `Debug`
    /// for a type without it), or any function of the error.
    #[inline]
    pub fn describe(mut self, describe: fn(&E) -> String) -> Self {
        self.plan.describe = Some(describe);
        self
    }

    /// Names the operation: the report, its table and every event carry
    /// the name (default `"operation"`; the attribute uses the function's
    /// name). With `metrics` or `dashboard`, a name keeps counts for as
    /// long as the process runs: names given at run time are counted apart
    /// up to a limit, the rest together (`resilient::cardinality`).
    #[inline]
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.plan.name = name.into();
        self
    }

    /// Counts the operation's calls in `tally` rather than in the one
    /// found by its name: what the attribute does, with a `static` per
    /// function, so that a call spends no lookup on its counts.
    #[inline]
    pub(crate) fn tally(mut self, tally: &'static Tally) -> Self {
        self.plan.tally = Some(tally);
        self
    }

    /// Per-attempt timeout. An async attempt still running at its deadline,
    /// `min(timeout, budget - elapsed)`, is dropped and fails with
    /// `E::from(TimedOut)`. Blocking attempts cannot be interrupted: they
    /// see their deadline through [`Attempt::deadline`].
    #[inline]
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self
    where
        E: TimeoutError,
    {
        self.plan.settings.timeout = Some(timeout);
        self.interrupt_at_deadline()
    }

    /// The error an attempt fails with when it is cut at a deadline it
    /// inherited from the attempt its call was made inside, where the
    /// error type makes one (`maker`) and nothing set it yet: what
    /// `#[resilient]` passes for an error that converts `TimedOut`.
    #[inline]
    pub(crate) fn expiring(mut self, maker: Option<fn() -> E>) -> Self {
        if self.plan.timed_out.is_none() {
            self.plan.timed_out = maker;
        }
        self
    }

    /// Cuts an async attempt at its deadline even without a `timeout`, so
    /// that the `budget` holds while an attempt runs. Implied by
    /// [`timeout`](Operation::timeout).
    #[inline]
    pub fn interrupt_at_deadline(mut self) -> Self
    where
        E: TimeoutError,
    {
        self.plan.timed_out = Some(E::timed_out);
        self
    }

    shared_gates!(gate_setters);

    /// Takes a permit from each of `limiters`, in order, before every
    /// attempt (primary, retry or hedge; never the fallback), and returns
    /// them when it ends. An attempt refused a permit doesn't run: the call
    /// fails with `E::from(LimitExceeded)`, stops with
    /// [`StopReason::LimitExceeded`](crate::StopReason::LimitExceeded) and
    /// is not retried; the fallback, if any, runs. By default a refused
    /// attempt doesn't wait: see [`limit_wait`](Operation::limit_wait).
    ///
    /// ```
    /// use resilient::limit::{Bulkhead, Limiter, RateLimiter};
    /// use resilient::{LimitExceeded, Operation, StopReason};
    ///
    /// #[derive(Debug, PartialEq, thiserror::Error)]
    /// enum Error {
    ///     #[error("{0} is busy")]
    ///     Busy(&'static str),
    /// }
    ///
    /// impl From<LimitExceeded> for Error {
    ///     fn from(refusal: LimitExceeded) -> Self {
    ///         Error::Busy(refusal.limiter())
    ///     }
    /// }
    ///
    /// static POOL: Bulkhead = Bulkhead::new(4).named("pool");
    /// static QUOTA: RateLimiter = RateLimiter::per_minute(60).burst(1).named("quota");
    ///
    /// let limiters: [&dyn Limiter; 2] = [&POOL, &QUOTA];
    /// let call = || Operation::new().limit(&limiters).run(|_| Ok::<_, Error>("done"));
    ///
    /// assert_eq!(call().into_result(), Ok("done"));
    /// // The quota's one cell is spent: the next call is refused, not run.
    /// let outcome = call();
    /// assert_eq!(outcome.result(), &Err(Error::Busy("quota")));
    /// assert_eq!(outcome.report().stop_reason(), StopReason::LimitExceeded);
    /// assert_eq!(POOL.available(), 4, "the pool's permit came back");
    /// ```
    #[inline]
    pub fn limit<'c>(self, limiters: &'c [&'c dyn Limiter]) -> Operation<'c, T, E, C, H>
    where
        'b: 'c,
        E: LimitExceededError,
    {
        let mut op: Operation<'c, T, E, C, H> = self;
        op.plan.gates.limit = Some(LimitGate::new(limiters, E::limit_exceeded));
        op
    }

    /// How long an attempt may wait for the permits of its
    /// [`limit`](Operation::limit)s: up to `wait`, and never past the
    /// budget. The wait counts against the budget, and is recorded as the
    /// attempt's [`queued`](crate::AttemptRecord::queued) time. Default: 0,
    /// don't wait. Set it after `limit`.
    ///
    /// ```
    /// use resilient::limit::{Limiter, RateLimiter};
    /// use resilient::{FakeClock, LimitExceeded, Operation};
    /// use std::time::Duration;
    ///
    /// # #[derive(Debug, thiserror::Error)] #[error("busy")] struct Busy;
    /// # impl From<LimitExceeded> for Busy { fn from(_: LimitExceeded) -> Self { Busy } }
    /// let quota = RateLimiter::per_second(4).burst(1);
    /// let limiters: [&dyn Limiter; 1] = [&quota];
    /// let clock = FakeClock::new();
    /// for _ in 0..3 {
    ///     let outcome = Operation::new()
    ///         .clock(&clock)
    ///         .limit(&limiters)
    ///         .limit_wait(Duration::from_millis(300))
    ///         .run(|_| Ok::<_, Busy>(()));
    ///     assert!(outcome.result().is_ok());
    /// }
    /// // The second and third calls waited for their cells, 250 ms apart.
    /// assert_eq!(clock.slept(), [Duration::from_millis(250); 2]);
    /// ```
    #[inline]
    pub fn limit_wait(mut self, wait: Duration) -> Self {
        if let Some(gate) = &mut self.plan.gates.limit {
            gate.set_wait(wait);
        }
        self
    }

    /// Shares a retry budget with other calls: each retryable failure and
    /// each success is reported to it, and a retry runs only while it
    /// allows. A refused retry ends the operation with
    /// [`StopReason::Throttled`](crate::StopReason::Throttled).
    #[inline]
    pub fn throttle<'c>(self, throttle: &'c dyn RetryBudget) -> Operation<'c, T, E, C, H>
    where
        'b: 'c,
    {
        let mut op: Operation<'c, T, E, C, H> = self;
        op.plan.gates.throttle = Some(throttle);
        op
    }

    /// Injects faults, outcomes or latency on purpose, as `switches`
    /// decide attempt by attempt (see [`chaos`](crate::chaos)); what to
    /// inject comes from [`chaos_fault`](Operation::chaos_fault),
    /// [`chaos_outcome`](Operation::chaos_outcome) and
    /// [`chaos_latency`](Operation::chaos_latency). One
    /// [`Chaos`](crate::chaos::Chaos) serves every kind given, drawn once
    /// per attempt; an array gives one per kind, in the order fault,
    /// outcome, latency (kinds not given take no place), each drawn on its
    /// own. A fault and an outcome drawn together make the fault. Fallbacks
    /// are never injected.
    ///
    /// ```
    /// use resilient::chaos::{Chaos, Injection};
    /// use resilient::{Backoff, FakeClock, Operation};
    /// use std::time::Duration;
    ///
    /// static FAULTS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    /// static SLOW: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    ///
    /// let clock = FakeClock::new();
    /// let outcome = Operation::new()
    ///     .max_attempts(2)
    ///     .backoff(Backoff::constant(Duration::from_secs(1)))
    ///     .clock(&clock)
    ///     .chaos([&FAULTS, &SLOW])
    ///     .chaos_fault(|| "injected")
    ///     .chaos_latency(Duration::from_millis(500))
    ///     .run(|_attempt| Ok::<_, &str>("real"));
    /// assert_eq!(outcome.result(), &Err("injected"));
    /// let injected: Vec<_> = outcome.report().attempts().iter().map(|a| a.injected()).collect();
    /// assert_eq!(injected, [Some(Injection::Fault); 2]);
    /// // The latency before each attempt, the backoff between them.
    /// let (latency, backoff) = (Duration::from_millis(500), Duration::from_secs(1));
    /// assert_eq!(clock.slept(), [latency, backoff, latency]);
    /// ```
    #[inline]
    pub fn chaos<'c>(self, switches: impl Into<Switches<'c>>) -> Operation<'c, T, E, C, H>
    where
        'b: 'c,
    {
        let mut op: Operation<'c, T, E, C, H> = self;
        op.plan
            .gates
            .chaos
            .get_or_insert_with(ChaosGate::default)
            .switches = switches.into();
        op
    }

    /// Makes the error an injected fault fails the attempt with: the body
    /// does not run. A closure that captures nothing, made again for each
    /// injection. Needs [`chaos`](Operation::chaos).
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    /// use resilient::{FakeClock, Operation};
    /// use std::cell::Cell;
    ///
    /// static ALWAYS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    ///
    /// let ran = Cell::new(false);
    /// let outcome = Operation::new()
    ///     .clock(FakeClock::new())
    ///     .chaos(&ALWAYS)
    ///     .chaos_fault(|| "injected")
    ///     .run(|_attempt| {
    ///         ran.set(true);
    ///         Ok::<_, &str>("real")
    ///     });
    /// assert_eq!(outcome.into_result(), Err("injected"));
    /// assert!(!ran.get());
    /// ```
    #[inline]
    pub fn chaos_fault(mut self, fault: fn() -> E) -> Self {
        self.plan
            .gates
            .chaos
            .get_or_insert_with(ChaosGate::default)
            .fault = Some(Fault::Fn(fault));
        self
    }

    /// [`chaos_fault`](Operation::chaos_fault) for a layer or a
    /// middleware: `fault` makes the error from what `from` holds.
    #[cfg(feature = "tower")]
    pub(crate) fn chaos_fault_from(
        mut self,
        fault: fn(&(dyn Any + Send + Sync)) -> E,
        from: &'b (dyn Any + Send + Sync),
    ) -> Self {
        self.plan
            .gates
            .chaos
            .get_or_insert_with(ChaosGate::default)
            .fault = Some(Fault::From(fault, from));
        self
    }

    /// Makes the value an injected outcome succeeds the attempt with: the
    /// body does not run. A closure that captures nothing, made again for
    /// each injection. Needs [`chaos`](Operation::chaos).
    ///
    /// ```
    /// use resilient::chaos::{Chaos, Injection};
    /// use resilient::{FakeClock, Operation};
    ///
    /// static ALWAYS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    ///
    /// let outcome = Operation::new()
    ///     .clock(FakeClock::new())
    ///     .chaos(&ALWAYS)
    ///     .chaos_outcome(|| "stale")
    ///     .run(|_attempt| Ok::<_, &str>("fresh"));
    /// assert_eq!(outcome.report().attempts()[0].injected(), Some(Injection::Outcome));
    /// assert_eq!(outcome.into_result(), Ok("stale"));
    /// ```
    #[inline]
    pub fn chaos_outcome(mut self, outcome: fn() -> T) -> Self {
        self.plan
            .gates
            .chaos
            .get_or_insert_with(ChaosGate::default)
            .outcome = Some(outcome);
        self
    }

    /// How long an injected attempt waits before it goes on, on the
    /// operation's clock and inside its deadline: a `timeout` cuts it. A
    /// zero latency injects nothing. Needs [`chaos`](Operation::chaos).
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    /// use resilient::{FakeClock, Operation};
    /// use std::time::Duration;
    ///
    /// static ALWAYS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    ///
    /// let clock = FakeClock::new();
    /// let outcome = Operation::new()
    ///     .clock(&clock)
    ///     .chaos(&ALWAYS)
    ///     .chaos_latency(Duration::from_secs(2))
    ///     .run(|_attempt| Ok::<_, &str>("late"));
    /// assert_eq!(outcome.into_result(), Ok("late"));
    /// assert_eq!(clock.slept(), [Duration::from_secs(2)]);
    /// ```
    #[inline]
    pub fn chaos_latency(mut self, latency: Duration) -> Self {
        self.plan
            .gates
            .chaos
            .get_or_insert_with(ChaosGate::default)
            .latency = crate::time::Nanos::from_duration(latency);
        self
    }

    /// The time source for deadlines, sleeps and the report.
    #[inline]
    pub fn clock<C2: Clock>(self, clock: C2) -> Operation<'b, T, E, C2, H> {
        with_part!(self, clock = clock)
    }

    /// Reads no clock for the report: see [`Untimed`]. Call it after
    /// [`clock`](Operation::clock), whose sleeps it keeps.
    #[inline]
    pub fn untimed(self) -> Operation<'b, T, E, Untimed<C>, H> {
        let clock = Untimed(self.plan.clock);
        with_part!(self, clock = clock)
    }
}

// After `with_part!`, which their setters use.
mod hook_setters;
mod protocol;

impl<'b, T, E, C: Clock, H: HookSet<T, E>> Operation<'b, T, E, C, H> {
    /// Starts the clock. Drive the returned [`Execution`] with
    /// `next_*` / `attempt_*`, or use [`run`](Operation::run) and
    /// [`run_async`](Operation::run_async), which do it for you.
    #[inline]
    pub fn start(&self) -> Execution<'_, 'b, T, E, C, H> {
        Execution::new(&self.plan)
    }

    /// Runs the blocking `f` until it succeeds or the operation stops.
    #[inline]
    pub fn run<F>(self, f: F) -> Outcome<T, E>
    where
        F: FnMut(Attempt) -> Result<T, E>,
    {
        self.run_primary(f).unwrap_or_else(Execution::finish)
    }

    /// [`run`](Operation::run), then `fallback` once if the primary
    /// attempts failed. A fallback that answers the error that ended them
    /// runs through [`run_primary`](Operation::run_primary) and
    /// [`Execution::fallback_blocking`].
    #[inline]
    pub fn run_with_fallback<F, G>(self, f: F, fallback: Option<G>) -> Outcome<T, E>
    where
        F: FnMut(Attempt) -> Result<T, E>,
        G: FnOnce(Attempt) -> Result<T, E>,
    {
        match self.run_primary(f) {
            Ok(outcome) => outcome,
            Err(mut exec) => {
                if let Some(fallback) = fallback
                    && exec.needs_fallback()
                {
                    exec.fallback_blocking(|_, attempt| fallback(attempt));
                }
                exec.finish()
            }
        }
    }

    /// Runs the blocking primary attempts: the outcome if one succeeded,
    /// or else the failed execution, ready for fallbacks
    /// ([`fallback_blocking`](Execution::fallback_blocking)) and
    /// [`finish`](Execution::finish).
    ///
    /// A first attempt that succeeds costs two clock readings and a report
    /// of one record built in place; the rest of the engine runs only after
    /// a failure.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation};
    ///
    /// let operation = Operation::new().max_attempts(2).clock(FakeClock::new());
    /// let failed = operation.run_primary(|_| Err::<u32, _>("down"));
    /// let Err(mut exec) = failed else { unreachable!() };
    /// exec.fallback_blocking(|_error, attempt| Ok(attempt.number() * 10));
    /// let outcome = exec.finish();
    /// assert_eq!(outcome.into_result(), Ok(30));
    /// ```
    #[inline]
    // The large `Err` is the failure path, moved once to the fallbacks.
    #[allow(clippy::result_large_err)]
    pub fn run_primary<F>(&self, mut f: F) -> Result<Outcome<T, E>, Execution<'_, 'b, T, E, C, H>>
    where
        F: FnMut(Attempt) -> Result<T, E>,
    {
        match self.first_attempt(&mut f) {
            Ok(first) => Ok(self.outcome_of(first)),
            Err(first) => self.run_after(first, &mut f),
        }
    }

    /// Runs the async `f` until it succeeds or the operation stops.
    /// Dropping the future stops everything at once.
    ///
    /// `f` makes one future per attempt: an `async |attempt| …` closure
    /// that borrows what it uses, or `|attempt| { let s = s.clone(); async
    /// move { … } }`. The future returned is `Send` whenever those are, so
    /// the call can be spawned on a multi-thread runtime.
    pub async fn run_async<F, Fut>(self, f: F) -> Outcome<T, E>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        match self.run_primary_async(f).await {
            Ok(outcome) => outcome,
            Err(exec) => exec.finish(),
        }
    }

    /// Runs the async primary attempts: the outcome if one succeeded, or
    /// else the failed execution, ready for fallbacks
    /// ([`fallback_async`](Execution::fallback_async)) and
    /// [`finish`](Execution::finish).
    ///
    /// The first attempt runs in this future; the rest of the engine is
    /// boxed and runs only after a failure, so a call that succeeds at once
    /// neither allocates nor carries the retry loop's state.
    // The large `Err` is the failure path, moved once to the fallbacks.
    #[allow(clippy::result_large_err)]
    pub async fn run_primary_async<F, Fut>(
        &self,
        f: F,
    ) -> Result<Outcome<T, E>, Execution<'_, 'b, T, E, C, H>>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut f = f;
        // A closure, not `&mut f`: `&mut F` is an async closure only
        // through `F: AsyncFnMut`, the bound that made futures lose `Send`.
        #[allow(clippy::redundant_closure)]
        let exec = match self.first_attempt_async(|attempt| f(attempt)).await {
            Ok(first) => return Ok(self.outcome_of(first)),
            Err(exec) => exec,
        };
        if exec.stopped() {
            // Nothing left to retry (say, a first attempt through a breaker
            // that succeeded): no box for a loop that would not run.
            return exec.settled();
        }
        Box::pin(exec.run_rest_async(f)).await
    }

    /// The rest of a run whose first attempt, run by the caller, failed
    /// with `failed` after `elapsed` nanoseconds: the retries by `f`, in
    /// this future (the caller boxes it), and the outcome.
    #[cfg(feature = "reqwest")]
    pub(crate) async fn after_first_async<F, Fut>(
        &self,
        elapsed: u64,
        failed: (E, crate::report::FailureKind),
        f: F,
    ) -> Outcome<T, E>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let exec =
            Execution::after_first(&self.plan, elapsed, Err(failed), super::plan::Read::UNREAD);
        let rest = if exec.stopped() {
            exec.settled()
        } else {
            exec.run_rest_async(f).await
        };
        rest.unwrap_or_else(Execution::finish)
    }

    /// [`run_async`](Operation::run_async), then `fallback` once if the
    /// primary attempts failed. A fallback that answers the error that
    /// ended them runs through
    /// [`run_primary_async`](Operation::run_primary_async) and
    /// [`Execution::fallback_async`].
    ///
    /// The fallback runs at most once, so it may be any async closure,
    /// `async move` ones included.
    pub async fn run_async_with_fallback<F, Fut, G>(
        self,
        f: F,
        fallback: Option<G>,
    ) -> Outcome<T, E>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
        G: AsyncFnOnce(Attempt) -> Result<T, E>,
    {
        let mut exec = match self.run_primary_async(f).await {
            Ok(outcome) => return outcome,
            Err(exec) => exec,
        };
        if let Some(fallback) = fallback
            && exec.needs_fallback()
        {
            exec.fallback_async(async |_, attempt| fallback(attempt).await)
                .await;
        }
        exec.finish()
    }
}
