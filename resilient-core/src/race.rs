//! A future raced against a deadline on a [`Clock`], with one timer that
//! serves a delay first: the primitive under the engine's async attempts,
//! the limiters' waits for a permit and the reqwest middleware. Above
//! `clock` only, so that every layer can race.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use crate::clock::{Clock, Mark};

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
/// moves into a local twice. What is generic over the work's type is only
/// this future and the `poll_fn` in it, which lends the work (as a `dyn
/// Future`) and the timer's slot to [`Race::poll`], compiled once per
/// clock and output.
pub(crate) async fn race<C, F>(
    clock: &C,
    started: Mark,
    delay: Option<Duration>,
    deadline: Option<Duration>,
    mut work: Pin<&mut F>,
) -> Option<F::Output>
where
    C: Clock,
    F: Future,
{
    raced!(clock, Race::new(started, delay, deadline), work)
}

/// Awaits `$work` (pinned) in the race `$race`, with one timer of `$clock`
/// pinned beside it: the expression of the race's output. [`Race::poll`]
/// takes the work as a `dyn Future` and the timer's slot, so that nothing
/// of it is compiled per type of work but this `poll_fn`; the trait object
/// is made afresh at each poll, so the caller's future holds none and
/// keeps its `Send`.
macro_rules! raced {
    ($clock:expr, $race:expr, $work:ident) => {{
        let clock = $clock;
        let mut timer = ::std::pin::pin!(None);
        let mut race = $race;
        ::std::future::poll_fn(|cx| {
            let work: ::std::pin::Pin<&mut dyn ::std::future::Future<Output = _>> = $work.as_mut();
            race.poll(
                clock,
                cx,
                work,
                timer.as_mut(),
                $crate::clock::Clock::deadline_async,
            )
        })
        .await
    }};
}
pub(crate) use raced;

/// Where a [`race`] stands: the delay still to wait, and the deadline.
/// Kept apart from the work's type, so that its [`poll`](Race::poll) is
/// one copy per clock and output for every function, not one per
/// function.
pub(crate) struct Race {
    started: Mark,
    /// The delay still to wait, and whether it reaches the deadline, which
    /// then cuts the attempt.
    delay: Option<(Duration, bool)>,
    deadline: Option<Duration>,
}

impl Race {
    pub(crate) fn new(started: Mark, delay: Option<Duration>, deadline: Option<Duration>) -> Race {
        // A delay never outlasts the deadline: it is cut there, and so is
        // the attempt.
        let delay = delay.map(|delay| match deadline {
            Some(deadline) if delay >= deadline => (deadline, true),
            _ => (delay, false),
        });
        Race {
            started,
            delay,
            deadline,
        }
    }

    /// One poll of the race: of the delay, then of the `work` within the
    /// deadline ([`poll_within`]), with the one timer in `timer`, which
    /// `make` makes anew for each wait.
    pub(crate) fn poll<'c, C: Clock, O, S: Future<Output = ()>>(
        &mut self,
        clock: &'c C,
        cx: &mut Context<'_>,
        work: Pin<&mut dyn Future<Output = O>>,
        mut timer: Pin<&mut Option<S>>,
        make: fn(&'c C, Duration) -> S,
    ) -> Poll<Option<O>> {
        if let Some((wait, cut)) = self.delay {
            if timer.is_none() {
                timer.set(Some(make(clock, wait)));
            }
            if let Some(delay) = timer.as_mut().as_pin_mut() {
                ready!(delay.poll(cx));
            }
            // The slot is free for the deadline's timer.
            timer.set(None);
            self.delay = None;
            if cut {
                return Poll::Ready(None);
            }
        }
        poll_within(clock, self.started, self.deadline, cx, work, timer, make)
    }
}

/// One poll of `work`, started at `started`, within `deadline` (if any):
/// `Some` with its output, or `None` once the deadline passed. The
/// deadline's timer is made in the empty slot `timer` only when the work
/// first returns `Pending`, so work done on its first poll registers none.
///
/// Every async attempt is polled here: a retry's and a hedge's through
/// [`Race::poll`], after any injected delay, and a call's first attempt
/// directly, since it has no delay to wait and its future keeps no room
/// for a [`Race`].
pub(crate) fn poll_within<'c, C: Clock, O, S: Future<Output = ()>>(
    clock: &'c C,
    started: Mark,
    deadline: Option<Duration>,
    cx: &mut Context<'_>,
    mut work: Pin<&mut dyn Future<Output = O>>,
    mut timer: Pin<&mut Option<S>>,
    make: fn(&'c C, Duration) -> S,
) -> Poll<Option<O>> {
    if let Poll::Ready(output) = work.as_mut().poll(cx) {
        return Poll::Ready(Some(output));
    }
    let Some(deadline) = deadline else {
        return Poll::Pending;
    };
    if timer.is_none() {
        // Measured from the attempt's start, not from the first poll.
        let spent = Duration::from_nanos(clock.nanos_since(started));
        timer.set(Some(make(clock, deadline.saturating_sub(spent))));
    }
    match timer.as_pin_mut() {
        Some(timer) => timer.poll(cx).map(|()| None),
        None => Poll::Pending,
    }
}
