//! An async attempt against its deadline: what its gates inject (a
//! result, a delay), then its body in a [`race`](crate::race) with the
//! deadline.

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::Duration;

use super::gates::Interference;
use crate::attempt::Attempt;
use crate::clock::{Clock, Mark};
use crate::race::{Race, race, raced};
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
        injection: Option<Interference<T, E>>,
    ) -> Self {
        let (delay, replaced) = match injection {
            None => (None, None),
            Some(Interference { delay, result }) => (delay, result.map(|(_, result)| result)),
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
    injection: Option<Interference<T, E>>,
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
