//! The first attempt of a run, the one every call makes: run before the
//! operation is built where nothing it reads needs the operation (the
//! attribute's functions of constant options), and turned into the
//! outcome of a first success, or the failure the retries go on from.
//! [`Operation`](super::operation::Operation) calls into it for its own first attempt; the two-step
//! protocol of `#[resilient]` (`crate::__private`) is made of it.

use std::future::{Future, poll_fn};
use std::marker::PhantomData;
use std::pin::{Pin, pin};
use std::time::Duration;

use super::attempt::run::{self, AttemptContext, Grant};
use super::attempt::terms::FirstTerms;
use super::plan::{NamedListeners, Read};
use super::span::SpanName;
use crate::attempt::Attempt;
use crate::clock::{Clock, Mark};
use crate::report::{FailureKind, Outcome};

/// A first attempt that succeeded on the fast path of
/// [`__private::first_attempt_async`](crate::__private::first_attempt_async): the value and its timing, which
/// [`__private::outcome_of`](crate::__private::outcome_of) turns into the outcome in the caller's own
/// future, so that the outcome is written once, where it is returned.
#[must_use = "`__private::outcome_of` turns it into the outcome"]
#[derive(Debug)]
pub struct FirstSuccess<T, E> {
    /// The attempt's result, an `Ok`, moved as the attempt returned it: a
    /// caller that reads the outcome's result whole then reads it as it was
    /// written, where an `Ok` written afresh, tag and value apart, can't be
    /// forwarded to a read of both from the store buffer.
    pub(crate) result: Result<T, E>,
    pub(crate) elapsed: u64,
    pub(crate) deadline: Option<Duration>,
    /// Who hears of it, when that needs nothing but this: see
    /// [`__private::outcome_from`](crate::__private::outcome_from).
    pub(crate) listeners: Option<NamedListeners>,
}

impl<T, E> FirstSuccess<T, E> {
    /// A first success with `value`.
    #[inline(always)]
    pub(crate) fn of(
        value: T,
        elapsed: u64,
        deadline: Option<Duration>,
        listeners: Option<NamedListeners>,
    ) -> Self {
        FirstSuccess {
            result: Ok(value),
            elapsed,
            deadline,
            listeners,
        }
    }

    /// The configuration its call read.
    #[inline(always)]
    pub(crate) fn read(&self) -> Read {
        self.listeners.map_or(Read::NOTHING, |heard| heard.read)
    }

    /// Its outcome, for an operation of which `listeners` says all the outcome
    /// needs.
    #[inline(always)]
    pub(crate) fn outcome_heard_by(
        self,
        listeners: NamedListeners,
        settings: crate::observe::SettingsOf<'_>,
    ) -> Outcome<T, E> {
        listeners.outcome(self.result, self.elapsed, self.deadline, settings)
    }
}

/// What an async first attempt reads of its operation, or of the values
/// its operation is built from (a [`Recipe`](super::recipe::Recipe)):
/// read before the attempt's future is made and once the attempt ends, each
/// time from a fresh build, so that a build of constants folds into them.
/// Implemented by [`Operation`](super::operation::Operation) and by the [`Recipe`](super::recipe::Recipe),
/// and by nothing else: the run of a function built on demand is the same
/// for both, and only what `make` writes tells them apart.
pub trait FirstReads<T, E>: Sized {
    /// The clock the attempt is timed and raced on.
    type Clock: Clock;

    /// The operation the retries run on: this one, or the one these
    /// values build.
    type Built;

    /// The operation the retries run on.
    fn built(self) -> Self::Built;

    /// The outcome of a first attempt that succeeded, on what `make`
    /// builds, built only if the outcome needs more of it than `first`
    /// holds.
    fn outcome_from(first: FirstSuccess<T, E>, make: &impl Fn() -> Self) -> Outcome<T, E>;

    /// The blocking attempts after a `first` that failed, by `f`, on what
    /// `make` builds, and their outcome: a function's failure path, one
    /// copy for every function of the same types.
    fn finish_after(
        make: &impl Fn() -> Self,
        first: FirstFailure<T, E>,
        f: &mut dyn FnMut(Attempt) -> Result<T, E>,
    ) -> Outcome<T, E>;

    /// What the attempt reads before its future is made.
    fn first_terms(&self) -> FirstTerms<E>;

    /// The clock, out of the operation.
    fn into_clock(self) -> Self::Clock;

