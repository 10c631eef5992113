//! [`Execution`]: one run of an [`Operation`], a small state machine that
//! records each attempt and, after a failure, asks [`schedule`] whether to
//! wait or stop.
//!
//! It has two halves. The typed shell calls the body, classifies its error
//! and keeps the result; it is compiled once per `(T, E, clock, hooks)`, so
//! it is kept thin; it also hands each attempt's permits back to the gates.
//! [`Core`] (`core.rs`) does the bookkeeping (the report, the counters,
//! the schedule, events) without knowing `T` or `E`: it is compiled once,
//! in this crate.
//!
//! The hooks stay a type parameter rather than a `&dyn HookSet<T, E>`: an
//! erased reference would lose the hooks' own `Send` and `Sync`. Without a
//! `Sync` bound every async call's future would stop being `Send`; with
//! one, a blocking call whose `validate` closure counts in a `Cell` would
//! stop compiling. The copies are shared instead where the hooks' types
//! are: the attribute passes `retry_on`, and every hook written as a path,
//! as a function pointer, so the functions with one error type that name
//! their hooks share one failure path; a closure hook keeps a copy of its
//! own.

use std::future::{Future, poll_fn};
use std::marker::PhantomData;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use super::attempt::run::{self, AttemptContext, BoxedRace, Grant};
use super::core::{AttemptFailure, Core};
use super::decide::{self, Refused};
use super::events::{self};
use super::gates::{self, Admission, End, Permits, Refusal};
use super::hooks::{HookSet, Listening};
use super::plan::{Plan, Read};
use crate::attempt::Attempt;
use crate::clock::{Clock, Mark};
use crate::limit::LimitExceeded;
use crate::report::{AttemptKind, FailureKind, Outcome, StopReason};
use crate::time::Nanos;

mod between;
mod end;

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
pub struct Execution<'o, 'b, T, E, C: Clock, H: HookSet<T, E>> {
    plan: &'o Plan<'b, T, E, C, H>,
    core: Core<'o>,
    result: Option<Result<T, E>>,
}

impl<'o, 'b, T, E, C: Clock, H: HookSet<T, E>> Execution<'o, 'b, T, E, C, H> {
    #[inline]
    pub(crate) fn new(plan: &'o Plan<'b, T, E, C, H>) -> Self {
        #[cfg(feature = "config")]
        if let Some(resolved) =
            crate::config::resolve(&plan.name, plan.tally.map(|tally| &tally.config))
        {
            return Execution::configured(plan, plan.clock.now_nanos(), &resolved);
        }
        Execution::new_at(plan, plan.clock.now_nanos())
    }

    /// An execution that started at `start` on the operation's clock,
    /// with the operation's entry in the configuration `read` applied.
    #[inline]
    fn started(plan: &'o Plan<'b, T, E, C, H>, start: u64, read: Read) -> Self {
        #[cfg(feature = "config")]
        if let Some(resolved) = crate::config::resolve_read(
            &plan.name,
            plan.tally.map(|tally| &tally.config),
            read.packed,
        ) {
            return Execution::configured(plan, start, &resolved);
        }
        #[cfg(not(feature = "config"))]
        let _ = read;
        Execution::new_at(plan, start)
    }

    /// The hedge delay of this call: `delay`, the operation's, unless the
    /// installed configuration set one when the call started.
    #[inline]
    pub(crate) fn hedge_delay(&self, delay: Duration) -> Duration {
        #[cfg(feature = "config")]
        if let Some(configured) = &self.core.configured {
            return configured.hedge_delay.unwrap_or(delay);
        }
        delay
    }

    /// An execution whose settings are the operation's with its entry in
    /// the installed configuration applied, read once, here: the call
    /// keeps them whatever is installed while it runs.
    #[cfg(feature = "config")]
    #[cold]
    #[inline(never)]
    fn configured(
        plan: &'o Plan<'b, T, E, C, H>,
        start: u64,
        resolved: &crate::config::Resolved,
    ) -> Self {
        let mut exec = Execution::new_at(plan, start);
        let settings = resolved.apply(plan.settings);
        let core = &mut exec.core;
        core.configured = Some(Box::new(super::core::Configured {
            settings,
            version: resolved.version,
            hedge_delay: resolved.entry.hedge_delay,
        }));
        let (deadline, inherited) = core.granted(&settings, 0);
        (core.first_deadline, core.first_inherited) = (Nanos::optional(deadline), inherited);
        exec
    }

