//! The race of an async attempt against its deadline.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::{Poll, ready};
use std::time::Duration;

use super::gates::Injection;
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
    work: Pin<&mut Fut>,
) -> Result<T, (E, FailureKind)>
where
    C: Clock,
    Fut: Future<Output = Result<T, E>>,
{
    match (attempt.deadline, timed_out) {
        (Some(deadline), Some(timed_out)) => {
            match race(clock, started, None, Some(deadline), work).await {
                Some(result) => result.map_err(|e| (e, FailureKind::Operation)),
                None => Err((timed_out(), FailureKind::Timeout)),
            }
        }
        _ => work.await.map_err(|e| (e, FailureKind::Operation)),
    }
}

/// An attempt whose gates may replace or delay its body (see
/// [`Gate::inject`](super::gates::Gate::inject)): runs the future `f`
/// makes, as [`within_deadline`] does, or the injection's result instead,
/// or the future after the injection's delay, within the deadline.
///
/// `f` is called before the returned future is first polled, as the
/// caller would, so that the future holds the attempt's work and not `f`.
pub(crate) fn gated<'c, T, E, C, F, Fut>(
    clock: &'c C,
    attempt: Attempt,
    started: Mark,
    timed_out: Option<fn() -> E>,
    injection: Option<Injection<T, E>>,
    f: F,
) -> impl Future<Output = Result<T, (E, FailureKind)>> + use<'c, T, E, C, F, Fut>
where
    C: Clock,
    F: FnOnce(Attempt) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let (delay, work) = match injection {
        None => (None, Ok(f(attempt))),
        Some(Injection {
            delay,
            result: None,
        }) => (delay, Ok(f(attempt))),
        Some(Injection {
            delay,
            result: Some((_, result)),
        }) => (delay, Err(result)),
    };
    let cut = match (attempt.deadline, timed_out) {
        (Some(deadline), Some(timed_out)) => Some((deadline, timed_out)),
        _ => None,
    };
    async move {
        let work = pin!(match work {
            Ok(work) => work,
            Err(injected) => return injected_after(clock, delay, cut, injected).await,
        });
        let deadline = cut.map(|(deadline, _)| deadline);
        match (race(clock, started, delay, deadline, work).await, cut) {
            (Some(result), _) => result.map_err(|e| (e, FailureKind::Operation)),
            (None, Some((_, timed_out))) => Err((timed_out(), FailureKind::Timeout)),
            (None, None) => unreachable!("without a deadline the race never cuts"),
        }
    }
}

/// An injected result, after the injected delay (if any); a delay that
/// reaches the attempt's deadline, when the operation interrupts there,
/// ends the attempt timed out instead.
async fn injected_after<T, E, C: Clock>(
    clock: &C,
    delay: Option<Duration>,
    cut: Option<(Duration, fn() -> E)>,
    injected: Result<T, E>,
) -> Result<T, (E, FailureKind)> {
    if let Some(delay) = delay {
        if let Some((deadline, timed_out)) = cut
            && delay >= deadline
        {
            clock.sleep_async(deadline).await;
            return Err((timed_out(), FailureKind::Timeout));
        }
        clock.sleep_async(delay).await;
    }
    injected.map_err(|e| (e, FailureKind::Operation))
}

/// Polls `work`, after waiting `delay` if any, against the `deadline` (if
/// any) counted from `started`: `Some` with the work's output if it
/// finishes first, `None` if the deadline passes first.
///
/// One timer serves the delay and then the deadline. The deadline's timer
/// is made only when the work first returns `Pending`: an attempt that
/// completes on its first poll never reads the clock again nor registers
/// a timer.
///
/// The work comes pinned by the caller, so that this future holds a
/// reference to it, not another copy: an `async fn` keeps an argument it
/// moves into a local twice.
pub(crate) async fn race<C, F>(
    clock: &C,
    started: Mark,
    delay: Option<Duration>,
    deadline: Option<Duration>,
    mut work: Pin<&mut F>,
) -> Option<F::Output>
where
    C: Clock,
    F: Future + ?Sized,
{
    let mut timer = pin!(None);
    // A delay never outlasts the deadline: it is cut there, and so is the
    // attempt.
    let mut delay = delay.map(|delay| match deadline {
        Some(deadline) if delay >= deadline => (deadline, true),
        _ => (delay, false),
    });
    let mut timing_deadline = false;
    poll_fn(|cx| {
        if let Some((wait, cut)) = delay {
            if timer.is_none() {
                timer.set(Some(clock.deadline_async(wait)));
            }
            if let Some(timer) = timer.as_mut().as_pin_mut() {
                ready!(timer.poll(cx));
            }
            timer.set(None);
            delay = None;
            if cut {
                return Poll::Ready(None);
            }
        }
        if let Poll::Ready(output) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        if !timing_deadline && let Some(deadline) = deadline {
            timing_deadline = true;
            // Measured from the attempt's start, not from the first poll.
            let spent = Duration::from_nanos(clock.nanos_since(started));
            timer.set(Some(clock.deadline_async(deadline.saturating_sub(spent))));
        }
        match timer.as_mut().as_pin_mut() {
            Some(timer) => timer.poll(cx).map(|()| None),
            None => Poll::Pending,
        }
    })
    .await
}
