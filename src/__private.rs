//! What the expansion of `#[resilient]` names, beyond the public API: the
//! traits that read the function's signature (its `Result`, its `mut`
//! parameters, its fallback) and report a misfit at the user's tokens with
//! a message of ours, rather than deep inside the runtime.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

// The run of each shape of the expansion (`shapes.rs`).
pub use crate::{
    __resilient_async_on_demand as async_on_demand,
    __resilient_blocking_on_demand as blocking_on_demand, __resilient_built_hedged as built_hedged,
    __resilient_idempotent as idempotent,
};
// Named by the shapes' macros.
pub use resilient_core::__private::erase as idempotency_store;
pub use resilient_core::__private::{
    HEDGE_FALLBACK, IdempotentCall, Recipe, Tally, built, chosen_fallback_due, drive, finish_after,
    first_attempt_async, first_attempt_async_of, first_attempt_of, first_untimed_async_of,
    idempotency_fingerprint, next_running, outcome_from, outcome_of, resume, resume_async,
    run_after, run_blocking_on_demand, with_expiring, with_tally,
};
pub use resilient_core::idempotency::{
    DEFAULT_TTL, IdempotencyConflictFailure, IdempotencyFailure,
};
pub use resilient_core::{
    Backoff, CircuitOpenError, Jitter, LimitExceededError, RejectedError, TimeoutError, TokioClock,
    ValidationError,
};

/// Tells, at the expansion site, whether the function's error type makes
/// the timeout's error: `(&&TimeoutProbe::<E>::NEW).maker()` is
/// `Some(E::timed_out)` where `E: From<TimedOut>`, and `None` otherwise,
/// without requiring the conversion. A call made inside another's attempt
/// then fails with it once that attempt's deadline passes.
pub struct TimeoutProbe<E>(std::marker::PhantomData<fn() -> E>);

impl<E> TimeoutProbe<E> {
    /// The probe.
    pub const NEW: Self = TimeoutProbe(std::marker::PhantomData);
}

/// The probe's answer where the error converts the timeout.
pub trait MakesTimeout<E> {
    /// `Some(E::timed_out)`.
    fn maker(&self) -> Option<fn() -> E>;
}

impl<E: TimeoutError> MakesTimeout<E> for &TimeoutProbe<E> {
    #[inline(always)]
    fn maker(&self) -> Option<fn() -> E> {
        Some(E::timed_out)
    }
}

/// The probe's answer otherwise.
pub trait MakesNoTimeout<E> {
    /// `None`.
    fn maker(&self) -> Option<fn() -> E>;
}

impl<E> MakesNoTimeout<E> for TimeoutProbe<E> {
    #[inline(always)]
    fn maker(&self) -> Option<fn() -> E> {
        None
    }
}

// Named here only.
use resilient_core::hooks::Listener;
use resilient_core::{Attempt, ExecutionReport, Operation, Outcome, RetryEvent};

/// Splits a `Result` type into its parts, so the expansion can name them
/// behind any alias (`io::Result<T>`, `AppResult<T>`, an associated type).
#[diagnostic::on_unimplemented(
    message = "`#[resilient]` needs a function that returns a `Result`, and `{Self}` is not one",
    label = "not a `Result<T, E>`",
    note = "the attribute retries on `Err` and makes the function return `resilient::Outcome<T, E>`: return a `Result<T, E>`, or an alias of one"
)]
pub trait ResultLike {
    /// The success type.
    type Ok;
    /// The error type.
    type Err;
}

// Not offered as a hint: the message already says what to return.
#[diagnostic::do_not_recommend]
impl<T, E> ResultLike for Result<T, E> {
    type Ok = T;
    type Err = E;
}

/// The `Outcome` of a function returning `R`.
pub type OutcomeOf<R> = Outcome<<R as ResultLike>::Ok, <R as ResultLike>::Err>;

/// `R` itself, resolved: `Result<T, E>`.
pub type ResultOf<R> = Result<<R as ResultLike>::Ok, <R as ResultLike>::Err>;

/// The success type of `R`.
pub type OkOf<R> = <R as ResultLike>::Ok;

/// The error type of `R`. Usable as the path of a variant in a pattern:
/// `ErrOf::<R>::Timeout { .. }`.
pub type ErrOf<R> = <R as ResultLike>::Err;