    /// An execution that started at `start` on the operation's clock.
    #[inline]
    fn new_at(plan: &'o Plan<'b, T, E, C, H>, start: u64) -> Self {
        let mut core = Core {
            start,
            now: start,
            first_deadline: Nanos::NONE,
            begun: false,
            first_injected: None,
            first_status: 0,
            first_inherited: false,
            cap: Nanos::optional(crate::deadline::remaining()),
            queued: 0,
            stop: None,
            finished: false,
            name: &plan.name,
            #[cfg(feature = "metrics")]
            tally: plan.tally,
            slow: None,
            #[cfg(feature = "config")]
            configured: None,
        };
        let (deadline, inherited) = core.granted(&plan.settings, 0);
        (core.first_deadline, core.first_inherited) = (Nanos::optional(deadline), inherited);
        Execution {
            plan,
            core,
            result: None,
        }
    }

    /// The execution of an operation whose first attempt ended just now,
    /// `elapsed` nanoseconds after it started, with `result`, without a
    /// breaker to consult, on the configuration it `read`.
    #[cold]
    #[inline(never)]
    pub(crate) fn after_first(
        plan: &'o Plan<'b, T, E, C, H>,
        elapsed: u64,
        result: Result<T, (E, FailureKind)>,
        read: Read,
    ) -> Self {
        // The engine's timeline from here on is the clock's nanoseconds.
        // The retries read the configuration the first attempt read,
        // whatever was installed since.
        let end = plan.clock.now_nanos();
        let mut exec = Execution::started(plan, end.saturating_sub(elapsed), read);
        exec.core.begun = true;
        exec.core.now = end;
        exec.settle(0, result, plan.gates.free_permits(), true);
        exec
    }

    /// Runs the remaining primary attempts: the outcome if one succeeded,
    /// or else the execution, failed.
    ///
    /// The attempt is taken as a trait object: this loop runs only after a
    /// failure, and so is compiled once per operation type rather than once
    /// per function.
    #[inline(never)]
    // The large `Err` is the failure path, moved once to the fallbacks.
    #[allow(clippy::result_large_err)]
    pub(crate) fn run_rest(
        mut self,
        f: &mut dyn FnMut(Attempt) -> Result<T, E>,
    ) -> Result<Outcome<T, E>, Self> {
        while self.next_blocking() {
            self.attempt_blocking(&mut *f);
        }
        self.settled()
    }

