//! The race of an async attempt against its deadline.

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, ready};
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

/// The course an attempt's gates set before its body runs: a result that
/// replaces the body (which then never runs), a delay, and the deadline
/// that cuts the attempt when the operation interrupts. Decided once per
/// operation's types, whatever the body's type.
pub(crate) struct Course<T, E> {
    started: Mark,
    delay: Option<Duration>,
    pub(crate) replaced: Option<Result<T, E>>,
    cut: Option<(Duration, fn() -> E)>,
}

impl<T, E> Course<T, E> {
    /// The course of `attempt`, started at `started`, under `injection`.
    pub(crate) fn new(
        attempt: Attempt,
        started: Mark,
        timed_out: Option<fn() -> E>,
        injection: Option<Injection<T, E>>,
    ) -> Self {
        let (delay, replaced) = match injection {
            None => (None, None),
            Some(Injection { delay, result }) => (delay, result.map(|(_, result)| result)),
        };
        let cut = match (attempt.deadline, timed_out) {
            (Some(deadline), Some(timed_out)) => Some((deadline, timed_out)),
            _ => None,
        };
        Course {
            started,
            delay,
            replaced,
            cut,
        }
    }

    /// The race of the body, once it runs: after the delay, against the
    /// deadline.
    pub(crate) fn race(&self) -> Race {
        Race::new(
            self.started,
            self.delay,
            self.cut.map(|(deadline, _)| deadline),
        )
    }

    /// How the attempt ended: the body's result, or `None` if the deadline
    /// cut it.
    pub(crate) fn ended(&self, output: Option<Result<T, E>>) -> Result<T, (E, FailureKind)> {
        match (output, self.cut) {
            (Some(result), _) => result.map_err(|e| (e, FailureKind::Operation)),
            (None, Some((_, timed_out))) => Err((timed_out(), FailureKind::Timeout)),
            // Without a deadline the race never cuts.
            (None, None) => unreachable!("without a deadline the race never cuts"),
        }
    }

    /// The injected result that replaces the body, after the delay.
    pub(crate) async fn replaced_after<C: Clock>(
        self,
        clock: &C,
        injected: Result<T, E>,
    ) -> Result<T, (E, FailureKind)> {
        injected_after(clock, self.delay, self.cut, injected).await
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
    let mut course = Course::new(attempt, started, timed_out, injection);
    let work = match course.replaced.take() {
        None => Ok(f(attempt)),
        Some(injected) => Err(injected),
    };
    async move {
        let mut work = pin!(match work {
            Ok(work) => work,
            Err(injected) => return course.replaced_after(clock, injected).await,
        });
        let output = raced!(clock, course.race(), work);
        course.ended(output)
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

/// A [`Race`] whose one timer lives on the heap, for the retries of an
/// async `#[resilient]` function: a retry already allocates, and with the
/// timer boxed, what its race compiles per function is only the call
/// into the work; making, polling and dropping the clock's timer is
/// compiled once per clock, in [`poll`](BoxedRace::poll).
pub(crate) struct BoxedRace<'c> {
    race: Race,
    timer: Option<Pin<Box<dyn Future<Output = ()> + Send + 'c>>>,
}

impl<'c> BoxedRace<'c> {
    pub(crate) fn new(race: Race) -> Self {
        BoxedRace { race, timer: None }
    }

    /// One poll of the race, as [`Race::poll`], with the timer it keeps.
    #[inline(never)]
    pub(crate) fn poll<C: Clock, O>(
        &mut self,
        clock: &'c C,
        cx: &mut Context<'_>,
        work: Pin<&mut dyn Future<Output = O>>,
    ) -> Poll<Option<O>> {
        self.race
            .poll(clock, cx, work, Pin::new(&mut self.timer), |clock, wait| {
                Box::pin(clock.deadline_async(wait))
            })
    }
}

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