    /// Whether a success stands (no validator refuses it).
    fn accepts(&self, value: &T) -> bool;

    /// Who hears of a first success, if nothing else needs telling.
    fn named_listeners(&self) -> Option<NamedListeners>;

    /// Reports the call whose first attempt, begun `elapsed` nanoseconds
    /// ago, its caller dropped while it ran (see `Running`).
    fn cancelled(self, elapsed: u64);
}

/// What a first attempt's caller reports it by, if it drops the call while
/// the attempt runs.
pub(crate) trait Cancel {
    /// The call was dropped `mark`'s time after the attempt began.
    fn cancelled(&self, mark: Mark);
}

/// A first attempt on the fast path, in flight: what the future keeps of
/// it (who to tell, when it began, what configuration it read) held so
/// that a drop while it runs reports the call
/// [cancelled](crate::StopReason::Cancelled), as an execution dropped on
/// the general path does. The future keeps these anyway: held here, they
/// cost it nothing, the state living in the mark ([`Mark::NONE`] while
/// the attempt hasn't begun or has ended). What configuration the attempt
/// read stays beside it, where the future packs it with its small fields:
/// a cancelled call's report names the configuration installed when it
/// was dropped.
pub(crate) struct Running<X: Cancel, S: Began = Mark> {
    pub(crate) on: X,
    /// When the attempt began: its mark, or the grant that holds it.
    pub(crate) began: S,
}

/// What says when a first attempt began: its mark, or its grant's.
pub(crate) trait Began {
    fn mark(&self) -> Mark;
    fn set(&mut self, mark: Mark);
}

impl Began for Mark {
    #[inline(always)]
    fn mark(&self) -> Mark {
        *self
    }

    #[inline(always)]
    fn set(&mut self, mark: Mark) {
        *self = mark;
    }
}

impl<E> Began for Grant<E> {
    #[inline(always)]
    fn mark(&self) -> Mark {
        self.started
    }

    #[inline(always)]
    fn set(&mut self, mark: Mark) {
        self.started = mark;
    }
}

impl<X: Cancel, S: Began> Running<X, S> {
    /// Made before the call's future is, so that the future holds `on`
    /// and `read` here only; `began` holds no mark yet, and until
    /// [`began`](Running::began) a drop (of a future never polled, or of
    /// a call that took the general path) reports nothing.
    #[inline(always)]
    pub(crate) fn idle(on: X, mut began: S) -> Self {
        began.set(Mark::NONE);
        Running { on, began }
    }

    /// The attempt began at `mark`: from now on a drop reports the call
    /// cancelled.
    #[inline(always)]
    pub(crate) fn began(&mut self, mark: Mark) {
        self.began.set(mark);
    }

    /// The attempt ended: its result goes on, and a drop says nothing.
    /// When it began.
    #[inline(always)]
    pub(crate) fn ended(&mut self) -> Mark {
        let mark = self.began.mark();
        self.began.set(Mark::NONE);
        mark
    }
}

impl<X: Cancel, S: Began> Drop for Running<X, S> {
    #[inline(always)]
    fn drop(&mut self) {
        let mark = self.began.mark();
        if mark != Mark::NONE && !std::thread::panicking() {
            self.on.cancelled(mark);
        }
    }
}

/// The operation a `make` builds, and its clock: what a first attempt of
/// [`first_attempt_async_of`] reports its cancellation by.
pub(crate) struct Made<'m, M, C, T, E> {
    pub(crate) make: &'m M,
    pub(crate) clock: C,
    of: PhantomData<fn() -> (T, E)>,
}

impl<'m, M, C, T, E> Made<'m, M, C, T, E> {
    #[inline(always)]
    fn new(make: &'m M, clock: C) -> Self {
        Made {
            make,
            clock,
            of: PhantomData,
        }
    }
}

impl<M, R, C, T, E> Cancel for Made<'_, M, C, T, E>
where
    M: Fn() -> R,
    R: FirstReads<T, E>,
    C: Clock,
{
    #[cold]
    fn cancelled(&self, mark: Mark) {
        (self.make)().cancelled(self.clock.nanos_since(mark));
    }
}

