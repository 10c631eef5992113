//! The race of an async attempt against its deadline.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use crate::attempt::Attempt;
use crate::clock::{Clock, Mark};
use crate::report::FailureKind;

/// Runs the attempt `work` started at `started` (a mark of `clock`),
/// cut at its deadline when the operation interrupts (`timed_out` makes
/// the error of a cut attempt); says how it ended.
#[inline]
pub(crate) async fn within_deadline<T, E, C, Fut>(
    clock: &C,
    attempt: Attempt,
    started: Mark,
    timed_out: Option<fn() -> E>,
    work: Fut,
) -> Result<T, (E, FailureKind)>
where
    C: Clock,
    Fut: Future<Output = Result<T, E>>,
{
    match (attempt.deadline, timed_out) {
        (Some(deadline), Some(timed_out)) => {
            // Measured from the attempt's start, not from the first poll.
            let timer = || {
                let spent = clock.nanos_since(started);
                clock.deadline_async(deadline.saturating_sub(Duration::from_nanos(spent)))
            };
            match race(work, timer).await {
                Some(result) => result.map_err(|e| (e, FailureKind::Operation)),
                None => Err((timed_out(), FailureKind::Timeout)),
            }
        }
        _ => work.await.map_err(|e| (e, FailureKind::Operation)),
    }
}

/// Polls `work` against a timer: `Some` with the work's output if it
/// finishes first, `None` if the timer does.
///
/// The timer is made only when the work first returns `Pending`: an
/// attempt that completes on its first poll never reads the clock again
/// nor registers a timer.
pub(crate) async fn race<F, S, M>(work: F, make_timer: M) -> Option<F::Output>
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
