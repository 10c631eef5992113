//! The race of an async attempt against its deadline.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

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