/// The first async attempt of the operation `make` builds (an
/// [`Operation`](super::operation::Operation), or the [`Recipe`](super::recipe::Recipe) of its values),
/// built again wherever it is read: the future holds `make` and the clock,
/// not the operation. For an operation of constants (the attribute's, when
/// every option's value is one), the builds fold into the constants the
/// attempt reads, and the operation is stored nowhere until an attempt
/// fails; then `resume` or `resume_async` goes on from the failure, on an
/// operation built for it. `make` must build the same operation each time.
///
/// One future, flat: the body's future and, when the attempt has a
/// deadline it is cut at, one timer beside it, with nothing nested. The
/// caller's future holds this one whole, and every `spawn`, `Box::pin`
/// and `block_on` of a call moves it (tests/suite/future_size.rs).
// The large `Err` holds the failed result, moved once to `resume`.
#[allow(clippy::result_large_err)]
#[inline(always)]
pub fn first_attempt_async_of<T, E, R, M, F, Fut>(
    make: &M,
    f: F,
) -> impl Future<Output = Result<FirstSuccess<T, E>, FirstFailure<T, E>>>
where
    R: FirstReads<T, E>,
    M: Fn() -> R,
    F: FnOnce(Attempt) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let (
        FirstTerms {
            general,
            deadline,
            timed_out,
            read,
        },
        clock,
    ) = first_terms_of(make);
    let grant = Grant::first(deadline, Mark::NONE, timed_out);
    let mut running = Running::idle(Made::new(make, clock), grant);
    async move {
        if general {
            return Err(FirstFailure::NOT_RUN);
        }
        running.began(running.on.clock.mark());
        let mut work = pin!(f(running.began.attempt));
        // Without a deadline that cuts it, the attempt is awaited right
        // here, with no timer around it.
        let output = if timed_out.is_none() {
            Some(work.await)
        } else {
            let mut timer = pin!(None);
            let (grant, clock) = (&running.began, &running.on.clock);
            poll_fn(|cx| {
                let work: Pin<&mut dyn Future<Output = Result<T, E>>> = work.as_mut();
                grant.poll(clock, cx, work, timer.as_mut(), Clock::deadline_async)
            })
            .await
        };
        let mark = running.ended();
        let result = running.began.ended(output);
        let (make, clock) = (running.on.make, &running.on.clock);
        first_ended(make, clock, mark, (deadline, read), result)
    }
}

/// [`first_attempt_async_of`] for values known to grant the attempt no
/// deadline (neither a timeout nor a budget): its future has no room for a
/// timer. Were a deadline granted all the same, the first attempt is left
/// to the general path (`resume_async`), which has one.
// The large `Err` holds the failed result, moved once to `resume`.
#[allow(clippy::result_large_err)]
#[inline(always)]
pub fn first_untimed_async_of<T, E, R, M, F, Fut>(
    make: &M,
    f: F,
) -> impl Future<Output = Result<FirstSuccess<T, E>, FirstFailure<T, E>>>
where
    R: FirstReads<T, E>,
    M: Fn() -> R,
    F: FnOnce(Attempt) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let (terms, clock) = first_terms_of(make);
    // A deadline granted all the same is left to the general path, which
    // has a timer to cut the attempt at it.
    let general = terms.general || terms.deadline.is_some();
    let read = terms.read;
    let mut running = Running::idle(Made::new(make, clock), Mark::NONE);
    async move {
        if general {
            return Err(FirstFailure::NOT_RUN);
        }
        // Only the mark is kept across the body: the grant has nothing
        // else to say of an attempt that no deadline cuts.
        let attempt = {
            let grant = Grant::<E>::first(None, running.on.clock.mark(), None);
            running.began(grant.started);
            grant.attempt
        };
        let result = f(attempt).await;
        let mark = running.ended();
        let (make, clock) = (running.on.make, &running.on.clock);
        first_returned(make, clock, mark, read, result)
    }
}

/// [`first_ended`] for an attempt that no deadline cut, its `result` as
/// the body returned it: a success moves on whole where the clock was read
/// since the body wrote it (see [`timed_first`]).
// The large `Err` holds the failed result, moved once to `resume`.
#[allow(clippy::result_large_err)]
#[inline(always)]
fn first_returned<T, E, R, M, C>(
    make: &M,
    clock: &C,
    mark: Mark,
    read: Read,
    result: Result<T, E>,
) -> Result<FirstSuccess<T, E>, FirstFailure<T, E>>
where
    R: FirstReads<T, E>,
    M: Fn() -> R,
    C: Clock,
{
    if !C::MEASURES {
        return first_ended(make, clock, mark, (None, read), run::ran(result));
    }
    let elapsed = clock.nanos_since(mark);
    let op = make();
    match result {
        Ok(ref value) if op.accepts(value) => {
            let listeners = op.named_listeners().map(|heard| heard.from(read));
            Ok(FirstSuccess {
                result,
                elapsed,
                deadline: None,
                listeners,
            })
        }
        result => Err(FirstFailure::ran(elapsed, run::ran(result), read)),
    }
}