/// A fresh operation for a function returning `Result<T, E>`, whose
/// report renders errors with `describe` (see [`Describe`]).
#[inline]
pub fn operation<T, E>(describe: fn(&E) -> String) -> Operation<'static, T, E> {
    Operation::described_by(describe)
}

/// The values of an operation of the commonest options, built by one
/// shared function (see [`Recipe`]); `describe` is set after, outside
/// the `const` block that may hold them.
#[inline]
pub const fn recipe<T, E>() -> Recipe<T, E> {
    Recipe::described_by(undescribed::<E>)
}

fn undescribed<E>(_: &E) -> String {
    String::new()
}

/// How the report renders the function's error, chosen where the
/// expansion names its type, by autoref specialization:
/// `(&&Describe::<E>::NEW).describer()` finds [`ByDisplay`]'s method,
/// on `&Describe<E>`, where `E: Display`, and [`ByDebug`]'s, one
/// dereference further, otherwise. In a generic function, what the
/// function's bounds say decides.
pub struct Describe<E>(PhantomData<fn(&E) -> String>);

impl<E> Describe<E> {
    /// The one value.
    pub const NEW: Describe<E> = Describe(PhantomData);
}

/// The report renders an error that has `Display` with it.
pub trait ByDisplay<E> {
    /// `E`'s `Display` text.
    fn describer(&self) -> fn(&E) -> String;
}

impl<E: fmt::Display> ByDisplay<E> for &Describe<E> {
    #[inline]
    fn describer(&self) -> fn(&E) -> String {
        |error| error.to_string()
    }
}

/// The report renders an error without `Display` with its `Debug`.
pub trait ByDebug<E> {
    /// `E`'s `Debug` text.
    fn describer(&self) -> fn(&E) -> String
    where
        E: DebugText;
}

impl<E> ByDebug<E> for Describe<E> {
    #[inline]
    fn describer(&self) -> fn(&E) -> String
    where
        E: DebugText,
    {
        E::debug_text
    }
}

/// An error type the report can render without `Display`: every `Debug`
/// type.
#[diagnostic::on_unimplemented(
    message = "the error type `{Self}` must implement `std::fmt::Debug` or `std::fmt::Display`: the report records each failed attempt's error as text",
    label = "`{Self}` implements neither `Debug` nor `Display`",
    note = "add `#[derive(Debug)]` to `{Self}`: the report records an error's `Display` text where it has one, and its `Debug` text otherwise"
)]
pub trait DebugText {
    /// The error's `Debug` text.
    fn debug_text(&self) -> String;
}

#[diagnostic::do_not_recommend]
impl<E: fmt::Debug> DebugText for E {
    #[inline]
    fn debug_text(&self) -> String {
        format!("{self:?}")
    }
}

/// A part of an `async fn`'s run that few calls reach, on the heap: the
/// rest of a run once its first attempt failed (the retries, the
/// fallbacks, the outcome), and a whole run under an idempotency key,
/// which allocates its key anyway. A call that succeeds at once then
/// carries none of it in its future, which every `spawn`, `Box::pin` and
/// `block_on` moves or allocates whole.
#[inline]
pub fn on_heap<F: Future>(rest: F) -> ::core::pin::Pin<Box<F>> {
    Box::pin(rest)
}

/// The attempt of an `async fn`, run once per attempt: declared
/// `AsyncFnMut` here, where the closure is made, so that a body that
/// moves an argument is reported at the use that moves it.
#[inline]
pub fn attempt_async<F, T, E>(attempt: F) -> F
where
    F: AsyncFnMut(Attempt) -> Result<T, E>,
{
    attempt
}

// The checks of option values (`checked_by` in the macro's table of
// options) each take the function's error type `E` first, whether they use
// it or not. Each has a twin ending in `_fn` for a value written as a path:
// a function of the wrong signature would fail the generic check where it
// is written and again wherever the operation's hooks are used, so a path
// is taken as a function pointer instead, whose coercion fails once, at
// the path, and leaves a value of the right type behind. A closure keeps
// the generic check: its signature is inferred from the bound, and
// captures rule out a pointer.

/// A report hook, checked to be one where it is written (`report = …`).
/// The hook comes back as an opaque `Fn(&ExecutionReport)`.
#[inline]
pub fn report_hook<E, F: Fn(&ExecutionReport)>(hook: F) -> impl Fn(&ExecutionReport) {
    hook
}

