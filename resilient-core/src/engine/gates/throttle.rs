//! The retry throttle as a gate: never refuses an attempt, but is asked
//! before each retry and hedge, and counts each result.

use super::{Admission, End, Gate, Refusal, Settlement};
use crate::clock::Clock;
use crate::throttle::RetryBudget;

impl<T, E> Gate<T, E> for &dyn RetryBudget {
    type Permit = ();

    #[inline]
    fn admit<C: Clock>(&self, _: &C, _: &Admission) -> Result<(), Refusal<E>> {
        Ok(())
    }

    #[inline]
    fn free_permit(&self) -> Option<()> {
        Some(())
    }

    #[inline]
    fn allows_retry(&self) -> bool {
        RetryBudget::allows_retry(*self)
    }

    /// Only the dependency's own results count: an attempt that did not
    /// run, or was cancelled, spends nothing.
    #[inline]
    fn settle<C: Clock>(&self, _: &C, (): (), ended: &Settlement) {
        match ended.end {
            End::Success => self.record_success(),
            End::Failure {
                retryable: true, ..
            } => self.record_failure(),
            End::Failure { .. } | End::Cancelled | End::NotRun => {}
        }
    }
}