/// What a first attempt reads of the operation `make` builds, and its
/// clock: read before the attempt's future is made, and the operation
/// dropped before that future holds anything.
#[inline(always)]
fn first_terms_of<T, E, R, M>(make: &M) -> (FirstTerms<E>, R::Clock)
where
    R: FirstReads<T, E>,
    M: Fn() -> R,
{
    let op = make();
    (op.first_terms(), op.into_clock())
}

/// How a first attempt started at `mark` with `deadline`, on the
/// configuration `read`, ended with `result`: a success that the
/// operation `make` builds accepts, or the failure to go on from.
// The large `Err` holds the failed result, moved once to `resume`.
#[allow(clippy::result_large_err)]
#[inline(always)]
fn first_ended<T, E, R, M, C>(
    make: &M,
    clock: &C,
    mark: Mark,
    (deadline, read): (Option<Duration>, Read),
    result: Result<T, (E, FailureKind)>,
) -> Result<FirstSuccess<T, E>, FirstFailure<T, E>>
where
    R: FirstReads<T, E>,
    M: Fn() -> R,
    C: Clock,
{
    let elapsed = clock.nanos_since(mark);
    let op = make();
    match result {
        Ok(value) if op.accepts(&value) => {
            // Only an operation that tells its first success this way
            // runs its first attempt on the fast path under an entry.
            let heard = op.named_listeners().map(|heard| heard.from(read));
            Ok(FirstSuccess::of(value, elapsed, deadline, heard))
        }
        result => Err(FirstFailure::ran(elapsed, result, read)),
    }
}

/// Builds an operation afresh, the same each time: what
/// [`__private::outcome_from`](crate::__private::outcome_from) and [`__private::finish_after`](crate::__private::finish_after) take.
/// Implemented by every `Fn() -> Operation`.
pub trait MakeOperation<Op> {
    /// A new operation.
    fn make(&self) -> Op;
}

impl<Op, F: Fn() -> Op> MakeOperation<Op> for F {
    #[inline(always)]
    fn make(&self) -> Op {
        self()
    }
}

/// A first attempt that did not succeed on the fast path of
/// [`first_attempt_of`] or [`first_attempt_async_of`]:
/// how it ended and after how long, or that it has not run, because a gate
/// (a breaker, a limiter) must admit it first. [`__private::run_after`](crate::__private::run_after) and
/// [`__private::resume_async`](crate::__private::resume_async) go on from it.
#[must_use = "`__private::run_after` or `__private::resume_async` goes on from it"]
#[derive(Debug)]
pub struct FirstFailure<T, E> {
    pub(crate) elapsed: u64,
    /// `None`: not run yet.
    result: Option<Result<T, Failed<E>>>,
}

/// How an attempt that ran ended: its value, or its error and how it failed.
pub(crate) type Ran<T, E> = Result<T, (E, FailureKind)>;

/// A first attempt's error, how it failed, and the configuration the
/// attempt read, which the retries read too: kept beside the error, where
/// it fits in room the error's variant has anyway for small types, so that
/// a future holding a first failure is no larger for it
/// (tests/suite/future_size.rs). A value the validator refused keeps no
/// configuration: its retries read the one installed then.
#[derive(Debug)]
pub(crate) struct Failed<E> {
    error: E,
    kind: FailureKind,
    read: Read,
}

impl<T, E> FirstFailure<T, E> {
    /// A first attempt left to the gates.
    pub(crate) const NOT_RUN: Self = FirstFailure {
        elapsed: 0,
        result: None,
    };

    /// An attempt that ended after `elapsed` nanoseconds with `result`,
    /// on the configuration `read`.
    #[inline(always)]
    pub(crate) fn ran(elapsed: u64, result: Result<T, (E, FailureKind)>, read: Read) -> Self {
        FirstFailure {
            elapsed,
            result: Some(result.map_err(|(error, kind)| Failed { error, kind, read })),
        }
    }

