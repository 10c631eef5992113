//! Between two attempts: the wait the decision set, and the hand-over of
//! the error the last attempt failed with to a listener that takes it.

use std::time::Duration;

use super::Execution;
use crate::clock::Clock;
use crate::engine::hooks::HookSet;

impl<T, E, C: Clock, H: HookSet<T, E>> Execution<'_, '_, T, E, C, H> {
    /// Waits (blocking) for the pending delay, if any, and says whether
    /// another attempt should run.
    #[inline]
    pub fn next_blocking(&mut self) -> bool {
        if self.stopped() {
            return false;
        }
        let waited = match self.core.pending() {
            Some(delay) => {
                self.plan.clock.sleep(delay);
                if !self.core.after_wait(self.plan.clock.now_nanos()) {
                    return false;
                }
                delay
            }
            None => Duration::ZERO,
        };
        self.hand_over(waited);
        true
    }

    /// Waits (async) for the pending delay, if any, and says whether
    /// another attempt should run.
    #[inline]
    pub async fn next_async(&mut self) -> bool {
        if self.stopped() {
            return false;
        }
        let waited = match self.core.pending() {
            Some(delay) => {
                self.plan.clock.sleep_async(delay).await;
                if !self.core.after_wait(self.plan.clock.now_nanos()) {
                    return false;
                }
                delay
            }
            None => Duration::ZERO,
        };
        self.hand_over(waited);
        true
    }

    /// Hands the error the last attempt failed with to the listener that
    /// takes retried errors, if one does, as the next attempt is about to
    /// begin `waited` later: nothing reads it any more, since that
    /// attempt's result replaces it.
    #[inline]
    fn hand_over(&mut self, waited: Duration) {
        if H::TAKES_RETRIED && matches!(self.result, Some(Err(_))) {
            self.hand_over_error(waited);
        }
    }

    #[cold]
    #[inline(never)]
    fn hand_over_error(&mut self, waited: Duration) {
        if let Some(Err(error)) = self.result.take() {
            let attempt = self.core.attempts_recorded();
            self.plan.hooks.take_retried(error, attempt, waited);
        }
    }
}
