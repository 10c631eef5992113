//! The user's pieces of an operation: which errors are retried, which carry
//! a Retry-After hint, which values are valid, who hears about retries.
//!
//! Each is a trait implemented by the matching closure type and by a
//! zero-sized default ([`RetryAll`], [`NoHint`], [`AnyValue`], [`Silent`],
//! [`Unobserved`]), so an operation that doesn't use one pays nothing.
//!
//! An operation holds its hooks as a stack, one type parameter however
//! many are set. [`Hooks`] is the empty stack, which answers every
//! question of [`HookSet`] with the defaults' answers; each of
//! [`Operation`](crate::Operation)'s hook setters pushes one layer
//! ([`RetryIf`], [`IgnoreIf`], [`RetryAfter`], [`Validator`], [`RetryListener`],
//! [`ReportHook`]) that answers its own question and leaves the others
//! to the hooks below it, through `HookSet`'s default methods. The top
//! layer answers first, so a hook set twice is the later one:
//! `.retry_if(a).retry_if(b)` retries what `b` selects. The earlier one
//! stays in the stack, unread, until the operation is dropped.
//!
//! The stack's type follows the order of the setters:
//! `.retry_if(a).on_retry(b)` is a `RetryListener<B, RetryIf<A>>`, the
//! other order a `RetryIf<A, RetryListener<B>>`. Both run the same, but
//! as two types they are compiled once each (`#[resilient]` calls the
//! setters in the order its options are written).
//!
//! # Adding a hook kind
//!
//! 1. **A question** on [`HookSet`], if the hook answers a new one: a
//!    method (or a `const`) whose default body asks the rest of the stack,
//!    `self.rest().<question>(…)`, and its no-hook answer in `impl HookSet
//!    for Hooks` (from a zero-sized default, like [`RetryAll`], where
//!    users may name one). No layer answers it yet, and none has to. (An
//!    answer that borrows from the hooks, as `on_retry`'s does, is asked
//!    of the rest through `Layer`, which `layers!` implements: see
//!    `Layer::rest_on_retry`.)
//! 2. **A layer**: a row `<Kind>;` with its doc in the `layers!` table
//!    below, which declares `<Kind><F, Rest = Hooks> { hook: F, rest:
//!    Rest }` and hands it its `rest`, and `impl HookSet for <Kind><F,
//!    Rest>` that answers its own question from `hook` and nothing else.
//! 3. **A setter** on [`Operation`](crate::Operation), beside the others:
//!    it takes `F`, returns `Operation<'b, T, E, C, <Kind><F, H>>` for any
//!    `H`, and pushes the layer with `with_part!(self, push <Kind>(f))`.
//!
//! Nothing else changes: no other layer and no other setter names the new
//! kind, and the engine, which reads the hooks only through [`HookSet`],
//! asks the new question where it needs the answer.

use std::sync::Arc;
use std::time::Duration;

use crate::report::{DelaySource, ExecutionError, ExecutionReport, FailureKind};

/// The empty stack of hooks, an operation's until a hook setter pushes a
/// layer on it: every error retryable, no hint, every value valid, nobody
/// listening. Zero-sized; `Operation<'b, T, E, C>` names it by default.
///
/// A stack's type names its hooks from the last set down:
///
/// ```
/// use resilient::hooks::{RetryIf, RetryListener};
/// use resilient::{Operation, RetryEvent};
///
/// fn transient(error: &&str) -> bool {
///     *error == "busy"
/// }
/// fn log(event: &RetryEvent<'_>) {
///     eprintln!("retrying after attempt {}", event.attempt());
/// }
///
/// type Transient = fn(&&'static str) -> bool;
/// type Log = fn(&RetryEvent<'_>);
/// let op: Operation<'_, u32, &str, _, RetryListener<Log, RetryIf<Transient>>> =
///     Operation::new().retry_if(transient as Transient).on_retry(log as Log);
/// # let _ = op;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks;

impl Hooks {
    /// No hooks.
    pub(crate) const NONE: Hooks = Hooks;
}