/// `report = path`: the function as a pointer; see [`report_hook`].
#[inline]
pub fn report_hook_fn<E>(hook: fn(&ExecutionReport)) -> fn(&ExecutionReport) {
    hook
}

/// A retry listener, checked to be one where it is written (`on_retry =
/// …`), and handed on as an opaque `Fn(&RetryEvent)`; see [`report_hook`].
#[inline]
pub fn retry_listener<E, F: Fn(&RetryEvent<'_>)>(listener: F) -> impl Fn(&RetryEvent<'_>) {
    listener
}

/// A retry listener that sees the error too (`on_retry = |event, error|
/// …`), checked where it is written and handed on as an opaque
/// `Fn(&RetryEvent, &E)`; see [`report_hook`].
#[inline]
pub fn retry_error_listener<E, F: Fn(&RetryEvent<'_>, &E)>(
    listener: F,
) -> impl Fn(&RetryEvent<'_>, &E) {
    listener
}

/// `on_retry = path`: a function of the event, or of the event and the
/// error, whichever its signature says, checked where it is written (the
/// trait's message names both shapes) and pushed by `Operation::listen`.
#[inline]
pub fn retry_listener_of<E, M, L: Listener<E, M>>(listener: L) -> L {
    listener
}

/// A retry classifier, checked to be one where it is written (`retry_if =
/// …`), and handed on as an opaque `Fn(&E) -> bool`; see [`report_hook`].
#[inline]
pub fn retry_classifier<E, F: Fn(&E) -> bool>(classify: F) -> impl Fn(&E) -> bool {
    classify
}

/// `retry_if = path`: the function as a pointer, the type every classifier
/// named by path shares, so that the functions with one error type share
/// one failure path too; see [`report_hook`].
#[inline]
pub fn retry_classifier_fn<E>(classify: fn(&E) -> bool) -> fn(&E) -> bool {
    classify
}

/// The test of the errors to ignore, checked to be one where it is
/// written (`ignore_if = …`), and handed on as an opaque `Fn(&E) -> bool`;
/// see [`report_hook`].
#[inline]
pub fn ignore_classifier<E, F: Fn(&E) -> bool>(ignore: F) -> impl Fn(&E) -> bool {
    ignore
}

/// `ignore_if = path`: the function as a pointer; see
/// [`retry_classifier_fn`].
#[inline]
pub fn ignore_classifier_fn<E>(ignore: fn(&E) -> bool) -> fn(&E) -> bool {
    ignore
}

/// A Retry-After hint, checked to be one where it is written (`rate_limit
/// = …`), and handed on as an opaque `Fn(&E) -> Option<Duration>`; see
/// [`report_hook`].
#[inline]
pub fn rate_limit_hint<E, F: Fn(&E) -> Option<Duration>>(
    hint: F,
) -> impl Fn(&E) -> Option<Duration> {
    hint
}

/// `rate_limit = path`: the function as a pointer; see [`report_hook`].
#[inline]
pub fn rate_limit_hint_fn<E>(hint: fn(&E) -> Option<Duration>) -> fn(&E) -> Option<Duration> {
    hint
}

/// The attempt of a blocking fn, called once per attempt: declared `FnMut`
/// here, where the closure is made, so that a body that moves an argument
/// is reported at the use that moves it.
#[inline]
pub fn attempt_blocking<F, T, E>(attempt: F) -> F
where
    F: FnMut(Attempt) -> Result<T, E>,
{
    attempt
}

/// The caller's argument `T`, borrowed for a `mut` parameter to be
/// re-initialised from at the start of each attempt, so that no attempt
/// sees what an earlier one did to it.
pub struct Argument<'a, T>(&'a T);

impl<'a, T> Argument<'a, T> {
    /// Borrows the argument. A function rather than the tuple constructor,
    /// so that an error about `T` points at the call, where the expansion
    /// spans it, rather than inside it.
    #[inline]
    pub fn of(argument: &'a T) -> Self {
        Argument(argument)
    }
}

/// Makes each attempt's copy of a `mut` parameter. Implemented for the
/// borrowed argument rather than for `T`: every `&T` is `Clone`, and the
/// compiler would answer a `T` that is not with "consider borrowing".
#[diagnostic::on_unimplemented(
    message = "a `mut` parameter of a `#[resilient]` fn must be `Clone`: every attempt starts from the caller's arguments, so each one mutates its own clone",
    label = "`{T}` is not `Clone`",
    note = "drop `mut` and make a mutable copy inside the body, or implement `Clone` for `{T}`"
)]
pub trait FreshPerAttempt<T> {
    /// A copy of the caller's argument for one attempt.
    fn fresh(self) -> T;
}

