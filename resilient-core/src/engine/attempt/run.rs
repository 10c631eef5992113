//! The attempt runner: every attempt of every path, blocking or async, a
//! call's first, a retry or a hedge, runs through the two functions of
//! [`AttemptContext`], [`run_blocking`](AttemptContext::run_blocking) and
//! [`run_async`](AttemptContext::run_async), or, where the caller keeps
//! the body's future itself, through [`Grant::poll`].
//!
//! An attempt's context is made once, where it is admitted
//! ([`Execution::open`](super::Execution)), or, for a first attempt run
//! before its operation is built, from nothing but its grant
//! ([`Grant::first`]): what the body is told ([`Attempt`]), where it
//! started, the deadline it was granted and whether that deadline cuts it,
//! and what its gates injected. What an attempt reads or leaves for its
//! record is a field here, and reaches every path from this one place.

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::attempt::Attempt;
use crate::clock::{Clock, Mark};
use crate::deadline::{self, Scope};
use crate::engine::gates::Interference;
use crate::engine::span::{self, SpanName};
use crate::race::{Race, poll_within};
use crate::report::FailureKind;

/// Awaits `$work` (pinned) in the race `$race` of the attempt `$grant`
/// describes, with one timer of `$clock` pinned beside it, the body within
/// the attempt's deadline ([`Grant::poll_race`]): the expression of the
/// race's output. The work is lent as a `dyn Future` made afresh at each
/// poll, so that the caller's future holds none and keeps its `Send`.
macro_rules! raced_within {
    ($grant:expr, $clock:expr, $race:expr, $work:ident, $span:expr) => {{
        let (grant, clock) = ($grant, $clock);
        let mut timer = ::std::pin::pin!(None);
        let mut race = $race;
        ::std::future::poll_fn(|cx| {
            let work: ::std::pin::Pin<&mut dyn ::std::future::Future<Output = _>> = $work.as_mut();
            grant.poll_race(
                &mut race,
                clock,
                cx,
                work,
                timer.as_mut(),
                $crate::clock::Clock::deadline_async,
                // Read at each poll from what the future holds already,
                // so that it holds no name.
                $span,
            )
        })
        .await
    }};
}
pub(crate) use raced_within;

/// What an attempt was granted: what its body is told, where it started,
/// and the error it fails with when its deadline cuts it (`None`: the
/// deadline, if any, is the body's to keep).
pub(crate) struct Grant<E> {
    pub(crate) attempt: Attempt,
    pub(crate) started: Mark,
    pub(crate) timed_out: Option<fn() -> E>,
}

impl<E> Grant<E> {
    /// A call's first attempt, granted `deadline` and started at
    /// `started`, cut at its deadline with `timed_out`'s error if the
    /// operation interrupts there.
    #[inline(always)]
    pub(crate) fn first(
        deadline: Option<Duration>,
        started: Mark,
        timed_out: Option<fn() -> E>,
    ) -> Self {
        Grant {
            attempt: Attempt::first(deadline),
            started,
            timed_out,
        }
    }

    /// The deadline the body runs within, for the calls made inside it
    /// (`crate::deadline`): the one it was granted, whether or not it cuts
    /// the attempt. They are also told whether this call holds their
    /// retries (the attempt's `holds_retries`).
    #[inline(always)]
    pub(crate) fn scope<C: Clock>(&self, clock: &C) -> Option<Scope> {
        Scope::of(clock, self.started, self.attempt.deadline)
    }

    /// The deadline that cuts the attempt, if one does.
    #[inline(always)]
    fn cut(&self) -> Option<Duration> {
        self.timed_out.and(self.attempt.deadline)
    }

    /// One poll of the attempt's `work` within the deadline that cuts it,
    /// with the timer in `timer` (see [`poll_within`]): `Some` with the
    /// body's output, `None` once the deadline passed.
    #[inline(always)]
    pub(crate) fn poll<'c, C: Clock, O, S: Future<Output = ()>>(
        &self,
        clock: &'c C,
        cx: &mut Context<'_>,
        work: Pin<&mut dyn Future<Output = O>>,
        timer: Pin<&mut Option<S>>,
        make: fn(&'c C, Duration) -> S,
    ) -> Poll<Option<O>> {
        deadline::within(self.scope(clock), self.attempt.holds_retries, || {
            poll_within(clock, self.started, self.cut(), cx, work, timer, make)
        })
    }