    /// Runs the remaining async primary attempts: the outcome if one
    /// succeeded, or else the execution, failed.
    // The large `Err` is the failure path, moved once to the fallbacks.
    #[allow(clippy::result_large_err)]
    pub(crate) async fn run_rest_async<F, Fut>(mut self, mut f: F) -> Result<Outcome<T, E>, Self>
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        // A closure, not `&mut f`: see `Operation::run_primary_async`.
        #[allow(clippy::redundant_closure)]
        self.retry_async(|attempt| f(attempt)).await;
        self.settled()
    }

    /// How many hedges the run started so far.
    pub(crate) fn hedges_started(&self) -> u64 {
        self.core.hedges_started()
    }

    /// Once the primary attempts are over: the outcome if one succeeded,
    /// or else the execution, failed.
    // The large `Err` is the failure path, moved once to the fallbacks.
    #[allow(clippy::result_large_err)]
    pub(crate) fn settled(self) -> Result<Outcome<T, E>, Self> {
        if self.has_succeeded() {
            Ok(self.finish())
        } else {
            Err(self)
        }
    }

    /// What the execution runs, for as long as it lives.
    pub(crate) fn plan(&self) -> &'o Plan<'b, T, E, C, H> {
        self.plan
    }

    /// Reads the clock: the latest reading is now.
    pub(crate) fn read_clock(&mut self) {
        self.core.now = self.plan.clock.now_nanos();
    }

    /// What the gates are asked to admit: an attempt of `kind` starting at
    /// the latest reading.
    pub(crate) fn admission(&self, kind: AttemptKind) -> Admission {
        let elapsed = Duration::from_nanos(self.core.elapsed());
        let left = |bound: Duration| bound.saturating_sub(elapsed);
        let own = self.core.own(&self.plan.settings);
        let budget = own.budget.map(left);
        let enclosing = self.core.cap.get_optional().map(left);
        Admission {
            kind,
            priority: own.priority,
            remaining: match (budget, enclosing) {
                (Some(budget), Some(enclosing)) => Some(budget.min(enclosing)),
                (budget, enclosing) => budget.or(enclosing),
            },
        }
    }

    /// Starts an attempt of `kind` at a new reading of the clock (a gate
    /// may have waited), once its gates answered `admitted`: the attempt,
    /// where its record is, and its permits. A refused attempt is dealt
    /// with as [`decide::refused`] says: a primary one is recorded and ends
    /// the call, a hedge is not started at all.
    #[inline]
    fn begin(
        &mut self,
        kind: AttemptKind,
        admitted: Result<Permits<'b, T, E>, Refusal<E>>,
    ) -> Option<(Attempt, usize, Permits<'b, T, E>)> {
        let queued = admitted
            .as_ref()
            .map_or(0, |permits| self.plan.gates.queued(permits));
        if self.core.begun || queued > 0 {
            self.core.now = self.plan.clock.now_nanos();
        }
        if queued > 0 {
            events::limit_queued(self.core.name, Duration::from_nanos(queued));
        }
        if let Err(refusal) = &admitted {
            if let Some(exceeded) = refusal.limit_exceeded() {
                self.limit_refused(exceeded);
            }
            if refusal.kind == FailureKind::Rejected
                && let Some(gate) = &self.plan.gates.adaptive
            {
                events::adaptive_rejected(self.core.name, gate.name());
            }
        }
        let admitted = match admitted {
            Err(_) if decide::refused(kind) == Refused::Skip => return None,
            admitted => admitted,
        };
        let (attempt, index) = self.core.begin(kind, queued, &self.plan.settings);
        match admitted {
            Ok(permits) => Some((attempt, index, permits)),
            Err(refusal) => {
                self.refused(index, refusal);
                None
            }
        }
    }

    /// Whether the gates let a hedge start: the question the schedule
    /// asks last before a retry.
    pub(crate) fn allows_retry(&self) -> bool {
        self.plan.gates.allows_retry()
    }

    /// Records the end of the attempt at `index` of a round, at the latest
    /// reading. A failure that is the `last` of its round is decided on, as
    /// any failed attempt; so is one that no other attempt of the round
    /// could change. [`stopped`](Execution::stopped) then says whether the
    /// round (and the call) is over.
    #[inline]
    pub(crate) fn settle(
        &mut self,
        index: usize,
        result: Result<T, (E, FailureKind)>,
        permits: Permits<'b, T, E>,
        last: bool,
    ) {
        let status = self.plan.hooks.status(result.as_ref().map_err(|(e, _)| e));
        let rtt = self.core.end_record(index, status);
        match result {
            Ok(value) if self.plan.hooks.is_valid(&value) => {
                let kind = self.core.kind_of(index);
                let ended = gates::Settlement::new(kind, rtt, End::Success);
                self.plan.gates.settle(&self.plan.clock, permits, &ended);
                self.core.record_success(kind);
                self.result = Some(Ok(value));
            }
            Ok(_) => {
                let invalid = self.plan.invalid.expect("a validator comes with its error");
                let failed = (invalid(), FailureKind::Validation);
                self.fail(index, failed, permits, rtt, last);
            }
            Err(failed) => self.fail(index, failed, permits, rtt, last),
        }
    }

    /// Records the attempt at `index` as dropped at the latest reading,
    /// because another attempt ended its round (it succeeded, or failed in
    /// a way no other attempt could change), and gives its permits back.
    pub(crate) fn cancel(&mut self, index: usize, permits: Permits<'b, T, E>) {
        let why = if self.has_succeeded() {
            "dropped: another attempt succeeded first"
        } else {
            "dropped: another attempt ended the call"
        };
        let rtt = self.core.cancel(index, why);
        let ended = gates::Settlement::new(AttemptKind::Hedge, rtt, End::Cancelled);
        self.plan.gates.settle(&self.plan.clock, permits, &ended);
    }

    /// Records the failure of the attempt at `index`, gives its permits
    /// back, and decides what comes next if it ends its round.
    #[cold]
    #[inline(never)]
    fn fail(
        &mut self,
        index: usize,
        (error, kind): (E, FailureKind),
        permits: Permits<'b, T, E>,
        rtt: u64,
        last: bool,
    ) {
        let attempt_kind = self.core.kind_of(index);
        let failed = self.classify(&error, kind, permits, attempt_kind, rtt, None);
        self.fail_at(index, error, failed, last);
    }

    /// A limiter refused an attempt: counted for the operation and that
    /// limiter.
    #[cold]
    fn limit_refused(&self, exceeded: &LimitExceeded) {
        events::limit_refused(self.core.name, exceeded.limiter(), exceeded.shed_priority());
        #[cfg(any(feature = "metrics", feature = "dashboard"))]
        if let Some(gate) = &self.plan.gates.limit {
            crate::observe::limits::refused(self.core.name, gate.limiters(), exceeded);
        }
    }

    /// Records the refusal of the primary attempt whose record is at
    /// `index`: it fails with the refusal's error, and the call stops.
    #[cold]
    #[inline(never)]
    fn refused(&mut self, index: usize, refusal: Refusal<E>) {
        let error = refusal.error();
        let failed = self.classify(
            &error,
            refusal.kind,
            Permits::none(),
            AttemptKind::Primary,
            0,
            Some(refusal.stop),
        );
        self.fail_at(index, error, failed, true);
    }

    /// Records the failure of the attempt at `index`, which failed with
    /// `error`, and decides what comes next if it ends its round.
    fn fail_at(&mut self, index: usize, error: E, failed: AttemptFailure, last: bool) {
        self.result = Some(Err(error));
        self.core.keep_report(&self.plan.settings);
        let gates = &self.plan.gates;
        let listening = Listening {
            hooks: &self.plan.hooks,
            error: self
                .result
                .as_ref()
                .and_then(|result| result.as_ref().err()),
            value: PhantomData,
        };
        let hooks = &self.plan.hooks;
        self.core.fail_at(
            index,
            failed,
            &listening,
            &mut || gates.allows_retry(),
            &|retry| hooks.next_delay(retry),
            last,
        );
    }

    /// What the engine needs to know of a failed attempt's error; gives
    /// the attempt's permits back to its gates with the verdict. A gate's
    /// refusal (`refused`) ends the call for its reason; an error the
    /// operation ignores ends it too, and its gates hear it as an attempt
    /// that did not run.
    fn classify(
        &self,
        error: &E,
        kind: FailureKind,
        permits: Permits<'b, T, E>,
        attempt_kind: AttemptKind,
        rtt: u64,
        refused: Option<StopReason>,
    ) -> AttemptFailure {
        let hooks = &self.plan.hooks;
        let ignored = refused.is_none() && hooks.is_ignored(error);
        let retryable = !ignored && hooks.is_retryable(error);
        let hint = if retryable {
            hooks.retry_after(error)
        } else {
            None
        };
        let end = if ignored {
            End::NotRun
        } else {
            End::Failure {
                kind,
                retryable,
                throttled: hint.is_some(),
            }
        };
        let ended = gates::Settlement::new(attempt_kind, rtt, end);
        self.plan.gates.settle(&self.plan.clock, permits, &ended);
        AttemptFailure {
            kind,
            retryable,
            hint,
            message: self.plan.describe(error),
            ends: refused.or(ignored.then_some(StopReason::Ignored)),
        }
    }

    /// Whether a primary attempt succeeded.
    #[inline]
    pub fn has_succeeded(&self) -> bool {
        matches!(self.result, Some(Ok(_)))
    }

    /// The former name of [`has_succeeded`](Execution::has_succeeded).
    #[deprecated(since = "0.1.0", note = "renamed `has_succeeded`")]
    #[doc(hidden)]
    #[inline]
    pub fn succeeded(&self) -> bool {
        self.has_succeeded()
    }

    /// Whether the primary attempts are over (one succeeded, or the policy
    /// stopped): `next_*` would return `false` without waiting.
    ///
    /// Lets a caller skip setting up a retry loop that would not run.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.core.stop.is_some()
    }

    /// Runs one blocking primary attempt and records it.
    #[inline]
    pub fn attempt_blocking<F>(&mut self, f: F)
    where
        F: FnOnce(Attempt) -> Result<T, E>,
    {
        let at = self.admission(AttemptKind::Primary);
        let admitted = self.plan.gates.admit_blocking(&self.plan.clock, &at);
        let Some(Opened {
            context,
            index,
            permits,
        }) = self.open(AttemptKind::Primary, admitted)
        else {
            return;
        };
        let result = context.run_blocking(&self.plan.clock, self.plan.span_name(), f);
        self.record(index, run::ran(result), permits);
    }

    /// Runs one async primary attempt, cut at its deadline when the
    /// operation interrupts, and records it. `f` makes the attempt's future
    /// from its [`Attempt`]: an `async` closure, or a closure calling one
    /// that lives across attempts (`|attempt| body(attempt)`).
    #[inline]
    pub async fn attempt_async<F, Fut>(&mut self, f: F)
    where
        F: FnOnce(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        // Only what touches the body is compiled per body: its admission
        // and its course are the same for every function of the
        // operation's types.
        let plan = self.plan;
        let Some((index, permits, context)) = self.begin_body().await else {
            return;
        };
        let mut work = pin!(f(context.attempt()));
        let output = run::raced_within!(
            &context.grant,
            &plan.clock,
            context.race(),
            work,
            plan.span_name()
        );
        self.record(index, context.grant.ended(output), permits);
    }

    /// Begins a primary attempt once the gates admit it, waiting if one
    /// may: where its record is, its permits, the attempt and its course.
    /// `None` if they refused it, or replaced its body, whose injected
    /// result is then recorded here.
    async fn begin_body(&mut self) -> Option<(usize, Permits<'b, T, E>, AttemptContext<T, E>)> {
        let plan = self.plan;
        let Opened {
            mut context,
            index,
            permits,
        } = self.start_async(AttemptKind::Primary).await?;
        match context.take_replaced() {
            None => Some((index, permits, context)),
            Some(injected) => {
                let result = context.replaced_after(&plan.clock, injected).await;
                self.record(index, result, permits);
                None
            }
        }
    }

    /// Records the end of the primary attempt at `index`, now.
    fn record(
        &mut self,
        index: usize,
        result: Result<T, (E, FailureKind)>,
        permits: Permits<'b, T, E>,
    ) {
        self.read_clock();
        self.settle(index, result, permits, true);
    }

    /// Runs the remaining primary attempts, each with the future `f` makes,
    /// until the call stops: what [`next_async`](Self::next_async) and
    /// [`attempt_async`](Self::attempt_async) do in a loop.
    ///
    /// Only the loop and the race of the body are compiled per body: the
    /// wait, the admission, an injected result and the record of each
    /// attempt are the same future and calls for every function of the
    /// operation's types.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
    /// let operation = Operation::new().max_attempts(3).clock(FakeClock::new());
    /// let mut exec = operation.start();
    /// exec.retry_async(|attempt| async move { if attempt.number() < 3 { Err("down") } else { Ok(7) } }).await;
    /// let outcome = exec.finish();
    /// assert_eq!(outcome.report().attempt_count(), 3);
    /// assert_eq!(outcome.into_result(), Ok(7));
    /// # });
    /// ```
    pub async fn retry_async<F, Fut>(&mut self, mut f: F)
    where
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        while let Some(mut next) = self.next_running().await {
            let work = pin!(f(next.attempt()));
            self.drive(&mut next, work).await;
        }
    }

    /// Runs the attempt [`next_running`](Self::next_running) began, whose
    /// body's future is `work`, and records it: a loop over a body that is
    /// an `AsyncFnMut` awaits this. A plain function, type-checked once,
    /// where the same lines in each function's expansion were checked for
    /// each function.
    #[inline]
    pub(crate) fn drive<'x, Fut>(
        &'x mut self,
        next: &'x mut Next<'o, 'b, T, E>,
        mut work: Pin<&'x mut Fut>,
    ) -> impl Future<Output = ()> + use<'x, 'o, 'b, T, E, C, H, Fut>
    where
        Fut: Future<Output = Result<T, E>>,
    {
        poll_fn(move |cx| self.poll_next(next, cx, work.as_mut()))
    }

    /// Waits for the next primary attempt and begins it: `None` once the
    /// call stops. An attempt whose gates replace its body runs and is
    /// recorded here, and one they refuse is skipped. The same future for
    /// every function of the operation's types; with
    /// [`poll_next`](Self::poll_next), a retry loop whose body is an
    /// `AsyncFnMut` (as `#[resilient]` writes it) compiles only the loop
    /// and the call into the body per function.
    pub(crate) async fn next_running(&mut self) -> Option<Next<'o, 'b, T, E>> {
        while self.next_async().await {
            if let Some((index, permits, context)) = self.begin_body().await {
                return Some(Next {
                    index,
                    permits: Some(permits),
                    race: BoxedRace::new(context.race()),
                    grant: context.grant,
                });
            }
        }
        None
    }

    /// Polls the attempt [`next_running`](Self::next_running) began, whose
    /// body's future is `work`, within its deadline; once it ends, records
    /// it. Out of line: one copy for every function of the operation's
    /// types, the body a trait object made at each poll.
    #[inline(never)]
    pub(crate) fn poll_next(
        &mut self,
        next: &mut Next<'o, 'b, T, E>,
        cx: &mut Context<'_>,
        work: Pin<&mut dyn Future<Output = Result<T, E>>>,
    ) -> Poll<()> {
        let plan = self.plan;
        let output = ready!(
            next.race
                .poll(&next.grant, &plan.clock, cx, work, plan.span_name())
        );
        // An attempt ends once: its permits are taken when it does.
        if let Some(permits) = next.permits.take() {
            self.record(next.index, next.grant.ended(output), permits);
        }
        Poll::Ready(())
    }

    /// Asks the gates to admit an attempt of `kind`, waiting if one may,
    /// and [opens](Self::open) it; `None` if it was refused.
    async fn start_async(&mut self, kind: AttemptKind) -> Option<Opened<'b, T, E>> {
        let plan = self.plan;
        let at = self.admission(kind);
        let admitted = plan.gates.admit_async(&plan.clock, &at).await;
        self.open(kind, admitted)
    }

    /// Opens an attempt of `kind` once its gates answered `admitted`: the
    /// one place an admitted attempt begins, whatever runs it (blocking,
    /// async, a retry, a hedge). Its context (what it was granted, what
    /// its gates injected), where its record is, and its permits; `None`
    /// if it doesn't start (see [`begin`](Self::begin)).
    #[inline]
    pub(crate) fn open(
        &mut self,
        kind: AttemptKind,
        admitted: Result<Permits<'b, T, E>, Refusal<E>>,
    ) -> Option<Opened<'b, T, E>> {
        let admitted = self.within_enclosing(kind, admitted);
        let (attempt, index, mut permits) = self.begin(kind, admitted)?;
        let injection = self.inject(attempt, &mut permits, index);
        let grant = Grant {
            attempt,
            started: Mark::nanos(self.core.now),
            timed_out: self.plan.timed_out,
        };
        Some(Opened {
            context: AttemptContext::new(grant, injection),
            index,
            permits,
        })
    }

    /// An attempt the gates `admitted`, unless the attempt this call was
    /// made inside has no time left for it: then it is refused, as timed
    /// out, and the call stops with `BudgetExhausted`, its permits back
    /// unused. A call that can't make the timeout's error (it doesn't
    /// interrupt) runs its first attempt all the same, within the grant.
    fn within_enclosing(
        &mut self,
        kind: AttemptKind,
        admitted: Result<Permits<'b, T, E>, Refusal<E>>,
    ) -> Result<Permits<'b, T, E>, Refusal<E>> {
        let Some(timed_out) = self.plan.timed_out else {
            return admitted;
        };
        if admitted.is_err() || self.core.cap.get_optional().is_none() {
            return admitted;
        }
        self.read_clock();
        let Ok(permits) = admitted else {
            return admitted;
        };
        if !self.core.cap_spent() {
            return Ok(permits);
        }
        let ended = gates::Settlement::new(kind, 0, End::NotRun);
        self.plan.gates.settle(&self.plan.clock, permits, &ended);
        Err(Refusal {
            kind: FailureKind::Timeout,
            stop: crate::report::StopReason::BudgetExhausted,
            error: gates::MakeError::Marker(timed_out),
        })
    }
}

/// An attempt [`Execution::open`] began: its context, where its record is
/// in the report, and its permits.
pub(crate) struct Opened<'b, T, E> {
    pub(crate) context: AttemptContext<T, E>,
    pub(crate) index: usize,
    pub(crate) permits: Permits<'b, T, E>,
}

/// An attempt `__private::next_running` began, for `__private::drive` to
/// run: an expansion detail of `#[resilient]`.
#[doc(hidden)]
pub struct Next<'o, 'b, T, E> {
    index: usize,
    permits: Option<Permits<'b, T, E>>,
    grant: Grant<E>,
    race: BoxedRace<'o>,
}

impl<T, E> Next<'_, '_, T, E> {
    /// The attempt, for the body.
    #[inline]
    pub fn attempt(&self) -> Attempt {
        self.grant.attempt
    }
}
