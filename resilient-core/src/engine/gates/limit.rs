//! The limiters as a gate: each attempt takes a permit from every limiter
//! of the operation, in order, waiting up to `limit_wait` (and never past
//! the budget), and returns them with how it ended.

use std::time::Duration;

use super::{Admission, End, Gate, MakeError, Refusal, Settlement};
use crate::clock::Clock;
use crate::limit::admit::{self, LimitPermits};
use crate::limit::{Completion, LimitExceeded, Limiter};
use crate::report::{FailureKind, StopReason};
use crate::time::Nanos;

/// The operation's limiters, how long an attempt may wait for their
/// permits, and the error a refusal becomes.
pub(crate) struct LimitGate<'b, E> {
    limiters: &'b [&'b dyn Limiter],
    /// `limit_wait`, in 8 bytes: every call's operation holds it.
    wait: Nanos,
    exceeded: fn(LimitExceeded) -> E,
}

impl<'b, E> LimitGate<'b, E> {
    pub(crate) fn new(limiters: &'b [&'b dyn Limiter], exceeded: fn(LimitExceeded) -> E) -> Self {
        LimitGate {
            limiters,
            wait: Nanos::ZERO,
            exceeded,
        }
    }

    /// The limiters, in the order their permits are taken.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    pub(crate) fn limiters(&self) -> &'b [&'b dyn Limiter] {
        self.limiters
    }

    pub(crate) fn set_wait(&mut self, wait: Duration) {
        self.wait = Nanos::from_duration(wait);
    }

    /// The longest this attempt may wait: `limit_wait`, within the budget.
    fn wait(&self, at: &Admission) -> Duration {
        let wait = self.wait.get();
        at.remaining.map_or(wait, |left| left.min(wait))
    }

    fn refused(&self, refusal: LimitExceeded) -> Refusal<E> {
        Refusal {
            kind: FailureKind::LimitExceeded,
            stop: StopReason::LimitExceeded,
            error: MakeError::Limit(self.exceeded, refusal),
        }
    }
}

/// What a limiter learns of an attempt's end.
fn completion(end: End) -> Completion {
    match end {
        End::Failure {
            throttled: true, ..
        } => Completion::Throttled,
        end @ End::Failure { .. } if end.dropped() => Completion::Dropped,
        End::Success | End::Failure { .. } => Completion::Succeeded,
        End::Cancelled | End::NotRun => Completion::Unused,
    }
}

impl<'b, T, E> Gate<T, E> for LimitGate<'b, E> {
    type Permit = LimitPermits<'b>;

    #[inline]
    fn admit<C: Clock>(&self, clock: &C, at: &Admission) -> Result<LimitPermits<'b>, Refusal<E>> {
        admit::admit_blocking_as(self.limiters, clock, Duration::ZERO, at.priority)
            .map_err(|r| self.refused(r))
    }

    fn admit_blocking<C: Clock>(
        &self,
        clock: &C,
        at: &Admission,
    ) -> Result<LimitPermits<'b>, Refusal<E>> {
        admit::admit_blocking_as(self.limiters, clock, self.wait(at), at.priority)
            .map_err(|r| self.refused(r))
    }

    async fn admit_async<C: Clock>(
        &self,
        clock: &C,
        at: &Admission,
    ) -> Result<LimitPermits<'b>, Refusal<E>> {
        admit::admit_async_as(self.limiters, clock, self.wait(at), at.priority)
            .await
            .map_err(|r| self.refused(r))
    }

    fn queued(&self, permit: &LimitPermits<'b>) -> u64 {
        crate::time::duration_nanos(permit.queued())
    }

    #[inline]
    fn settle<C: Clock>(&self, clock: &C, permit: LimitPermits<'b>, ended: &Settlement) {
        permit.finish(clock.now(), ended.rtt, completion(ended.end));
    }
}
