//! The circuit breaker as a gate: admits an attempt while the circuit lets
//! calls through, and counts each result.

use super::{Admission, End, Gate, MakeError, Refusal, Settlement};
use crate::breaker::{CircuitBreaker, CircuitPermit};
use crate::clock::Clock;
use crate::error::CircuitOpen;
use crate::report::{FailureKind, StopReason};

/// A shared breaker and the error its rejections become.
pub(crate) struct BreakerGate<'b, E> {
    breaker: &'b CircuitBreaker,
    open: fn() -> E,
}

impl<'b, E> BreakerGate<'b, E> {
    pub(crate) fn new(breaker: &'b CircuitBreaker, open: fn() -> E) -> Self {
        BreakerGate { breaker, open }
    }

    /// The breaker, for the operation's counts.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    pub(crate) fn breaker(&self) -> &'b CircuitBreaker {
        self.breaker
    }
}

impl<'b, T, E> Gate<T, E> for BreakerGate<'b, E> {
    type Permit = CircuitPermit<'b>;

    #[inline]
    fn admit<C: Clock>(&self, clock: &C, _: &Admission) -> Result<CircuitPermit<'b>, Refusal<E>> {
        self.breaker
            .try_acquire(clock.now())
            .map_err(|CircuitOpen| Refusal {
                kind: FailureKind::CircuitOpen,
                stop: StopReason::CircuitOpen,
                error: MakeError::Marker(self.open),
            })
    }

    /// Every failure of an attempt that ran counts, retryable or not: the
    /// breaker measures the dependency, not whether a retry may help. A
    /// cancelled or refused attempt gives its permit back unreported.
    #[inline]
    fn settle<C: Clock>(&self, clock: &C, permit: CircuitPermit<'b>, ended: &Settlement) {
        match ended.end {
            End::Success => permit.record_success(clock.now()),
            End::Failure { .. } => permit.record_failure(clock.now()),
            End::Cancelled | End::NotRun => drop(permit),
        }
    }
}
