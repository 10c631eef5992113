//! What `#[resilient]`'s expansion calls on an [`Operation`], through
//! `crate::__private` (`engine/expansion.rs`): the first attempt run before
//! the rest is built, and the steps that go on from it.

use std::borrow::Cow;
use std::time::Duration;

use super::Operation;
use crate::attempt::Attempt;
use crate::clock::{Clock, Mark};
use crate::engine::attempt::run::{AttemptContext, Grant};
use crate::engine::attempt::terms::FirstTerms;
use crate::engine::execution::Execution;
use crate::engine::first::{
    Cancel, FirstFailure, FirstReads, FirstSuccess, MakeOperation, Running, timed_first,
};
use crate::engine::hooks::HookSet;
use crate::engine::plan::{self, NamedListeners};
use crate::report::{ExecutionReport, Outcome};

impl<'b, T, E, C: Clock, H: HookSet<T, E>> Operation<'b, T, E, C, H> {
    /// Runs the first blocking attempt: its value if it succeeded, for
    /// [`outcome_of`](Operation::outcome_of) to turn into the outcome, or
    /// else how it failed, for [`run_after`](Operation::run_after) to go
    /// on from. An operation whose gates must admit the first attempt (a
    /// breaker, a limiter) leaves it to `run_after`.
    ///
    /// What [`run_primary`](Operation::run_primary) does, in two steps, so
    /// that the operation a failure needs may be built only then: see
    /// `__private::first_attempt_async_of`.
    // The large `Err` holds the failed result, moved once to `run_after`.
    #[allow(clippy::result_large_err)]
    #[inline]
    pub(crate) fn first_attempt<F>(
        &self,
        f: &mut F,
    ) -> Result<FirstSuccess<T, E>, FirstFailure<T, E>>
    where
        F: FnMut(Attempt) -> Result<T, E>,
    {
        let terms = self.first_terms_with(None);
        if terms.general {
            return Err(FirstFailure::NOT_RUN);
        }
        timed_first(
            &self.plan.clock,
            terms.deadline,
            f,
            |value| self.plan.hooks.is_valid(value),
            (
                self.named_listeners().map(|heard| heard.from(terms.read)),
                terms.read,
            ),
        )
    }

    /// The blocking attempts after `first`, by `f`: the outcome if one
    /// succeeded, or else the failed execution, ready for fallbacks and
    /// [`finish`](Execution::finish). See
    /// [`first_attempt`](Operation::first_attempt).
    ///
    /// The attempt is taken as a trait object, as by the retry loop: the
    /// failure path is compiled once per operation type, not once per
    /// function.
    // The large `Err` is the failure path, moved once to the fallbacks.
    #[allow(clippy::result_large_err)]
    pub(crate) fn run_after(
        &self,
        first: FirstFailure<T, E>,
        f: &mut dyn FnMut(Attempt) -> Result<T, E>,
    ) -> Result<Outcome<T, E>, Execution<'_, 'b, T, E, C, H>> {
        self.resume(first).run_rest(f)
    }

    /// This operation's entry in the installed configuration, as its
    /// first attempt reads it.
    #[inline(always)]
    fn entry(&self) -> plan::Entry {
        plan::entry(&self.plan.name, self.plan.tally)
    }

    /// Who hears of a first success, if nothing else needs telling (see
    /// [`NamedListeners`]).
    #[inline(always)]
    pub(crate) fn named_listeners(&self) -> Option<NamedListeners> {
        let plan = &self.plan;
        match plan.name {
            Cow::Borrowed(name) if plan.gates.is_empty() && !H::REPORTS => Some(NamedListeners {
                name,
                tally: plan.tally,
                ends: !plan.settings.report_deferred,
                read: plan::Read::NOTHING,
            }),
            _ => None,
        }
    }

    /// The outcome of a first attempt that succeeded, as
    /// [`outcome_of`](Operation::outcome_of) makes it on the operation
    /// `make` builds; built only if the outcome needs more of it than
    /// `first` holds (its gates, a report hook, a name made at run time).
    ///
    /// `#[resilient]` calls this where every option's value is a constant:
    /// a call that succeeds at once then compiles to the body between two
    /// clock readings and one call that writes its outcome.
    #[inline(always)]
    pub(crate) fn outcome_from(
        first: FirstSuccess<T, E>,
        make: &dyn MakeOperation<Self>,
    ) -> Outcome<T, E> {
        match first.listeners {
            Some(listeners) => {
                let settings = || make.make().plan.settings;
                first.outcome_heard_by(listeners, crate::observe::SettingsOf::Made(&settings))
            }
            None => Self::outcome_made(first, make),
        }
    }

    /// [`outcome_of`](Operation::outcome_of) on the operation `make` builds:
    /// out of line, so that a function whose first success needs nothing
    /// more compiles no copy of it.
    #[inline(never)]
    fn outcome_made(first: FirstSuccess<T, E>, make: &dyn MakeOperation<Self>) -> Outcome<T, E> {
        make.make().outcome_of(first)
    }