    /// Where the grant is, which names its attempt's span while it is
    /// polled (see `span.rs`).
    #[inline(always)]
    fn key(&self) -> usize {
        std::ptr::from_ref(self).addr()
    }

    /// One poll of `race`, the race of the attempt's body `work` (its
    /// delay, then its deadline, with the timer in `timer`), the body
    /// within the attempt's deadline and inside the attempt's span, if it
    /// has one (`name`): see [`Race::poll`].
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn poll_race<'c, C: Clock, O, S: Future<Output = ()>>(
        &self,
        race: &mut Race,
        clock: &'c C,
        cx: &mut Context<'_>,
        work: Pin<&mut dyn Future<Output = O>>,
        timer: Pin<&mut Option<S>>,
        make: fn(&'c C, Duration) -> S,
        name: SpanName<'_>,
    ) -> Poll<Option<O>> {
        span::within(self.key(), name, self.attempt.number(), || {
            deadline::within(self.scope(clock), self.attempt.holds_retries, || {
                race.poll(clock, cx, work, timer, make)
            })
        })
    }

    /// Awaits `work`, the attempt's body, within the deadline that cuts
    /// it: `Some` with its output, or `None` once the deadline passed.
    /// For a caller that keeps the body's future itself, and whose
    /// output is not the engine's result (the reqwest middleware's first
    /// attempt).
    #[cfg(feature = "reqwest")]
    pub(crate) async fn within<C: Clock, F: Future>(
        &self,
        clock: &C,
        mut work: Pin<&mut F>,
    ) -> Option<F::Output> {
        if self.attempt.deadline.is_none() {
            return Some(work.await);
        }
        let mut timer = pin!(None);
        std::future::poll_fn(|cx| {
            let work: Pin<&mut dyn Future<Output = F::Output>> = work.as_mut();
            self.poll(clock, cx, work, timer.as_mut(), Clock::deadline_async)
        })
        .await
    }

    /// How the attempt ended: the body's result, or `None` if the deadline
    /// cut it.
    #[inline(always)]
    pub(crate) fn ended<T>(&self, output: Option<Result<T, E>>) -> Result<T, (E, FailureKind)> {
        let result = match (output, self.timed_out) {
            (Some(result), _) => ran(result),
            (None, Some(timed_out)) => Err((timed_out(), FailureKind::Timeout)),
            // Without a deadline that cuts, no race ends with `None`.
            (None, None) => unreachable!("an attempt is cut only at a deadline that cuts it"),
        };
        span::ended(self.key(), &result);
        result
    }
}

/// An attempt dropped while in flight (its caller gave up) closes its
/// span, if it has one.
impl<E> Drop for Grant<E> {
    #[inline(always)]
    fn drop(&mut self) {
        span::dropped(self.key());
    }
}

/// What an async attempt runs on: its operation's clock, and the name of
/// its span (a [`Plan`](super::plan::Plan)). One reference for both, so
/// that an attempt's future holds no more than its clock's.
pub(crate) trait RunsOn {
    type Clock: Clock;
    fn clock(&self) -> &Self::Clock;
    fn span_name(&self) -> SpanName<'_>;
}

/// One attempt's context, from its admission to its record: its grant,
/// and what its gates made of it instead of running its body as is (a
/// delay first, which counts against the deadline, or a result in the
/// body's place).
pub(crate) struct AttemptContext<T, E> {
    pub(crate) grant: Grant<E>,
    delay: Option<Duration>,
    replaced: Option<Result<T, E>>,
}

impl<T, E> AttemptContext<T, E> {
    /// The context of the attempt `grant` describes, under its gates'
    /// `injection`.
    pub(crate) fn new(grant: Grant<E>, injection: Option<Interference<T, E>>) -> Self {
        let (delay, replaced) = match injection {
            None => (None, None),
            Some(Interference { delay, result }) => (delay, result.map(|(_, result)| result)),
        };
        AttemptContext {
            grant,
            delay,
            replaced,
        }
    }

    /// The context of an attempt nothing was injected into.
    #[inline(always)]
    pub(crate) const fn plain(grant: Grant<E>) -> Self {
        AttemptContext {
            grant,
            delay: None,
            replaced: None,
        }
    }

    /// What the body is told.
    #[inline(always)]
    pub(crate) fn attempt(&self) -> Attempt {
        self.grant.attempt
    }