#[diagnostic::do_not_recommend]
impl<T: Clone> FreshPerAttempt<T> for Argument<'_, T> {
    #[inline]
    fn fresh(self) -> T {
        self.0.clone()
    }
}

/// Makes a copy of the caller's argument for each fallback of a chain but
/// the last, which takes the argument itself.
#[diagnostic::on_unimplemented(
    message = "with more than one fallback, each argument of a `#[resilient]` fn is passed to every fallback tried, so it must be `Clone`",
    label = "`{T}` is not `Clone`",
    note = "implement `Clone` for `{T}`, pass it by reference, or keep a single fallback"
)]
pub trait PassedToEach<T> {
    /// A copy of the caller's argument for one fallback.
    fn for_one(self) -> T;
}

#[diagnostic::do_not_recommend]
impl<T: Clone> PassedToEach<T> for Argument<'_, T> {
    #[inline]
    fn for_one(self) -> T {
        self.0.clone()
    }
}

/// A fallback that takes the function's arguments only.
pub struct WithoutAttempt;

/// A fallback that takes the function's arguments, then the `Attempt`.
pub struct WithAttempt;

/// A fallback that takes the function's arguments, then the error that
/// ended the attempts.
pub struct WithError;

/// A fallback that takes the function's arguments, the error, then the
/// `Attempt`.
pub struct WithErrorAndAttempt;

/// A blocking fn's fallback: called with the function's arguments `Args`
/// (a tuple), then, when it takes them, the error `&E` that ended the
/// attempts and the `Attempt`, returning `R`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't be the fallback of this fn",
    label = "expected a blocking fn with the parameters `{Args}`, optionally followed by `&{E}` and an `Attempt`, returning `{R}`",
    note = "a fallback takes the function's own parameters in order (a method's receiver first), optionally the error that ended the attempts (`&E`), optionally an `Attempt` last; it returns the same `Result<T, E>`, and is `async` exactly when the function is"
)]
pub trait BlockingFallback<Args, E, R, Marker> {
    /// Runs `fallback`. The arguments come first, so that their types are
    /// known when the fallback's signature is checked against them.
    fn call(args: Args, fallback: Self, error: &E, attempt: Attempt) -> R;
}

/// An `async fn`'s fallback: like [`BlockingFallback`], returning a future
/// of `R`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't be the fallback of this `async fn`",
    label = "expected an `async fn` with the parameters `{Args}`, optionally followed by `&{E}` and an `Attempt`, returning `{R}`",
    note = "a fallback takes the function's own parameters in order (a method's receiver first), optionally the error that ended the attempts (`&E`), optionally an `Attempt` last; it returns the same `Result<T, E>`, and is `async` exactly when the function is"
)]
pub trait AsyncFallback<Args, E, R, Marker> {
    /// Starts `fallback`; the arguments come first, as in
    /// [`BlockingFallback::call`]. The future may borrow the error.
    fn call(args: Args, fallback: Self, error: &E, attempt: Attempt) -> impl Future<Output = R>;
}