    /// [`run_after`](Operation::run_after) and then
    /// [`finish`](Execution::finish), on the operation `make` builds: the
    /// outcome of the blocking attempts after `first`, for a function
    /// without fallbacks.
    ///
    /// One call, out of line, and one copy for every function of the same
    /// operation type: what a function compiles for its failure path is
    /// this call.
    #[inline(never)]
    pub(crate) fn finish_after(
        make: &dyn MakeOperation<Self>,
        first: FirstFailure<T, E>,
        f: &mut dyn FnMut(Attempt) -> Result<T, E>,
    ) -> Outcome<T, E> {
        let op = make.make();
        op.run_after(first, f).unwrap_or_else(Execution::finish)
    }

    /// The outcome of a first attempt that succeeded with `value`.
    // Always inlined: out of line, the whole operation is written to memory
    // to be passed by reference, which costs more than this function.
    #[inline(always)]
    fn first_success(
        &self,
        result: Result<T, E>,
        elapsed: u64,
        (deadline, read): (Option<Duration>, plan::Read),
    ) -> Outcome<T, E> {
        let status = self.plan.hooks.status(result.as_ref());
        Outcome::new(result, self.first_report(elapsed, deadline, status, read))
    }

    /// The report of a first attempt that succeeded after `elapsed`
    /// nanoseconds, told to the gates, the counts and the hooks.
    // Always inlined, as `first_success`.
    #[inline(always)]
    pub(crate) fn first_report(
        &self,
        elapsed: u64,
        deadline: Option<Duration>,
        status: u16,
        read: plan::Read,
    ) -> ExecutionReport {
        let plan = &self.plan;
        let told = plan::Listeners {
            name: &plan.name,
            tally: plan.tally,
            gates: &plan.gates,
            clock: &plan.clock,
            #[cfg(feature = "dashboard")]
            settings: crate::observe::SettingsOf::Built(&plan.settings),
        };
        let on_report = (!plan.settings.report_deferred)
            .then_some(|report: &ExecutionReport| plan.hooks.on_report(report));
        let endpoint = plan.hooks.endpoint();
        told.report(elapsed, deadline, (status, endpoint), on_report, read)
    }

    /// The outcome of a first attempt that
    /// [`first_attempt_async`](Operation::first_attempt_async) saw succeed.
    // Always inlined, as `first_success`.
    #[inline(always)]
    pub(crate) fn outcome_of(&self, first: FirstSuccess<T, E>) -> Outcome<T, E> {
        // An operation whose first success has no `NamedListeners` runs under an
        // entry of the installed configuration on the general path only.
        let read = first.read();
        self.first_success(first.result, first.elapsed, (first.deadline, read))
    }

    /// Runs the first async attempt: its value if it succeeded, for
    /// [`outcome_of`](Operation::outcome_of) to turn into the outcome, or
    /// else the execution, to drive through the retries (`next_async` /
    /// `attempt_async`), fallbacks and [`finish`](Execution::finish).
    ///
    /// This is the success path `#[resilient]` takes: two clock readings
    /// and a report of one record built in place. An operation with a
    /// circuit breaker always takes the general path: its first attempt
    /// comes back as an execution, which may already have succeeded.
    // The large `Err` is the failure path, moved once to the retries.
    #[allow(clippy::result_large_err)]
    #[inline]
    pub(crate) fn first_attempt_async<F, Fut>(
        &self,
        f: F,
    ) -> impl Future<Output = Result<FirstSuccess<T, E>, Execution<'_, 'b, T, E, C, H>>>
    where
        F: FnOnce(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        // Everything the settings decide is read here, before the future
        // is made: the settings were just written by the caller, so these
        // reads fold into constants instead of loads from its future.
        let FirstTerms {
            general,
            deadline,
            timed_out,
            read,
        } = self.first_async_terms();
        let mut running = Running::idle(self, Mark::NONE);
        async move {
            if general {
                let mut exec = running.on.start();
                exec.attempt_async(f).await;
                return Err(exec);
            }
            let grant = Grant::first(deadline, running.on.plan.clock.mark(), timed_out);
            running.began(grant.started);
            let result = AttemptContext::plain(grant)
                .run_async(&running.on.plan, f)
                .await;
            let mark = running.ended();
            let op = running.on;
            let elapsed = op.plan.clock.nanos_since(mark);
            match result {
                Ok(value) if op.plan.hooks.is_valid(&value) => {
                    let heard = op.named_listeners().map(|heard| heard.from(read));
                    Ok(FirstSuccess::of(value, elapsed, deadline, heard))
                }
                result => Err(Execution::after_first(&op.plan, elapsed, result, read)),
            }
        }
    }

    /// What an async first attempt reads of the settings before its
    /// future is made.
    #[inline]
    pub(crate) fn first_async_terms(&self) -> FirstTerms<E> {
        self.first_terms_with(self.plan.timed_out)
    }