/// What an operation asks of its hooks to run on values of `T` and errors
/// of `E`: implemented by the empty stack [`Hooks`] and by each layer a
/// hook setter pushes on it, whenever its hook fits (a classifier of `E`,
/// a validator of `T`, …), and by nothing else.
///
/// Each answer comes from the topmost layer that has one, the empty stack
/// at the bottom answering the rest: a layer overrides only its own
/// question, and the default methods ask the layers below.
pub trait HookSet<T, E>: sealed::Layer<T, E> {
    /// Whether `error` may succeed on another attempt.
    #[inline]
    fn is_retryable(&self, error: &E) -> bool {
        self.rest().is_retryable(error)
    }

    /// Whether `error` is ignored: it ends the call at once, and counts
    /// as neither a success nor a failure for the gates.
    #[inline]
    fn is_ignored(&self, error: &E) -> bool {
        self.rest().is_ignored(error)
    }

    /// The Retry-After hint of a retryable `error`, if any.
    #[inline]
    fn retry_after(&self, error: &E) -> Option<Duration> {
        self.rest().retry_after(error)
    }

    /// Whether a successful value is acceptable.
    #[inline]
    fn is_valid(&self, value: &T) -> bool {
        self.rest().is_valid(value)
    }

    /// Who hears about retries.
    #[inline]
    fn on_retry(&self) -> &dyn OnRetry {
        self.rest_on_retry()
    }

    /// Tells the listener of typed errors about a retry that `error`
    /// caused, beside `event`.
    #[inline]
    fn on_retry_error(&self, event: &RetryEvent<'_>, error: &E) {
        self.rest().on_retry_error(event, error);
    }

    /// The delay before retry number `retry` from a custom schedule
    /// (`Some(None)`: the schedule has ended, and so have the retries), or
    /// `None` where the policy's backoff decides.
    #[inline]
    fn next_delay(&self, retry: u32) -> Option<Option<Duration>> {
        self.rest().next_delay(retry)
    }

    /// Hands a retried `error` over by value, once the engine is done with
    /// it: as the attempt after it begins, `waited` after the failure of
    /// attempt number `attempt`.
    #[inline]
    fn take_retried(&self, error: E, attempt: u32, waited: Duration) {
        self.rest().take_retried(error, attempt, waited);
    }

    /// Hands the finished report to its hook.
    #[inline]
    fn on_report(&self, report: &ExecutionReport) {
        self.rest().on_report(report);
    }

    /// The HTTP status an attempt's result carries, for its record; 0
    /// for none.
    #[inline]
    fn status(&self, result: Result<&T, &E>) -> u16 {
        self.rest().status(result)
    }

    /// The endpoint the call's attempts go to, for their records; `None`
    /// where none is known.
    #[inline]
    fn endpoint(&self) -> Option<Arc<str>> {
        self.rest().endpoint()
    }

    /// Whether a report hook is set: `false` when
    /// [`on_report`](HookSet::on_report) does nothing.
    const REPORTS: bool = <Self::Rest as HookSet<T, E>>::REPORTS;

    /// Whether a listener takes retried errors: `false` when
    /// [`take_retried`](HookSet::take_retried) would only drop them, and
    /// the engine then keeps each until the next attempt's result
    /// replaces it.
    const TAKES_RETRIED: bool = <Self::Rest as HookSet<T, E>>::TAKES_RETRIED;
}

/// The bottom of every stack: the defaults' answers. It answers every
/// question itself, since its `rest` is itself.
impl<T, E> HookSet<T, E> for Hooks {
    #[inline]
    fn is_retryable(&self, error: &E) -> bool {
        RetryAll.is_retryable(error)
    }

    #[inline]
    fn is_ignored(&self, _: &E) -> bool {
        false
    }

    #[inline]
    fn retry_after(&self, error: &E) -> Option<Duration> {
        NoHint.retry_after(error)
    }

    #[inline]
    fn is_valid(&self, value: &T) -> bool {
        AnyValue.is_valid(value)
    }

    #[inline]
    fn on_retry(&self) -> &dyn OnRetry {
        &Silent
    }

    #[inline]
    fn on_retry_error(&self, event: &RetryEvent<'_>, error: &E) {
        OnRetryError::on_retry(&Silent, event, error);
    }

    #[inline]
    fn take_retried(&self, _: E, _: u32, _: Duration) {}

