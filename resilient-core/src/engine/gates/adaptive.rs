//! The adaptive throttle as a gate: refuses an attempt locally with the
//! probability its window gives, and counts how each admitted attempt
//! ended (see [`AdaptiveThrottle`]).

use super::{Admission, End, Gate, MakeError, Refusal, Settlement};
use crate::clock::Clock;
use crate::report::{FailureKind, StopReason};
use crate::throttle::{AdaptiveThrottle, Admitted};

/// A shared adaptive throttle and the error its refusals become.
pub(crate) struct AdaptiveGate<'b, E> {
    throttle: &'b AdaptiveThrottle,
    rejected: fn() -> E,
}

impl<'b, E> AdaptiveGate<'b, E> {
    pub(crate) fn new(throttle: &'b AdaptiveThrottle, rejected: fn() -> E) -> Self {
        AdaptiveGate { throttle, rejected }
    }

    /// The throttle's name, for its series; `adaptive` without one.
    pub(crate) fn name(&self) -> &'static str {
        self.throttle.name().unwrap_or("adaptive")
    }

    /// The throttle, for the operation's counts.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    pub(crate) fn throttle(&self) -> &'b AdaptiveThrottle {
        self.throttle
    }
}

impl<'b, T, E> Gate<T, E> for AdaptiveGate<'b, E> {
    type Permit = Admitted;

    #[inline]
    fn admit<C: Clock>(&self, clock: &C, _: &Admission) -> Result<Admitted, Refusal<E>> {
        self.throttle.admit(clock.now()).map_err(|_| Refusal {
            kind: FailureKind::Rejected,
            stop: StopReason::Throttled,
            error: MakeError::Marker(self.rejected),
        })
    }

    /// A success is a request and an accept; a failure that counts for
    /// the breaker is a request and nothing more; an attempt that counts
    /// for neither (an ignored error, a dropped hedge, a refusal by a later
    /// gate) is not counted.
    #[inline]
    fn settle<C: Clock>(&self, clock: &C, permit: Admitted, ended: &Settlement) {
        match ended.end {
            End::Success => self.throttle.ended(permit, clock.now(), true),
            End::Failure { .. } => self.throttle.ended(permit, clock.now(), false),
            End::Cancelled | End::NotRun => {}
        }
    }
}
