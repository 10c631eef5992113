//! The end of an [`Execution`]: its fallbacks, each run once the primary
//! attempts failed, and the outcome it finishes with.

use super::Execution;
use crate::attempt::Attempt;
use crate::clock::Clock;
use crate::engine::gates::{Interference, Permits};
use crate::engine::hooks::HookSet;
use crate::engine::plan::{Plan, Read};
use crate::report::{Outcome, StopReason};

impl<'o, 'b, T, E, C: Clock, H: HookSet<T, E>> Execution<'o, 'b, T, E, C, H> {
    /// Whether the primary attempts (and any fallback so far) ended in
    /// failure, so a fallback is due. An error the operation ignores
    /// ([`StopReason::Ignored`](crate::StopReason::Ignored)) is returned as
    /// it is: no fallback is due for it.
    #[inline]
    pub fn needs_fallback(&self) -> bool {
        self.needs_chosen_fallback() && self.core.stop != Some(StopReason::Ignored)
    }

    /// Whether a fallback chosen for the error that ended the attempts
    /// (the attribute's `fallback_on` or `fallback_if`) is due: as
    /// [`needs_fallback`](Execution::needs_fallback), and after an ignored
    /// error too, which such a choice may name.
    #[inline]
    pub(crate) fn needs_chosen_fallback(&self) -> bool {
        self.core.stop.is_some() && matches!(self.result, Some(Err(_)))
    }

    /// The error the latest attempt (or fallback) failed with: the one that
    /// ended the attempts, once they are over. `None` after a success.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation};
    ///
    /// let operation = Operation::new().max_attempts(2).clock(FakeClock::new());
    /// let Err(exec) = operation.run_primary(|_| Err::<u32, _>("down")) else { unreachable!() };
    /// assert_eq!(exec.error(), Some(&"down"));
    /// ```
    #[inline]
    pub fn error(&self) -> Option<&E> {
        self.result.as_ref()?.as_ref().err()
    }

    /// Runs one blocking fallback, with the error that ended the attempts
    /// (or the previous fallback's), and records it. Call it once per
    /// candidate, while [`needs_fallback`](Execution::needs_fallback);
    /// without a failure to answer, it does nothing.
    pub fn fallback_blocking<F>(&mut self, f: F)
    where
        F: FnOnce(&E, Attempt) -> Result<T, E>,
    {
        let Some(error) = self.take_error() else {
            return;
        };
        let attempt = self
            .core
            .begin_fallback(self.plan.clock.now_nanos(), &self.plan.settings);
        let result = f(&error, attempt);
        self.settle_fallback(result);
    }

    /// Runs one async fallback, with the error that ended the attempts (or
    /// the previous fallback's), and records it. Call it once per
    /// candidate, while [`needs_fallback`](Execution::needs_fallback);
    /// without a failure to answer, it does nothing.
    pub async fn fallback_async<F>(&mut self, f: F)
    where
        F: AsyncFnOnce(&E, Attempt) -> Result<T, E>,
    {
        let Some(error) = self.take_error() else {
            return;
        };
        let attempt = self
            .core
            .begin_fallback(self.plan.clock.now_nanos(), &self.plan.settings);
        let result = f(&error, attempt).await;
        self.settle_fallback(result);
    }

    /// The error of the latest failure, taken for a fallback to answer;
    /// anything else stays.
    fn take_error(&mut self) -> Option<E> {
        match self.result.take() {
            Some(Err(error)) => Some(error),
            other => {
                self.result = other;
                None
            }
        }
    }

    /// Ends the operation: the last result and the report, which the
    /// operation's report hook (if any) sees first.
    ///
    /// # Panics
    ///
    /// If no attempt was run: `next_*` always allows the first one.
    #[inline]
    pub fn finish(mut self) -> Outcome<T, E> {
        let result = self
            .result
            .take()
            .expect("Execution::finish called before any attempt ran");
        let plan = self.plan;
        let mut report = self.core.finish(plan.settings.report_deferred);
        if let Some(endpoint) = plan.hooks.endpoint() {
            report.went_to(&endpoint);
        }
        plan.observe(&report, result.is_ok());
        if !plan.settings.report_deferred {
            plan.hooks.on_report(&report);
        }
        Outcome::new(result, report)
    }

    /// What the gates inject into `attempt`, whose record is (or will be)
    /// at `index`: recorded, and told as events.
    #[inline]
    pub(super) fn inject(
        &mut self,
        attempt: Attempt,
        permits: &mut Permits<'b, T, E>,
        index: usize,
    ) -> Option<Interference<T, E>> {
        let injection = self.plan.gates.inject(permits)?;
        self.core.injected(attempt.number, index, injection.kinds());
        Some(injection)
    }

    /// Reports the call whose first attempt, begun `elapsed` nanoseconds
    /// ago, its caller dropped while it ran: an execution of that attempt,
    /// on the configuration installed now, dropped unfinished.
    #[cold]
    #[inline(never)]
    pub(crate) fn first_cancelled(plan: &'o Plan<'b, T, E, C, H>, elapsed: u64) {
        let end = plan.clock.now_nanos();
        let mut exec = Execution::started(plan, end.saturating_sub(elapsed), Read::UNREAD);
        exec.core.begun = true;
        exec.core.now = end;
    }

    /// Tells the report of a call dropped before it ended (see
    /// [`Core::cancelled`]) to the metrics, the dashboard and the report
    /// hook.
    #[cold]
    #[inline(never)]
    pub(super) fn cancelled(&mut self) {
        let plan = self.plan;
        let mut report = self.core.cancelled(plan.clock.now_nanos());
        if let Some(endpoint) = plan.hooks.endpoint() {
            report.went_to(&endpoint);
        }
        plan.observe(&report, false);
        plan.hooks.on_report(&report);
    }

    fn settle_fallback(&mut self, result: Result<T, E>) {
        let failed = result.as_ref().err().map(|error| {
            (
                self.plan.hooks.is_retryable(error),
                self.plan.describe(error),
            )
        });
        self.core.end_fallback(self.plan.clock.now_nanos(), failed);
        self.result = Some(result);
    }
}

/// A call dropped before it ended (its caller gave up: a cut connection, a
/// `timeout` around it) still leaves its report, with the attempts made so
/// far and [`StopReason::Cancelled`](crate::StopReason::Cancelled), to the
/// metrics, the dashboard and the report hook. Not while unwinding: a
/// panic is not a cancellation.
impl<T, E, C: Clock, H: HookSet<T, E>> Drop for Execution<'_, '_, T, E, C, H> {
    #[inline]
    fn drop(&mut self) {
        if !self.core.finished && !std::thread::panicking() {
            self.cancelled();
        }
    }
}