    #[inline]
    fn next_delay(&self, _: u32) -> Option<Option<Duration>> {
        None
    }

    #[inline]
    fn on_report(&self, report: &ExecutionReport) {
        Unobserved.on_report(report);
    }

    #[inline]
    fn status(&self, _: Result<&T, &E>) -> u16 {
        0
    }

    #[inline]
    fn endpoint(&self) -> Option<Arc<str>> {
        None
    }

    const REPORTS: bool = Unobserved::REPORTS;

    const TAKES_RETRIED: bool = false;
}

/// Declares each layer: a hook `F` on top of `Rest`, the hooks below it,
/// which answer what `F` doesn't.
macro_rules! layers {
    ($($(#[$doc:meta])* $layer:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $layer<F, Rest = Hooks> {
            pub(crate) hook: F,
            pub(crate) rest: Rest,
        }

        impl<T, E, F, Rest: HookSet<T, E>> sealed::Layer<T, E> for $layer<F, Rest> {
            type Rest = Rest;

            #[inline]
            fn rest(&self) -> &Rest {
                &self.rest
            }

            #[inline]
            fn rest_on_retry(&self) -> &dyn OnRetry {
                self.rest.on_retry()
            }
        }
    )*};
}

layers! {
    /// The classifier [`retry_if`](crate::Operation::retry_if) pushes: it
    /// decides which errors are retried.
    RetryIf;
    /// The test [`ignore_if`](crate::Operation::ignore_if) pushes: it
    /// decides which errors end the call uncounted.
    IgnoreIf;
    /// The Retry-After hint [`retry_after`](crate::Operation::retry_after)
    /// pushes: it reads how long a server asked to wait.
    RetryAfter;
    /// The validator [`validate`](crate::Operation::validate) pushes: it
    /// checks successful values.
    Validator;
    /// The listener [`on_retry`](crate::Operation::on_retry) pushes: it
    /// hears about each retry.
    RetryListener;
    /// The listener [`on_retry_error`](crate::Operation::on_retry_error)
    /// and [`notify`](crate::Operation::notify) push: it hears about each
    /// retry with the error that caused it.
    ErrorListener;
    /// The listener the closure API's
    /// [`take_retried`](crate::Retry::take_retried) pushes: it takes each
    /// retried error by value once the engine is done with it.
    RetriedListener;
    /// The schedule the closure API's [`delays`](crate::Retry::delays)
    /// pushes: the delay before each retry, in place of the backoff's.
    CustomDelays;
    /// The report hook [`on_report`](crate::Operation::on_report) pushes:
    /// it receives each run's report.
    ReportHook;
    /// What the tower layer and the reqwest middleware push: it reads the
    /// HTTP status of each attempt's response, for
    /// [`AttemptRecord::status`](crate::AttemptRecord::status).
    StatusReader;
    /// What the tower layer and the reqwest middleware push for a call
    /// whose endpoint they know: it names the endpoint, for
    /// [`AttemptRecord::endpoint`](crate::AttemptRecord::endpoint).
    EndpointOf;
}

impl<T, E, F: Classify<E>, Rest: HookSet<T, E>> HookSet<T, E> for RetryIf<F, Rest> {
    #[inline]
    fn is_retryable(&self, error: &E) -> bool {
        self.hook.is_retryable(error)
    }
}

impl<T, E, F: Fn(&E) -> bool, Rest: HookSet<T, E>> HookSet<T, E> for IgnoreIf<F, Rest> {
    #[inline]
    fn is_ignored(&self, error: &E) -> bool {
        (self.hook)(error)
    }
}

impl<T, E, F: RetryAfterHint<E>, Rest: HookSet<T, E>> HookSet<T, E> for RetryAfter<F, Rest> {
    #[inline]
    fn retry_after(&self, error: &E) -> Option<Duration> {
        self.hook.retry_after(error)
    }
}

impl<T, E, F: Validate<T>, Rest: HookSet<T, E>> HookSet<T, E> for Validator<F, Rest> {
    #[inline]
    fn is_valid(&self, value: &T) -> bool {
        self.hook.is_valid(value)
    }
}

impl<T, E, F: OnRetry, Rest: HookSet<T, E>> HookSet<T, E> for RetryListener<F, Rest> {
    #[inline]
    fn on_retry(&self) -> &dyn OnRetry {
        &self.hook
    }
}