    /// How the attempt ended and the configuration it read, if it ran.
    #[inline]
    pub(crate) fn into_ran(self) -> Option<(Ran<T, E>, Read)> {
        Some(match self.result? {
            Ok(value) => (Ok(value), Read::UNREAD),
            Err(Failed { error, kind, read }) => (Err((error, kind)), read),
        })
    }
}

/// The first blocking attempt of what `make` builds (an
/// [`Operation`](super::operation::Operation), or the
/// [`Recipe`](super::recipe::Recipe) of its values), built again wherever
/// it is read, as for [`first_attempt_async_of`]: for values of constants
/// the builds fold into the terms the attempt reads, and nothing is built
/// on the success path. Its value if it succeeded, for
/// [`__private::outcome_from`](crate::__private::outcome_from), or else how
/// it failed, for [`__private::finish_after`](crate::__private::finish_after)
/// or [`__private::run_after`](crate::__private::run_after); a first attempt
/// that a gate must admit is left to them.
///
/// ```
/// use resilient::{FakeClock, Operation};
/// use resilient::__private::{finish_after, first_attempt_of, outcome_from};
///
/// let make = || Operation::new().max_attempts(3).name("users.get").clock(FakeClock::new());
/// let mut calls = 0;
/// let mut body = |_| {
///     calls += 1;
///     if calls < 3 { Err("busy") } else { Ok(calls) }
/// };
/// let outcome = match first_attempt_of(&make, &mut body) {
///     Ok(first) => outcome_from(first, &make),
///     Err(first) => finish_after(&make, first, &mut body),
/// };
/// assert_eq!(outcome.report().attempt_count(), 3);
/// assert_eq!(outcome.into_result(), Ok(3));
/// ```
#[doc(hidden)]
// The large `Err` holds the failed result, moved once to `finish_after`.
#[allow(clippy::result_large_err)]
#[inline(always)]
pub fn first_attempt_of<T, E, R, M, F>(
    make: &M,
    f: &mut F,
) -> Result<FirstSuccess<T, E>, FirstFailure<T, E>>
where
    R: FirstReads<T, E>,
    M: Fn() -> R,
    F: FnMut(Attempt) -> Result<T, E>,
{
    let (
        FirstTerms {
            general,
            deadline,
            read,
            ..
        },
        clock,
    ) = first_terms_of(make);
    if general {
        return Err(FirstFailure::NOT_RUN);
    }
    let heard = make().named_listeners().map(|heard| heard.from(read));
    timed_first(
        &clock,
        deadline,
        f,
        |value| make().accepts(value),
        (heard, read),
    )
}

/// A first blocking attempt by `f` on `clock`, whose deadline is
/// `deadline`: a success that `is_valid` accepts, which `listeners` hear of,
/// or how it failed and after how long, and the configuration it `read`.
// The large `Err` holds the failed result, moved once to `run_after`.
#[allow(clippy::result_large_err)]
#[inline(always)]
pub(crate) fn timed_first<T, E, C: Clock, F>(
    clock: &C,
    deadline: Option<Duration>,
    f: &mut F,
    is_valid: impl Fn(&T) -> bool,
    (listeners, read): (Option<NamedListeners>, Read),
) -> Result<FirstSuccess<T, E>, FirstFailure<T, E>>
where
    F: FnMut(Attempt) -> Result<T, E>,
{
    let grant = Grant::<E>::first(deadline, clock.mark(), None);
    let mark = grant.started;
    // On this path only while no subscriber wants the attempts' spans.
    let result = AttemptContext::plain(grant).run_blocking(clock, SpanName::NONE, f);
    let elapsed = clock.nanos_since(mark);
    match result {
        // The clock was read since the attempt wrote its result, so the
        // result moves whole: one wide copy, which a caller's read of the
        // outcome's result then meets in the store buffer.
        Ok(ref value) if C::MEASURES && is_valid(value) => Ok(FirstSuccess {
            result,
            elapsed,
            deadline,
            listeners,
        }),
        // Without a reading since, the result was written just now, tag
        // and value apart: a wide copy of it would wait for those writes,
        // so the value is taken out and written again.
        Ok(value) if !C::MEASURES && is_valid(&value) => {
            Ok(FirstSuccess::of(value, elapsed, deadline, listeners))
        }
        result => Err(FirstFailure::ran(elapsed, run::ran(result), read)),
    }
}
