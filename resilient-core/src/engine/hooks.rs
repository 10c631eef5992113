//! The user's pieces of an operation: which errors are retried, which carry
//! a Retry-After hint, which values are valid, who hears about retries.
//!
//! Each is a trait implemented by the matching closure type and by a
//! zero-sized default ([`RetryAll`], [`NoHint`], [`AnyValue`], [`Silent`],
//! [`Unobserved`]), so an operation that doesn't use one pays nothing.

use std::time::Duration;

use crate::report::{DelaySource, ExecutionError, ExecutionReport, FailureKind};

/// The user's hooks of one operation, one type parameter each; built by
/// [`Operation`](crate::Operation)'s setters (`retry_if`, `rate_limit`,
/// `validate`, `on_retry`, `on_report`), never by hand.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks<Cl = RetryAll, Rl = NoHint, V = AnyValue, Or = Silent, Rp = Unobserved> {
    pub(crate) classify: Cl,
    pub(crate) rate_limit: Rl,
    pub(crate) validate: V,
    pub(crate) on_retry: Or,
    pub(crate) on_report: Rp,
}

impl Hooks {
    /// No hooks: every error retryable, no hint, every value valid, nobody
    /// listening.
    pub(crate) const NONE: Hooks = Hooks {
        classify: RetryAll,
        rate_limit: NoHint,
        validate: AnyValue,
        on_retry: Silent,
        on_report: Unobserved,
    };
}

/// What an operation asks of its [`Hooks`] to run on values of `T` and
/// errors of `E`: implemented by `Hooks` whenever each hook fits (a
/// classifier of `E`, a validator of `T`, …), and by nothing else.
pub trait HookSet<T, E>: sealed::Sealed {
    /// Whether `error` may succeed on another attempt.
    fn is_retryable(&self, error: &E) -> bool;
    /// The Retry-After hint of a retryable `error`, if any.
    fn retry_after(&self, error: &E) -> Option<Duration>;
    /// Whether a successful value is acceptable.
    fn is_valid(&self, value: &T) -> bool;
    /// Who hears about retries.
    fn on_retry(&self) -> &dyn OnRetry;
    /// Hands the finished report to its hook.
    fn on_report(&self, report: &ExecutionReport);
    /// Whether a report hook is set: `false` when
    /// [`on_report`](HookSet::on_report) does nothing.
    const REPORTS: bool;
}

impl<T, E, Cl, Rl, V, Or, Rp> HookSet<T, E> for Hooks<Cl, Rl, V, Or, Rp>
where
    Cl: Classify<E>,
    Rl: RateLimit<E>,
    V: Validate<T>,
    Or: OnRetry,
    Rp: OnReport,
{
    #[inline]
    fn is_retryable(&self, error: &E) -> bool {
        self.classify.is_retryable(error)
    }

    #[inline]
    fn retry_after(&self, error: &E) -> Option<Duration> {
        self.rate_limit.retry_after(error)
    }

    #[inline]
    fn is_valid(&self, value: &T) -> bool {
        self.validate.is_valid(value)
    }

    fn on_retry(&self) -> &dyn OnRetry {
        &self.on_retry
    }

    #[inline]
    fn on_report(&self, report: &ExecutionReport) {
        self.on_report.on_report(report);
    }

    const REPORTS: bool = Rp::REPORTS;
}

mod sealed {
    /// Keeps [`HookSet`](super::HookSet) implemented by `Hooks` only.
    pub trait Sealed {}

    impl<Cl, Rl, V, Or, Rp> Sealed for super::Hooks<Cl, Rl, V, Or, Rp> {}
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
pub trait RateLimit<E> {
    /// How long the server asked to wait, if it did.
    fn retry_after(&self, error: &E) -> Option<Duration>;
}

impl<E, F: Fn(&E) -> Option<Duration>> RateLimit<E> for F {
    fn retry_after(&self, error: &E) -> Option<Duration> {
        self(error)
    }
}

/// The default: no error carries a hint.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHint;

impl<E> RateLimit<E> for NoHint {
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