impl<T, E, F: OnRetryError<E>, Rest: HookSet<T, E>> HookSet<T, E> for ErrorListener<F, Rest> {
    #[inline]
    fn on_retry_error(&self, event: &RetryEvent<'_>, error: &E) {
        self.hook.on_retry(event, error);
    }
}

impl<T, E, F: TakeRetried<E>, Rest: HookSet<T, E>> HookSet<T, E> for RetriedListener<F, Rest> {
    #[inline]
    fn take_retried(&self, error: E, attempt: u32, waited: Duration) {
        self.hook.take(error, attempt, waited);
    }

    const TAKES_RETRIED: bool = true;
}

impl<T, E, F: NextDelay, Rest: HookSet<T, E>> HookSet<T, E> for CustomDelays<F, Rest> {
    #[inline]
    fn next_delay(&self, retry: u32) -> Option<Option<Duration>> {
        Some(self.hook.next_delay(retry))
    }
}

impl<T, E, F: Fn(Result<&T, &E>) -> u16, Rest: HookSet<T, E>> HookSet<T, E>
    for StatusReader<F, Rest>
{
    #[inline]
    fn status(&self, result: Result<&T, &E>) -> u16 {
        (self.hook)(result)
    }
}

impl<T, E, Rest: HookSet<T, E>> HookSet<T, E> for EndpointOf<Option<Arc<str>>, Rest> {
    #[inline]
    fn endpoint(&self) -> Option<Arc<str>> {
        self.hook.clone()
    }
}

impl<T, E, F: OnReport, Rest: HookSet<T, E>> HookSet<T, E> for ReportHook<F, Rest> {
    #[inline]
    fn on_report(&self, report: &ExecutionReport) {
        self.hook.on_report(report);
    }

    const REPORTS: bool = F::REPORTS;
}

/// The empty stack is its own rest, never asked: it answers every
/// question itself.
impl<T, E> sealed::Layer<T, E> for Hooks {
    type Rest = Hooks;

    #[inline]
    fn rest(&self) -> &Hooks {
        self
    }

    #[inline]
    fn rest_on_retry(&self) -> &dyn OnRetry {
        &Silent
    }
}

mod sealed {
    use super::{HookSet, OnRetry};

    /// One layer of a stack of hooks and the hooks below it. Keeps
    /// [`HookSet`] implemented by `Hooks` and its layers only.
    pub trait Layer<T, E> {
        /// The hooks below this layer.
        type Rest: HookSet<T, E>;

        /// The hooks below this layer, which answer what it doesn't.
        fn rest(&self) -> &Self::Rest;

        /// `self.rest().on_retry()`, which `HookSet::on_retry`'s default
        /// can't write: the listener is borrowed for as long as `self`,
        /// and the compiler grants that `Self::Rest` lives as long as
        /// `self` only where `T` and `E` do too. A layer's own type
        /// holds its `Rest`, which says so.
        fn rest_on_retry(&self) -> &dyn OnRetry;
    }
}

/// Decides whether an error is retried. Implemented by `Fn(&E) -> bool`.
pub trait Classify<E> {
    /// `true` if `error` may succeed on another attempt.
    fn is_retryable(&self, error: &E) -> bool;
}

impl<E, F: Fn(&E) -> bool> Classify<E> for F {
    fn is_retryable(&self, error: &E) -> bool {
        self(error)
    }
}

/// The default classifier: every error is retryable.
#[derive(Debug, Clone, Copy, Default)]
pub struct RetryAll;

impl<E> Classify<E> for RetryAll {
    #[inline]
    fn is_retryable(&self, _: &E) -> bool {
        true
    }
}

/// Reads a server's Retry-After hint from an error. Implemented by
/// `Fn(&E) -> Option<Duration>`.
pub trait RetryAfterHint<E> {
    /// How long the server asked to wait, if it did.
    fn retry_after(&self, error: &E) -> Option<Duration>;
}

impl<E, F: Fn(&E) -> Option<Duration>> RetryAfterHint<E> for F {
    fn retry_after(&self, error: &E) -> Option<Duration> {
        self(error)
    }
}

