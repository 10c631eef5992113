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

/// Where a [`race`] stands: the delay still to wait, the deadline, and
/// what its one timer is counting down. Kept apart from the work's type,
/// so that its [`poll`](Race::poll) is one copy per clock and output for
/// every function, not one per function.
pub(crate) struct Race {
    started: Mark,
    /// The delay still to wait, and whether it reaches the deadline, which
    /// then cuts the attempt.
    delay: Option<(Duration, bool)>,
    deadline: Option<Duration>,
    /// What the timer counts down, once made.
    timing: Timing,
}

/// What a race's timer counts down.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Timing {
    Nothing,
    Delay,
    Deadline,
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
            timing: Timing::Nothing,
        }
    }

    /// One poll of the race: of the `work`, and of the timer in `timer`,
    /// which `make` makes anew for each wait.
    pub(crate) fn poll<'c, C: Clock, O, S: Future<Output = ()>>(
        &mut self,
        clock: &'c C,
        cx: &mut Context<'_>,
        mut work: Pin<&mut dyn Future<Output = O>>,
        mut timer: Pin<&mut Option<S>>,
        make: fn(&'c C, Duration) -> S,
    ) -> Poll<Option<O>> {
        // Makes the timer anew for `Some(wait)`, then polls the one there is.
        let mut tick = |wait: Option<Duration>, cx: &mut Context<'_>| {
            if let Some(wait) = wait {
                timer.set(Some(make(clock, wait)));
            }
            match timer.as_mut().as_pin_mut() {
                Some(timer) => timer.poll(cx),
                None => Poll::Pending,
            }
        };
        if let Some((wait, cut)) = self.delay {
            let make = (self.timing != Timing::Delay).then_some(wait);
            self.timing = Timing::Delay;
            ready!(tick(make, cx));
            self.delay = None;
            self.timing = Timing::Nothing;
            if cut {
                return Poll::Ready(None);
            }
        }
        if let Poll::Ready(output) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        match (self.timing, self.deadline) {
            (Timing::Deadline, _) => tick(None, cx).map(|()| None),
            (_, Some(deadline)) => {
                self.timing = Timing::Deadline;
                // Measured from the attempt's start, not from the first poll.
                let spent = Duration::from_nanos(clock.nanos_since(self.started));
                tick(Some(deadline.saturating_sub(spent)), cx).map(|()| None)
            }
            (_, None) => Poll::Pending,
        }
    }
}