/// The fallback impls for one arity: with and without the error and the
/// `Attempt`, blocking and async. `do_not_recommend` keeps a misfit
/// reported with the traits' own messages, not as an unmet `FnOnce` bound.
/// A fallback that takes the error is an `AsyncFnOnce`, so that its future
/// may borrow it.
macro_rules! fallback_arity {
    ($($ty:ident $value:ident),*) => {
        #[diagnostic::do_not_recommend]
        impl<F, E, R, $($ty),*> BlockingFallback<($($ty,)*), E, R, WithoutAttempt> for F
        where
            F: FnOnce($($ty),*) -> R,
        {
            #[inline]
            fn call(($($value,)*): ($($ty,)*), fallback: F, _: &E, _: Attempt) -> R {
                fallback($($value),*)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, E, R, $($ty),*> BlockingFallback<($($ty,)*), E, R, WithAttempt> for F
        where
            F: FnOnce($($ty,)* Attempt) -> R,
        {
            #[inline]
            fn call(($($value,)*): ($($ty,)*), fallback: F, _: &E, attempt: Attempt) -> R {
                fallback($($value,)* attempt)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, E, R, $($ty),*> BlockingFallback<($($ty,)*), E, R, WithError> for F
        where
            F: FnOnce($($ty,)* &E) -> R,
        {
            #[inline]
            fn call(($($value,)*): ($($ty,)*), fallback: F, error: &E, _: Attempt) -> R {
                fallback($($value,)* error)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, E, R, $($ty),*> BlockingFallback<($($ty,)*), E, R, WithErrorAndAttempt> for F
        where
            F: FnOnce($($ty,)* &E, Attempt) -> R,
        {
            #[inline]
            fn call(($($value,)*): ($($ty,)*), fallback: F, error: &E, attempt: Attempt) -> R {
                fallback($($value,)* error, attempt)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, Fut, E, R, $($ty),*> AsyncFallback<($($ty,)*), E, R, WithoutAttempt> for F
        where
            F: FnOnce($($ty),*) -> Fut,
            Fut: Future<Output = R>,
        {
            #[inline]
            fn call(($($value,)*): ($($ty,)*), fallback: F, _: &E, _: Attempt) -> impl Future<Output = R> {
                fallback($($value),*)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, Fut, E, R, $($ty),*> AsyncFallback<($($ty,)*), E, R, WithAttempt> for F
        where
            F: FnOnce($($ty,)* Attempt) -> Fut,
            Fut: Future<Output = R>,
        {
            #[inline]
            fn call(($($value,)*): ($($ty,)*), fallback: F, _: &E, attempt: Attempt) -> impl Future<Output = R> {
                fallback($($value,)* attempt)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, E, R, $($ty),*> AsyncFallback<($($ty,)*), E, R, WithError> for F
        where
            F: AsyncFnOnce($($ty,)* &E) -> R,
        {
            #[inline]
            fn call(($($value,)*): ($($ty,)*), fallback: F, error: &E, _: Attempt) -> impl Future<Output = R> {
                fallback($($value,)* error)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<F, E, R, $($ty),*> AsyncFallback<($($ty,)*), E, R, WithErrorAndAttempt> for F
        where
            F: AsyncFnOnce($($ty,)* &E, Attempt) -> R,
        {
            #[inline]
            fn call(($($value,)*): ($($ty,)*), fallback: F, error: &E, attempt: Attempt) -> impl Future<Output = R> {
                fallback($($value,)* error, attempt)
            }
        }
    };
}

fallback_arity!();
fallback_arity!(A1 a1);
fallback_arity!(A1 a1, A2 a2);
fallback_arity!(A1 a1, A2 a2, A3 a3);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4, A5 a5);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7, A8 a8);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7, A8 a8, A9 a9);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7, A8 a8, A9 a9, A10 a10);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7, A8 a8, A9 a9, A10 a10, A11 a11);
fallback_arity!(A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7, A8 a8, A9 a9, A10 a10, A11 a11, A12 a12);

/// A `chaos_fault` or `chaos_outcome` value as written: the value to
/// inject, or a closure that makes it. Evaluated anew for each injection.
pub struct Injected<X>(pub X);

/// [`Inject`]'s choice for a value of the injected type itself.
pub enum ByValue {}

/// [`Inject`]'s choice for a closure that makes the injected value.
pub enum ByCall {}

/// Makes the value that `chaos_fault` (`T` is the error type) or
/// `chaos_outcome` (`T` is the success type) injects, from what the option
/// says; `M` tells the two forms apart, inferred.
#[diagnostic::on_unimplemented(
    message = "`chaos_fault` and `chaos_outcome` take a `{T}` or a closure returning one",
    label = "neither a `{T}` nor a closure returning one",
    note = "`chaos_fault` injects the function's error type, `chaos_outcome` its success type: write the value (`MyError::Unavailable`) or a closure (`|| MyError::busy(3)`)"
)]
pub trait Inject<T, M> {
    /// The value to inject.
    fn make(self) -> T;
}

impl<T> Inject<T, ByValue> for Injected<T> {
    #[inline]
    fn make(self) -> T {
        self.0
    }
}

impl<T, F: FnOnce() -> T> Inject<T, ByCall> for Injected<F> {
    #[inline]
    fn make(self) -> T {
        (self.0)()
    }
}