/// The former name of [`RetryAfterHint`], easily taken for a rate limiter:
/// every hint is one. Name `RetryAfterHint` instead, in a bound or an
/// implementation.
#[doc(hidden)]
#[deprecated(since = "0.1.0", note = "renamed `RetryAfterHint`")]
pub trait RateLimit<E>: RetryAfterHint<E> {}

#[allow(deprecated)]
impl<E, H: RetryAfterHint<E> + ?Sized> RateLimit<E> for H {}

/// The former name of the [`RetryAfter`] layer.
#[doc(hidden)]
#[deprecated(since = "0.1.0", note = "renamed `RetryAfter`")]
pub type Hint<F, Rest = Hooks> = RetryAfter<F, Rest>;

/// The default: no error carries a hint.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHint;

impl<E> RetryAfterHint<E> for NoHint {
    #[inline]
    fn retry_after(&self, _: &E) -> Option<Duration> {
        None
    }
}

/// Checks a successful value. Implemented by `Fn(&T) -> bool`.
pub trait Validate<T> {
    /// `true` if the value is acceptable.
    fn is_valid(&self, value: &T) -> bool;
}

impl<T, F: Fn(&T) -> bool> Validate<T> for F {
    fn is_valid(&self, value: &T) -> bool {
        self(value)
    }
}

/// The default: every value is valid.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnyValue;

impl<T> Validate<T> for AnyValue {
    #[inline]
    fn is_valid(&self, _: &T) -> bool {
        true
    }
}

/// Hears about each retry before its wait. Implemented by `Fn(&RetryEvent)`.
pub trait OnRetry {
    /// Called once per retry, before the wait.
    fn on_retry(&self, event: &RetryEvent<'_>);
}

impl<F: Fn(&RetryEvent<'_>)> OnRetry for F {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        self(event);
    }
}

/// The default: nobody listens.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl OnRetry for Silent {
    #[inline]
    fn on_retry(&self, _: &RetryEvent<'_>) {}
}

/// Hears about each retry before its wait, with the error that caused it.
/// Implemented by `Fn(&RetryEvent, &E)`, and by [`Notify`].
///
/// ```
/// use resilient::{Backoff, FakeClock, Operation, RetryEvent};
/// use std::sync::Mutex;
/// use std::time::Duration;
///
/// #[derive(Debug, PartialEq)]
/// struct Busy(u32);
///
/// let seen = Mutex::new(Vec::new());
/// let _ = Operation::described_by(|e: &Busy| format!("{e:?}"))
///     .max_attempts(3)
///     .backoff(Backoff::constant(Duration::from_secs(1)))
///     .on_retry_error(|event: &RetryEvent<'_>, error: &Busy| {
///         seen.lock().unwrap().push((event.attempt(), error.0))
///     })
///     .clock(FakeClock::new())
///     .run(|attempt| Err::<(), _>(Busy(attempt.number() * 10)));
/// assert_eq!(*seen.lock().unwrap(), [(1, 10), (2, 20)]);
/// ```
pub trait OnRetryError<E> {
    /// Called once per retry, before the wait, with the error of the
    /// attempt that failed.
    fn on_retry(&self, event: &RetryEvent<'_>, error: &E);
}

impl<E, F: Fn(&RetryEvent<'_>, &E)> OnRetryError<E> for F {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_>, error: &E) {
        self(event, error);
    }
}

impl<E> OnRetryError<E> for Silent {
    #[inline]
    fn on_retry(&self, _: &RetryEvent<'_>, _: &E) {}
}

/// A listener of the shape `Fn(&E, Duration)`: the error that caused a
/// retry and the delay about to be slept, what
/// [`Operation::notify`](crate::Operation::notify) and the closure API's
/// `notify` take.
#[derive(Debug, Clone, Copy)]
pub struct Notify<F>(pub F);

impl<E, F: Fn(&E, Duration)> OnRetryError<E> for Notify<F> {
    #[inline]
    fn on_retry(&self, event: &RetryEvent<'_>, error: &E) {
        (self.0)(error, event.delay());
    }
}

/// A retry listener of either shape, `Fn(&RetryEvent)` or
/// `Fn(&RetryEvent, &E)`, and the layer it is pushed as: what
/// [`Operation::listen`](crate::Operation::listen) takes, for a function
/// named by path, whose shape the attribute can't see. `M` tells the two
/// shapes apart, inferred ([`EventOnly`], [`WithError`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't listen to retries of an operation whose error is `{E}`",
    label = "expected a function of `&RetryEvent`, or of `&RetryEvent` and `&{E}`",
    note = "a retry listener is `fn(event: &RetryEvent<'_>)`, or `fn(event: &RetryEvent<'_>, error: &{E})` to see the error too"
)]
pub trait Listener<E, M> {
    /// The layer the listener is pushed as, on `Rest`.
    type Layer<Rest>;