    /// Runs a blocking attempt: after the injected delay, the injected
    /// result or the body `f`. A blocking body can't be cut at its
    /// deadline, so the delay stops there, and the result is the body's.
    #[inline(always)]
    pub(crate) fn run_blocking<C: Clock>(
        self,
        clock: &C,
        name: SpanName<'_>,
        f: impl FnOnce(Attempt) -> Result<T, E>,
    ) -> Result<T, E> {
        let attempt = self.grant.attempt;
        if let Some(delay) = self.delay {
            injected_delay(clock, delay, attempt);
        }
        if let Some(result) = self.replaced {
            return result;
        }
        let _within = deadline::entered(self.grant.scope(clock), attempt.holds_retries);
        span::blocking(name, attempt.number(), || f(attempt))
    }

    /// Runs an async attempt: the future `f` makes, after the injected
    /// delay, within the deadline that cuts it, or the injected result
    /// instead.
    ///
    /// `f` is called before the returned future is first polled, as the
    /// caller would, so that the future holds the attempt's work and not
    /// `f`.
    pub(crate) fn run_async<'c, P, F, Fut>(
        mut self,
        on: &'c P,
        f: F,
    ) -> impl Future<Output = Result<T, (E, FailureKind)>> + use<'c, T, E, P, F, Fut>
    where
        P: RunsOn,
        F: FnOnce(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let work = match self.replaced.take() {
            None => Ok(f(self.grant.attempt)),
            Some(injected) => Err(injected),
        };
        async move {
            let mut work = pin!(match work {
                Ok(work) => work,
                Err(injected) => return self.replaced_after(on.clock(), injected).await,
            });
            let output = raced_within!(&self.grant, on.clock(), self.race(), work, on.span_name());
            self.grant.ended(output)
        }
    }

    /// The injected result that replaces the body, taken: the attempt then
    /// ends with [`replaced_after`](Self::replaced_after).
    pub(crate) fn take_replaced(&mut self) -> Option<Result<T, E>> {
        self.replaced.take()
    }

    /// The race of the body, once it runs: after the delay, against the
    /// deadline that cuts it.
    pub(crate) fn race(&self) -> Race {
        Race::new(self.grant.started, self.delay, self.grant.cut())
    }

    /// The injected result that replaces the body, after the delay; a
    /// delay that reaches a deadline that cuts the attempt ends it timed
    /// out instead.
    pub(crate) async fn replaced_after<C: Clock>(
        self,
        clock: &C,
        injected: Result<T, E>,
    ) -> Result<T, (E, FailureKind)> {
        if let Some(delay) = self.delay {
            if let (Some(deadline), Some(timed_out)) = (self.grant.cut(), self.grant.timed_out)
                && delay >= deadline
            {
                clock.sleep_async(deadline).await;
                return Err((timed_out(), FailureKind::Timeout));
            }
            clock.sleep_async(delay).await;
        }
        ran(injected)
    }
}

/// The result of an attempt whose body (or what replaced it) ran to its
/// end: a failure is the operation's own.
#[inline(always)]
pub(crate) fn ran<T, E>(result: Result<T, E>) -> Result<T, (E, FailureKind)> {
    result.map_err(|e| (e, FailureKind::Operation))
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

    /// One poll of the race of the attempt `grant` describes, as
    /// [`Grant::poll_race`], with the timer it keeps.
    #[inline(never)]
    pub(crate) fn poll<C: Clock, O, E>(
        &mut self,
        grant: &Grant<E>,
        clock: &'c C,
        cx: &mut Context<'_>,
        work: Pin<&mut dyn Future<Output = O>>,
        name: SpanName<'_>,
    ) -> Poll<Option<O>> {
        let timer = Pin::new(&mut self.timer);
        let make = |clock: &'c C, wait| {
            Box::pin(clock.deadline_async(wait)) as Pin<Box<dyn Future<Output = ()> + Send + 'c>>
        };
        grant.poll_race(&mut self.race, clock, cx, work, timer, make, name)
    }
}

/// Sleeps an injected `delay` before a blocking `attempt`, never past its
/// deadline: out of [`AttemptContext::run_blocking`], which is compiled
/// again for every body, so compiled once per clock.
fn injected_delay<C: Clock>(clock: &C, delay: Duration, attempt: Attempt) {
    clock.sleep(
        attempt
            .deadline
            .map_or(delay, |deadline| delay.min(deadline)),
    );
}
