//! The steps `#[resilient]`'s expansion takes on an [`Operation`] and on
//! the [`Execution`] it starts, as functions of `crate::__private`: the
//! protocol between the attribute and the engine, which changes with the
//! attribute in any release. None of it is a method of a public type, so
//! the public API is what a user writes by hand.
//!
//! Each step is the operation's own (`operation/protocol.rs`,
//! `execution/mod.rs`), inlined into its caller: a step costs what the
//! method it stands for costs. Those methods are the crate's own:
//!
//! ```compile_fail,E0624
//! use resilient::{Attempt, Operation};
//!
//! let operation = Operation::<u32, String>::new().max_attempts(2);
//! let mut body = |_: Attempt| Ok::<u32, String>(1);
//! let _ = operation.first_attempt(&mut body);
//! ```
//!
//! ```compile_fail,E0624
//! use resilient::Operation;
//!
//! let operation = Operation::<u32, String>::new().max_attempts(2);
//! let mut exec = operation.start();
//! let _ = exec.next_running();
//! ```
//!
//! The attribute itself names none of these: it writes one call of the
//! macro of its shape, in the `resilient` crate's `shapes.rs`, which takes
//! the steps in order. A blocking function without fallbacks is, there,
//! one call of the engine (`run_blocking_*`). A function with fallbacks
//! takes the steps one by one, since its last fallback takes the
//! arguments the attempt closure borrows. So does an async function: an
//! entry that took the body as an `AsyncFnMut` and awaited it in its retry
//! loop would make a future that rustc can't prove `Send`
//! ("implementation of `Send` is not general enough", the higher-ranked
//! lifetime of each call's borrow of the body), which
//! `tests/suite/attribute.rs`'s
//! `async_retries_with_send_arguments_keep_the_future_send_and_the_schedule`
//! catches; written where the function's arguments live, the loop borrows
//! the body for each attempt at a lifetime the compiler knows.

use std::future::Future;
use std::pin::Pin;

use super::execution::{Execution, Next};
use super::first::{FirstFailure, FirstReads, FirstSuccess, first_attempt_of};
use super::hooks::HookSet;
use super::operation::Operation;
#[cfg(doc)]
use super::recipe::Recipe;
use crate::attempt::Attempt;
use crate::clock::Clock;
use crate::observe::Tally;
use crate::report::Outcome;

/// The whole run of a blocking function without fallbacks on what `make`
/// builds: an [`Operation`], or the [`Recipe`] of its values, whose failure
/// path is one function every function of the same types shares. Built
/// again wherever it is read: for values of constants, a first attempt
/// that succeeds builds nothing.
///
/// ```
/// use resilient::Operation;
/// use resilient::__private::run_blocking_on_demand;
///
/// let make = || Operation::new().max_attempts(3).name("lookup");
/// let mut calls = 0;
/// let mut body = |_| {
///     calls += 1;
///     if calls < 2 { Err("busy") } else { Ok(calls) }
/// };
/// let outcome = run_blocking_on_demand(&make, &mut body);
/// assert_eq!(outcome.report().attempt_count(), 2);
/// assert_eq!(outcome.into_result(), Ok(2));
/// ```
#[inline(always)]
pub fn run_blocking_on_demand<T, E, R: FirstReads<T, E>, F>(
    make: &impl Fn() -> R,
    body: &mut F,
) -> Outcome<T, E>
where
    F: FnMut(Attempt) -> Result<T, E>,
{
    match first_attempt_of(make, body) {
        Ok(done) => R::outcome_from(done, make),
        Err(first) => R::finish_after(make, first, body),
    }
}