    /// The listener on top of `rest`.
    fn push<Rest>(self, rest: Rest) -> Self::Layer<Rest>;
}

/// [`Listener`]'s shape `Fn(&RetryEvent)`.
#[derive(Debug)]
pub enum EventOnly {}

/// [`Listener`]'s shape `Fn(&RetryEvent, &E)`.
#[derive(Debug)]
pub enum WithError {}

#[diagnostic::do_not_recommend]
impl<E, F: Fn(&RetryEvent<'_>)> Listener<E, EventOnly> for F {
    type Layer<Rest> = RetryListener<F, Rest>;

    #[inline]
    fn push<Rest>(self, rest: Rest) -> RetryListener<F, Rest> {
        RetryListener { hook: self, rest }
    }
}

#[diagnostic::do_not_recommend]
impl<E, F: Fn(&RetryEvent<'_>, &E)> Listener<E, WithError> for F {
    type Layer<Rest> = ErrorListener<F, Rest>;

    #[inline]
    fn push<Rest>(self, rest: Rest) -> ErrorListener<F, Rest> {
        ErrorListener { hook: self, rest }
    }
}

/// Both listeners of a stack, as the engine's untyped bookkeeping calls
/// them: the plain one, then the one that sees the error (when the result
/// holds one).
pub(crate) struct Listening<'a, T, E, H> {
    pub(crate) hooks: &'a H,
    pub(crate) error: Option<&'a E>,
    pub(crate) value: std::marker::PhantomData<fn() -> T>,
}

impl<T, E, H: HookSet<T, E>> OnRetry for Listening<'_, T, E, H> {
    fn on_retry(&self, event: &RetryEvent<'_>) {
        self.hooks.on_retry().on_retry(event);
        if let Some(error) = self.error {
            self.hooks.on_retry_error(event, error);
        }
    }
}

/// Takes each retried error by value, once the engine is done with it:
/// the closure API's [`take_retried`](crate::Retry::take_retried).
/// Implemented by `Fn(E, u32, Duration)`, and by the closure API's
/// `FnMut` of the same.
pub trait TakeRetried<E> {
    /// Takes `error`, the error attempt number `attempt` failed with,
    /// `waited` after it, as the next attempt begins.
    fn take(&self, error: E, attempt: u32, waited: Duration);
}

impl<E, F: Fn(E, u32, Duration)> TakeRetried<E> for F {
    #[inline]
    fn take(&self, error: E, attempt: u32, waited: Duration) {
        self(error, attempt, waited);
    }
}

/// A schedule of delays in place of a backoff's: the closure API's
/// [`delays`](crate::Retry::delays), which takes any iterator of
/// `Duration`s, as backon's backoffs are.
pub trait NextDelay {
    /// The delay before retry number `retry` (1 for the first), or `None`
    /// once the schedule has ended: then no retry follows.
    fn next_delay(&self, retry: u32) -> Option<Duration>;
}

/// Receives the report of each run, before the result is returned.
/// Implemented by `Fn(&ExecutionReport)`.
pub trait OnReport {
    /// Called once per run, when the operation has ended.
    fn on_report(&self, report: &ExecutionReport);
    /// Whether [`on_report`](OnReport::on_report) does anything: only
    /// [`Unobserved`] says it doesn't, which lets a call that succeeds at
    /// once skip building the operation to tell it.
    const REPORTS: bool = true;
}

impl<F: Fn(&ExecutionReport)> OnReport for F {
    fn on_report(&self, report: &ExecutionReport) {
        self(report);
    }
}