    /// The terms of the first attempt (see [`FirstTerms::of`]), its
    /// deadline cutting it with `timed_out`'s error.
    #[inline(always)]
    fn first_terms_with(&self, timed_out: Option<fn() -> E>) -> FirstTerms<E> {
        let gated = !self.plan.gates.first_is_free();
        let heard = self.named_listeners().is_some();
        FirstTerms::of(&self.plan.settings, self.entry(), (gated, heard), timed_out)
    }

    /// The execution after `first`, for the retries (`next_async` /
    /// `attempt_async`), fallbacks and [`finish`](Execution::finish),
    /// without running anything: a first attempt that a gate must admit is
    /// then the first that `next_async` lets run. See
    /// [`resume_async`](Operation::resume_async), which runs that one in
    /// its own future, so that a function whose gates admit it and whose
    /// body succeeds goes on without the retry loop.
    pub(crate) fn resume(&self, first: FirstFailure<T, E>) -> Execution<'_, 'b, T, E, C, H> {
        let elapsed = first.elapsed;
        match first.into_ran() {
            Some((result, read)) => Execution::after_first(&self.plan, elapsed, result, read),
            None => self.start(),
        }
    }

    /// The execution after `first`, for the retries (`next_async` /
    /// `attempt_async`), fallbacks and [`finish`](Execution::finish): a
    /// first attempt that a gate must admit runs here, through `f`. See
    /// `__private::first_attempt_async_of`.
    pub(crate) async fn resume_async<F, Fut>(
        &self,
        first: FirstFailure<T, E>,
        f: F,
    ) -> Execution<'_, 'b, T, E, C, H>
    where
        F: FnOnce(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let elapsed = first.elapsed;
        match first.into_ran() {
            Some((result, read)) => Execution::after_first(&self.plan, elapsed, result, read),
            None => {
                let mut exec = self.start();
                exec.attempt_async(f).await;
                exec
            }
        }
    }
}

/// What the first attempt reads of an operation.
impl<T, E, C: Clock, H: HookSet<T, E>> FirstReads<T, E> for Operation<'_, T, E, C, H> {
    type Clock = C;
    type Built = Self;

    #[inline(always)]
    fn built(self) -> Self {
        self
    }

    #[inline(always)]
    fn outcome_from(first: FirstSuccess<T, E>, make: &impl Fn() -> Self) -> Outcome<T, E> {
        Operation::outcome_from(first, make)
    }

    #[inline(always)]
    fn finish_after(
        make: &impl Fn() -> Self,
        first: FirstFailure<T, E>,
        f: &mut dyn FnMut(Attempt) -> Result<T, E>,
    ) -> Outcome<T, E> {
        Operation::finish_after(make, first, f)
    }

    #[inline(always)]
    fn first_terms(&self) -> FirstTerms<E> {
        self.first_async_terms()
    }

    #[inline(always)]
    fn into_clock(self) -> C {
        self.plan.clock
    }

    #[inline(always)]
    fn accepts(&self, value: &T) -> bool {
        self.plan.hooks.is_valid(value)
    }

    #[inline(always)]
    fn named_listeners(&self) -> Option<NamedListeners> {
        Operation::named_listeners(self)
    }

    #[cold]
    fn cancelled(self, elapsed: u64) {
        Execution::first_cancelled(&self.plan, elapsed);
    }
}

/// What the first attempt reads of an operation built once, before the
/// run: the same, read where it is, and the retries run on it.
impl<'o, T, E, C: Clock, H: HookSet<T, E>> FirstReads<T, E> for &'o Operation<'_, T, E, C, H> {
    type Clock = &'o C;
    type Built = Self;

    #[inline(always)]
    fn built(self) -> Self {
        self
    }

    #[inline(always)]
    fn outcome_from(first: FirstSuccess<T, E>, make: &impl Fn() -> Self) -> Outcome<T, E> {
        make().outcome_of(first)
    }

    #[inline(always)]
    fn finish_after(
        make: &impl Fn() -> Self,
        first: FirstFailure<T, E>,
        f: &mut dyn FnMut(Attempt) -> Result<T, E>,
    ) -> Outcome<T, E> {
        make().run_after(first, f).unwrap_or_else(Execution::finish)
    }

    #[inline(always)]
    fn first_terms(&self) -> FirstTerms<E> {
        self.first_async_terms()
    }

    #[inline(always)]
    fn into_clock(self) -> &'o C {
        &self.plan.clock
    }

    #[inline(always)]
    fn accepts(&self, value: &T) -> bool {
        self.plan.hooks.is_valid(value)
    }

    #[inline(always)]
    fn named_listeners(&self) -> Option<NamedListeners> {
        Operation::named_listeners(self)
    }

    #[cold]
    fn cancelled(self, elapsed: u64) {
        Execution::first_cancelled(&self.plan, elapsed);
    }
}

impl<T, E, C: Clock, H: HookSet<T, E>> Cancel for &Operation<'_, T, E, C, H> {
    #[cold]
    fn cancelled(&self, mark: Mark) {
        Execution::first_cancelled(&self.plan, self.plan.clock.nanos_since(mark));
    }
}