/// The blocking attempts of `op` after `first`, by `f`: the outcome if one
/// succeeded, or else the failed execution, ready for fallbacks and
/// [`finish`](Execution::finish).
// The large `Err` is the failure path, moved once to the fallbacks.
#[allow(clippy::result_large_err)]
#[inline(always)]
pub fn run_after<'o, 'b, T, E, C: Clock, H: HookSet<T, E>>(
    op: &'o Operation<'b, T, E, C, H>,
    first: FirstFailure<T, E>,
    f: &mut dyn FnMut(Attempt) -> Result<T, E>,
) -> Result<Outcome<T, E>, Execution<'o, 'b, T, E, C, H>> {
    op.run_after(first, f)
}

/// [`run_after`] and then [`finish`](Execution::finish), on what `make`
/// builds: the outcome of a blocking function without fallbacks, one call
/// out of line for every function of the operation's types.
#[inline(always)]
pub fn finish_after<T, E, R: FirstReads<T, E>>(
    make: &impl Fn() -> R,
    first: FirstFailure<T, E>,
    f: &mut dyn FnMut(Attempt) -> Result<T, E>,
) -> Outcome<T, E> {
    R::finish_after(make, first, f)
}

/// The outcome of a first attempt that succeeded, on what `make` builds
/// (an [`Operation`] or a [`Recipe`]), built only if the outcome needs
/// more of it than `first` holds (its gates, a report hook, a name made
/// at run time).
#[inline(always)]
pub fn outcome_from<T, E, R: FirstReads<T, E>>(
    first: FirstSuccess<T, E>,
    make: &impl Fn() -> R,
) -> Outcome<T, E> {
    R::outcome_from(first, make)
}

/// The operation the retries run on, once a first attempt failed: what
/// `made` is, or what its values build.
#[inline(always)]
pub fn built<T, E, R: FirstReads<T, E>>(made: R) -> R::Built {
    made.built()
}

/// The outcome of a first attempt of `op` that succeeded.
#[inline(always)]
pub fn outcome_of<T, E, C: Clock, H: HookSet<T, E>>(
    op: &Operation<'_, T, E, C, H>,
    first: FirstSuccess<T, E>,
) -> Outcome<T, E> {
    op.outcome_of(first)
}

/// Runs the first async attempt of `op` (a hedged or idempotent
/// function's, whose operation is built before it): its value if it
/// succeeded, for [`outcome_of`], or else the execution, to drive through
/// the retries.
///
/// ```
/// use resilient::{Operation, TokioClock};
/// use resilient::__private::{first_attempt_async, outcome_of};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let operation = Operation::<u32, String>::new().max_attempts(3).clock(TokioClock);
/// let outcome = match first_attempt_async(&operation, async |_| Ok(7)).await {
///     Ok(first) => outcome_of(&operation, first),
///     Err(mut exec) => {
///         while exec.next_async().await {
///             exec.attempt_async(async |_| Ok(7)).await;
///         }
///         exec.finish()
///     }
/// };
/// assert_eq!(outcome.report().attempt_count(), 1);
/// assert_eq!(outcome.into_result(), Ok(7));
/// # });
/// ```
// The large `Err` is the failure path, moved once to the retries.
#[allow(clippy::result_large_err)]
#[inline(always)]
pub fn first_attempt_async<'o, 'b, T, E, C: Clock, H: HookSet<T, E>, F, Fut>(
    op: &'o Operation<'b, T, E, C, H>,
    f: F,
) -> impl Future<Output = Result<FirstSuccess<T, E>, Execution<'o, 'b, T, E, C, H>>>
where
    F: FnOnce(Attempt) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    op.first_attempt_async(f)
}