/// The default: nobody reads the report but the caller.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unobserved;

impl OnReport for Unobserved {
    #[inline]
    fn on_report(&self, _: &ExecutionReport) {}

    const REPORTS: bool = false;
}

/// A retry about to happen: which attempt failed, how, and how long the
/// engine will wait before the next one.
///
/// ```
/// use resilient::{Backoff, DelaySource, FakeClock, Operation};
/// use std::sync::Mutex;
/// use std::time::Duration;
///
/// let seen = Mutex::new(Vec::new());
/// let _ = Operation::new()
///     .max_attempts(2)
///     .backoff(Backoff::constant(Duration::from_secs(1)))
///     .on_retry(|event| {
///         seen.lock().unwrap().push((event.attempt(), event.delay(), event.source()))
///     })
///     .clock(FakeClock::new())
///     .run(|_| Err::<(), _>("busy"));
/// assert_eq!(*seen.lock().unwrap(), [(1, Duration::from_secs(1), DelaySource::Backoff)]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RetryEvent<'a> {
    pub(crate) operation: &'a str,
    pub(crate) attempt: u32,
    pub(crate) delay: Duration,
    pub(crate) source: DelaySource,
    pub(crate) error: &'a ExecutionError,
}

impl RetryEvent<'_> {
    /// The name of the operation that retries.
    pub fn operation(&self) -> &str {
        self.operation
    }

    /// The number of the attempt that failed.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// How long the engine will wait.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// Why it waits that long.
    pub fn source(&self) -> DelaySource {
        self.source
    }

    /// What kind of failure caused the retry.
    pub fn kind(&self) -> FailureKind {
        self.error.kind()
    }

    /// The failure, as recorded in the report.
    pub fn error(&self) -> &ExecutionError {
        self.error
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::fmt;
    use std::future::Future;
    use std::time::Duration;

    use super::*;
    use crate::{Backoff, FakeClock, Operation, TokioClock, ValidationFailed};

    #[derive(Debug, PartialEq)]
    enum Failed {
        Slow,
        Fatal,
        Invalid,
    }

    impl fmt::Display for Failed {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{self:?}")
        }
    }

    impl From<ValidationFailed> for Failed {
        fn from(_: ValidationFailed) -> Self {
            Failed::Invalid
        }
    }

    #[test]
    fn the_later_of_two_classifiers_answers() {
        let op = Operation::<u32, Failed>::new()
            .retry_if(|_: &Failed| false)
            .retry_if(|e: &Failed| *e == Failed::Slow);
        let hooks = &op.plan.hooks;
        assert!(HookSet::<u32, Failed>::is_retryable(hooks, &Failed::Slow));
        assert!(!HookSet::<u32, Failed>::is_retryable(hooks, &Failed::Fatal));

        let clock = FakeClock::new();
        let outcome = op
            .max_attempts(3)
            .backoff(Backoff::constant(Duration::from_secs(1)))
            .clock(&clock)
            .run(|_| Err::<u32, _>(Failed::Slow));
        assert_eq!(outcome.report().attempt_count(), 3);
        assert_eq!(clock.slept(), [Duration::from_secs(1); 2]);
    }

    #[test]
    fn a_hook_of_each_kind_answers_its_own_question() {
        // Closures over a `Cell`: hooks that aren't `Sync` run a blocking
        // operation all the same.
        let heard = RefCell::new(Vec::new());
        let reported = Cell::new(0);
        let clock = FakeClock::new();
        let mut results = [Err(Failed::Slow), Ok(0), Ok(7)].into_iter();
        let outcome = Operation::new()
            .max_attempts(3)
            .backoff(Backoff::constant(Duration::from_secs(1)))
            .retry_if(|e: &Failed| *e != Failed::Fatal)
            .retry_after(|e: &Failed| (*e == Failed::Slow).then_some(Duration::from_secs(3)))
            .validate(|value: &u32| *value > 0)
            .on_retry(|event: &RetryEvent<'_>| {
                heard
                    .borrow_mut()
                    .push((event.attempt(), event.delay(), event.source()));
            })
            .on_report(|report: &ExecutionReport| reported.set(report.attempt_count()))
            .clock(&clock)
            .run(|_| results.next().unwrap());
        assert_eq!(outcome.into_result(), Ok(7));
        assert_eq!(
            *heard.borrow(),
            [
                (1, Duration::from_secs(3), DelaySource::RetryAfter),
                (2, Duration::from_secs(1), DelaySource::Backoff),
            ]
        );
        assert_eq!(reported.get(), 3);
    }

    #[test]
    fn both_listeners_hear_each_retry_the_typed_one_with_its_error() {
        let heard = RefCell::new(Vec::new());
        let clock = FakeClock::new();
        let mut errors = [Failed::Slow, Failed::Invalid, Failed::Fatal].into_iter();
        let outcome = Operation::new()
            .max_attempts(3)
            .backoff(Backoff::constant(Duration::from_secs(1)))
            .on_retry(|event: &RetryEvent<'_>| {
                heard
                    .borrow_mut()
                    .push(format!("plain {}", event.attempt()))
            })
            .notify(|error: &Failed, next: Duration| {
                heard.borrow_mut().push(format!("typed {error:?} {next:?}"));
            })
            .clock(&clock)
            .run(|_| Err::<u32, _>(errors.next().unwrap()));
        assert_eq!(outcome.into_result(), Err(Failed::Fatal));
        // Never after the final attempt.
        assert_eq!(
            *heard.borrow(),
            ["plain 1", "typed Slow 1s", "plain 2", "typed Invalid 1s"]
        );
    }

    #[test]
    fn the_empty_stack_answers_every_question_with_the_defaults() {
        // Its `rest` is itself: an answer it left to the default methods
        // would never return.
        let report = Operation::<u32, Failed>::new()
            .clock(FakeClock::new())
            .run(|_| Ok(1))
            .into_parts()
            .1;
        assert!(HookSet::<u32, Failed>::is_retryable(&Hooks, &Failed::Fatal));
        assert_eq!(
            HookSet::<u32, Failed>::retry_after(&Hooks, &Failed::Slow),
            None
        );
        assert!(HookSet::<u32, Failed>::is_valid(&Hooks, &0));
        let _: &dyn OnRetry = HookSet::<u32, Failed>::on_retry(&Hooks);
        HookSet::<u32, Failed>::on_report(&Hooks, &report);
        const { assert!(!<Hooks as HookSet<u32, Failed>>::REPORTS) };
    }

    #[test]
    fn a_stack_reports_as_its_top_report_hook_says() {
        type Report = fn(&ExecutionReport);
        type Select = fn(&Failed) -> bool;
        const { assert!(<ReportHook<Report> as HookSet<u32, Failed>>::REPORTS) };
        // A layer of another kind leaves the answer to the hooks below it.
        const { assert!(!<RetryIf<Select> as HookSet<u32, Failed>>::REPORTS) };
        const { assert!(<RetryIf<Select, ReportHook<Report>> as HookSet<u32, Failed>>::REPORTS) };
        // The top report hook answers, as for every kind.
        const { assert!(!<ReportHook<Unobserved, ReportHook<Report>> as HookSet<u32, Failed>>::REPORTS) };
    }

    #[test]
    fn hooks_cost_nothing_but_their_own_state() {
        type Listeners = RetryListener<Silent, ReportHook<Unobserved>>;
        type Defaults = RetryIf<RetryAll, RetryAfter<NoHint, Validator<AnyValue, Listeners>>>;
        assert_eq!(size_of::<Hooks>(), 0);
        assert_eq!(size_of::<Defaults>(), 0);
        assert_eq!(
            size_of::<RetryIf<fn(&Failed) -> bool, ReportHook<Unobserved>>>(),
            size_of::<fn(&Failed) -> bool>()
        );
    }

    #[test]
    fn send_and_sync_hooks_keep_an_async_future_send() {
        fn send<F: Future + Send>(_: F) {}
        fn send_sync<H: Send + Sync>(_: &H) {}
        let op = Operation::<u32, Failed>::new()
            .clock(TokioClock)
            .retry_if(|e: &Failed| *e == Failed::Slow)
            .on_retry(|_: &RetryEvent<'_>| {})
            .on_report(|_: &ExecutionReport| {});
        send_sync(&op.plan.hooks);
        send(op.run_async(async |_| Ok(1)));
    }
}