/// The execution of `op` after `first`, for the retries, fallbacks and
/// [`finish`](Execution::finish), without running anything: a first
/// attempt that a gate must admit is then the first the retry loop runs.
///
/// ```
/// use resilient::{Operation, TokioClock};
/// use resilient::__private::{first_attempt_async_of, outcome_from, resume};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap().block_on(async {
/// let make = || Operation::<u32, String>::new().max_attempts(3).clock(TokioClock);
/// let mut calls = 0;
/// let mut body = async |_| {
///     calls += 1;
///     if calls < 3 { Err("busy".to_owned()) } else { Ok(calls) }
/// };
/// let outcome = match first_attempt_async_of(&make, |a| body(a)).await {
///     Ok(first) => outcome_from(first, &make),
///     Err(first) => {
///         let operation = make();
///         let mut exec = resume(&operation, first);
///         while exec.next_async().await {
///             exec.attempt_async(|a| body(a)).await;
///         }
///         exec.finish()
///     }
/// };
/// assert_eq!(outcome.report().attempt_count(), 3);
/// assert_eq!(outcome.into_result(), Ok(3));
/// # });
/// ```
#[inline(always)]
pub fn resume<'o, 'b, T, E, C: Clock, H: HookSet<T, E>>(
    op: &'o Operation<'b, T, E, C, H>,
    first: FirstFailure<T, E>,
) -> Execution<'o, 'b, T, E, C, H> {
    op.resume(first)
}

/// [`resume`], where a first attempt that a gate must admit runs here,
/// through `f`, in its own future: a function whose gates admit it and
/// whose body succeeds goes on without the retry loop.
#[inline(always)]
pub fn resume_async<'o, 'b, T, E, C: Clock, H: HookSet<T, E>, F, Fut>(
    op: &'o Operation<'b, T, E, C, H>,
    first: FirstFailure<T, E>,
    f: F,
) -> impl Future<Output = Execution<'o, 'b, T, E, C, H>>
where
    F: FnOnce(Attempt) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    op.resume_async(first, f)
}

/// Waits for the next primary attempt of `exec` and begins it: `None` once
/// the call stops. With [`drive`], the retry loop of a body that is an
/// `AsyncFnMut`, as the attribute writes it: per function, only the loop
/// and the call into the body are compiled.
#[inline(always)]
pub fn next_running<'x, 'o, 'b, T, E, C: Clock, H: HookSet<T, E>>(
    exec: &'x mut Execution<'o, 'b, T, E, C, H>,
) -> impl Future<Output = Option<Next<'o, 'b, T, E>>> + use<'x, 'o, 'b, T, E, C, H> {
    exec.next_running()
}

/// Runs the attempt [`next_running`] began, whose body's future is
/// `work`, within its deadline, and records it.
#[inline(always)]
pub fn drive<'x, 'o, 'b, T, E, C: Clock, H: HookSet<T, E>, Fut>(
    exec: &'x mut Execution<'o, 'b, T, E, C, H>,
    next: &'x mut Next<'o, 'b, T, E>,
    work: Pin<&'x mut Fut>,
) -> impl Future<Output = ()> + use<'x, 'o, 'b, T, E, C, H, Fut>
where
    Fut: Future<Output = Result<T, E>>,
{
    exec.drive(next, work)
}

/// Whether a fallback that `fallback_on` or `fallback_if` chose is due on
/// `exec`: as [`Execution::needs_fallback`], and after an error the
/// operation ignores too, which such a choice may name.
#[inline(always)]
pub fn chosen_fallback_due<T, E, C: Clock, H: HookSet<T, E>>(
    exec: &Execution<'_, '_, T, E, C, H>,
) -> bool {
    exec.needs_chosen_fallback()
}

/// Counts `op`'s calls in `tally`, the `static` the expansion writes beside
/// each function, rather than in the counts found by its name.
#[inline]
pub fn with_tally<'b, T, E, C, H>(
    op: Operation<'b, T, E, C, H>,
    tally: &'static Tally,
) -> Operation<'b, T, E, C, H> {
    op.tally(tally)
}

/// Gives `op` the error an attempt fails with when a deadline it inherited
/// cuts it, where the function's error type makes one (`maker`).
#[inline]
pub fn with_expiring<'b, T, E, C, H>(
    op: Operation<'b, T, E, C, H>,
    maker: Option<fn() -> E>,
) -> Operation<'b, T, E, C, H> {
    op.expiring(maker)
}
