//! Error types: configuration errors from builders (`config.rs`), the
//! error of [`RetryPolicy::run`](crate::RetryPolicy::run), and the marker
//! errors the engine converts into the caller's error type.

use std::time::Duration;

use crate::marker::marker_error;
pub use config::ConfigError;

mod config;

/// The error of [`RetryPolicy::run`](crate::RetryPolicy::run) and
/// [`RetryPolicy::run_async`](crate::RetryPolicy::run_async): the last
/// attempt's error and how many attempts were made.
///
/// ```
/// use resilient::{Backoff, RetryPolicy};
///
/// let policy = RetryPolicy::builder()
///     .max_attempts(3)
///     .backoff(Backoff::none())
///     .build()
///     .unwrap();
/// let err = policy.run(|_| Err::<(), _>("down")).unwrap_err();
/// assert_eq!(err.attempts(), 3);
/// assert_eq!(*err.cause(), "down");
/// ```
///
/// Its `Display` says how many attempts failed; the last attempt's error is
/// its [`source`](std::error::Error::source), so that error chains (anyhow,
/// eyre) print it once:
///
/// ```
/// use resilient::{Backoff, RetryPolicy};
/// use std::error::Error;
///
/// let policy = RetryPolicy::builder().max_attempts(2).backoff(Backoff::none()).build().unwrap();
/// let err = policy.run(|_| Err::<(), _>(std::fmt::Error)).unwrap_err();
/// assert_eq!(err.to_string(), "failed after 2 attempt(s)");
/// assert_eq!(err.source().unwrap().to_string(), std::fmt::Error.to_string());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryError<E> {
    attempts: u32,
    cause: E,
}

impl<E> std::fmt::Display for RetryError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "failed after {} attempt(s)", self.attempts)
    }
}

impl<E: std::error::Error + 'static> std::error::Error for RetryError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

impl<E> RetryError<E> {
    pub(crate) fn new(attempts: u32, cause: E) -> Self {
        Self { attempts, cause }
    }

    /// How many attempts were made.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The last attempt's error.
    pub fn cause(&self) -> &E {
        &self.cause
    }

    /// The last attempt's error, by value.
    pub fn into_cause(self) -> E {
        self.cause
    }
}

/// An attempt outlived its deadline (`min(timeout, remaining budget)`).
///
/// The engine turns it into the caller's error with `E::from(TimedOut)`, so
/// an error type that can time out implements `From<TimedOut>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimedOut;

marker_error!(TimedOut, "attempt timed out");

/// An open circuit breaker rejected the attempt without running it.
///
/// Converted into the caller's error with `E::from(CircuitOpen)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CircuitOpen;

marker_error!(CircuitOpen, "circuit breaker is open");

/// A successful value failed the operation's validation.
///
/// Converted into the caller's error with `E::from(ValidationFailed)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ValidationFailed;

marker_error!(ValidationFailed, "result failed validation");

/// A limiter refused an attempt: which one, and, where it knows, when a
/// permit may be free.
///
/// The engine converts it into the caller's error with
/// `E::from(LimitExceeded)`; the call is not retried.
///
/// ```
/// use resilient::LimitExceeded;
/// use std::time::Duration;
///
/// let refusal = LimitExceeded::new("provider", Some(Duration::from_millis(250)));
/// assert_eq!(refusal.limiter(), "provider");
/// assert_eq!(refusal.retry_after(), Some(Duration::from_millis(250)));
/// assert_eq!(refusal.to_string(), "limiter `provider` refused the attempt (retry after 250ms)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LimitExceeded {
    limiter: &'static str,
    why: Why,
}

/// Why a limiter refused: in 16 bytes, as a bare `Option<Duration>` was,
/// so that every future holding a refusal stays its size.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Why {
    /// Full, with no word of when it may admit again.
    Full,
    /// It may admit again after this.
    After(Duration),
    /// Its last permits are kept for priorities above this one.
    Shed(crate::priority::Priority),
}

impl LimitExceeded {
    /// A refusal by `limiter`, which may admit again after `retry_after`.
    pub const fn new(limiter: &'static str, retry_after: Option<Duration>) -> Self {
        let why = match retry_after {
            Some(after) => Why::After(after),
            None => Why::Full,
        };
        Self { limiter, why }
    }

    /// A refusal by `limiter` of a call of `priority`, while permits were
    /// still free for higher priorities (see
    /// [`Priorities`](crate::limit::Priorities)).
    ///
    /// ```
    /// use resilient::LimitExceeded;
    /// use resilient::limit::Priority;
    ///
    /// let shed = LimitExceeded::shed("db", Priority::Low);
    /// assert_eq!(shed.shed_priority(), Some(Priority::Low));
    /// assert_eq!(shed.retry_after(), None);
    /// assert_eq!(shed.to_string(), "limiter `db` shed a `low` priority attempt, keeping its reserve for higher priorities");
    /// ```
    pub const fn shed(limiter: &'static str, priority: crate::priority::Priority) -> Self {
        Self {
            limiter,
            why: Why::Shed(priority),
        }
    }

    /// The name of the limiter that refused.
    pub const fn limiter(&self) -> &'static str {
        self.limiter
    }

    /// How long until the limiter may admit again, where it knows.
    pub const fn retry_after(&self) -> Option<Duration> {
        match self.why {
            Why::After(after) => Some(after),
            Why::Full | Why::Shed(_) => None,
        }
    }

    /// The priority of the call it shed, when it refused that call for
    /// its priority: the limit was not full, but what was left was
    /// reserved for higher priorities. `None` for a full limit's refusal.
    pub const fn shed_priority(&self) -> Option<crate::priority::Priority> {
        match self.why {
            Why::Shed(priority) => Some(priority),
            Why::Full | Why::After(_) => None,
        }
    }
}

impl std::fmt::Debug for LimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut debug = f.debug_struct("LimitExceeded");
        debug
            .field("limiter", &self.limiter)
            .field("retry_after", &self.retry_after());
        if let Some(priority) = self.shed_priority() {
            debug.field("shed", &priority);
        }
        debug.finish()
    }
}

impl std::fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(priority) = self.shed_priority() {
            return write!(
                f,
                "limiter `{}` shed a `{priority}` priority attempt, keeping its reserve for higher priorities",
                self.limiter
            );
        }
        write!(f, "limiter `{}` refused the attempt", self.limiter)?;
        if let Some(after) = self.retry_after() {
            write!(f, " (retry after {after:?})")?;
        }
        Ok(())
    }
}

impl std::error::Error for LimitExceeded {}

/// A request refused locally by an adaptive throttle
/// (`resilient::throttle::AdaptiveThrottle`): the backend
/// accepts too few requests of late. The attempt never ran; an operation
/// with `adaptive_throttle` needs its error type to convert it
/// (`E: From<Rejected>`, or through
/// [`EngineFailure`](crate::EngineFailure)).
///
/// ```
/// use resilient::throttle::Rejected;
///
/// assert_eq!(Rejected.to_string(), "rejected by the adaptive throttle: the backend accepts too few requests");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rejected;

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("rejected by the adaptive throttle: the backend accepts too few requests")
    }
}

impl std::error::Error for Rejected {}

/// Every failure the engine makes itself, in one type: an error type
/// converts it once, with `From<EngineFailure>`, and
/// [`engine_failures!`](crate::engine_failures) derives from that one the
/// conversions each option asks for (`From<TimedOut>`, `From<CircuitOpen>`,
/// …). An error type may still implement those one by one instead.
///
/// Why a macro: the options ask for `E: From<TimedOut>` and the like, and
/// Rust's coherence rules don't let the engine accept either that or
/// `E: From<EngineFailure>`; the macro writes the first through the second.
///
/// ```
/// use resilient::{CircuitOpen, EngineFailure, TimedOut};
///
/// #[derive(Debug, PartialEq)]
/// enum FetchError {
///     Timeout,
///     Unavailable,
/// }
///
/// impl From<EngineFailure> for FetchError {
///     fn from(failure: EngineFailure) -> Self {
///         match failure {
///             EngineFailure::TimedOut(_) => FetchError::Timeout,
///             _ => FetchError::Unavailable,
///         }
///     }
/// }
///
/// resilient::engine_failures!(FetchError);
///
/// assert_eq!(FetchError::from(TimedOut), FetchError::Timeout);
/// assert_eq!(FetchError::from(CircuitOpen), FetchError::Unavailable);
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum EngineFailure {
    /// An attempt outlived its deadline (`timeout`, `budget`).
    TimedOut(TimedOut),
    /// An open circuit breaker rejected the attempt (`circuit_breaker`).
    CircuitOpen(CircuitOpen),
    /// A value failed the check (`validate`).
    ValidationFailed(ValidationFailed),
    /// A limiter refused the attempt (`limit`).
    LimitExceeded(LimitExceeded),
    /// An adaptive throttle refused the attempt locally (`adaptive_throttle`).
    Rejected(Rejected),
    /// A call waited past its budget for another with its key (`idempotency`).
    IdempotencyInFlight(crate::idempotency::IdempotencyInFlight),
    /// The idempotency store failed before the body ran (`idempotency`).
    Store(crate::idempotency::StoreError),
}

/// Its failure's own text, as thiserror's `transparent` would say it.
impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self.inner(), f)
    }
}

/// Its failure's own source: the failure is the error itself.
impl std::error::Error for EngineFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner().source()
    }
}

/// For each variant, the failure it holds as an error, and `From`.
macro_rules! engine_failure_variants {
    ($($Variant:ident($Failure:ty)),* $(,)?) => {
        impl EngineFailure {
            /// The failure it holds, as an error.
            fn inner(&self) -> &(dyn std::error::Error + 'static) {
                match self {
                    $(EngineFailure::$Variant(failure) => failure,)*
                }
            }
        }

        $(impl From<$Failure> for EngineFailure {
            fn from(failure: $Failure) -> Self {
                EngineFailure::$Variant(failure)
            }
        })*
    };
}

engine_failure_variants!(
    TimedOut(TimedOut),
    CircuitOpen(CircuitOpen),
    ValidationFailed(ValidationFailed),
    LimitExceeded(LimitExceeded),
    Rejected(Rejected),
    IdempotencyInFlight(crate::idempotency::IdempotencyInFlight),
    Store(crate::idempotency::StoreError),
);

/// Implements, for an error type that converts an [`EngineFailure`], the
/// conversion of each of the engine's own failures through it:
/// `From<TimedOut>`, `From<CircuitOpen>`, `From<ValidationFailed>`,
/// `From<LimitExceeded>`, `From<Rejected>`, `From<IdempotencyInFlight>` and
/// `From<StoreError>`.
/// Implement none of those by hand beside it.
///
/// ```
/// use resilient::{EngineFailure, TimedOut, resilient};
///
/// #[derive(Debug, thiserror::Error)]
/// enum LookupError {
///     #[error("timed out")]
///     Timeout,
///     #[error("{0}")]
///     Engine(EngineFailure),
/// }
///
/// impl From<EngineFailure> for LookupError {
///     fn from(failure: EngineFailure) -> Self {
///         match failure {
///             EngineFailure::TimedOut(_) => LookupError::Timeout,
///             other => LookupError::Engine(other),
///         }
///     }
/// }
///
/// resilient::engine_failures!(LookupError);
///
/// #[resilient(timeout = "1s")]
/// async fn lookup() -> Result<u32, LookupError> {
///     tokio::time::sleep(std::time::Duration::from_secs(5)).await;
///     Ok(7)
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// assert!(matches!(lookup().await.into_result(), Err(LookupError::Timeout)));
/// # }
/// ```
#[macro_export]
macro_rules! engine_failures {
    ($error:ty) => {
        $crate::engine_failures!(@from $error:
            $crate::TimedOut,
            $crate::CircuitOpen,
            $crate::ValidationFailed,
            $crate::LimitExceeded,
            $crate::Rejected,
            $crate::idempotency::IdempotencyInFlight,
            $crate::idempotency::StoreError,
        );
    };
    (@from $error:ty: $($failure:ty,)*) => {
        $(
            impl ::core::convert::From<$failure> for $error {
                fn from(failure: $failure) -> Self {
                    <$error as ::core::convert::From<$crate::EngineFailure>>::from(
                        $crate::EngineFailure::from(failure),
                    )
                }
            }
        )*
    };
}

/// Declares a trait for the error types the engine makes from `$marker`,
/// implemented for every `E: From<$marker>`. `do_not_recommend` hides that
/// impl from diagnostics, so that a missing `From` is reported with the
/// trait's own message, where an option asks for it.
macro_rules! made_from {
    ($(#[$attr:meta])* pub trait $name:ident { fn $function:ident() } from $marker:ident) => {
        $(#[$attr])*
        pub trait $name {
            #[doc = concat!("The error made from [`", stringify!($marker), "`]: `Self::from(", stringify!($marker), ")`.")]
            fn $function() -> Self;
        }

        #[diagnostic::do_not_recommend]
        impl<E: From<$marker>> $name for E {
            fn $function() -> Self {
                E::from($marker)
            }
        }
    };
}

made_from! {
    /// An error type that can stand for an attempt cut at its deadline: every
    /// `E: From<TimedOut>`, through the blanket implementation.
    ///
    /// [`Operation::timeout`](crate::Operation::timeout) and
    /// [`Operation::interrupt_at_deadline`](crate::Operation::interrupt_at_deadline)
    /// ask for it, and so do the attribute's `timeout` option and its `budget`
    /// on an `async fn` (the attempt in flight is cut at the budget). Implement
    /// `From<TimedOut>`, not this trait:
    ///
    /// ```
    /// use resilient::{TimedOut, TimeoutError};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum FetchError { Timeout, Refused }
    ///
    /// impl From<TimedOut> for FetchError {
    ///     fn from(_: TimedOut) -> Self {
    ///         FetchError::Timeout
    ///     }
    /// }
    ///
    /// assert_eq!(FetchError::timed_out(), FetchError::Timeout);
    /// # let _ = FetchError::Refused;
    /// ```
    #[diagnostic::on_unimplemented(
        message = "`timeout`, and `budget` on an `async fn`, need `{Self}` to implement `From<resilient::TimedOut>`",
        label = "an attempt cut at its deadline fails with `{Self}::from(TimedOut)`",
        note = "add `impl From<resilient::TimedOut> for {Self} {{ fn from(_: resilient::TimedOut) -> Self {{ … }} }}`"
    )]
    pub trait TimeoutError { fn timed_out() } from TimedOut
}

made_from! {
    /// An error type that can stand for an attempt an open circuit breaker
    /// rejected: every `E: From<CircuitOpen>`, through the blanket
    /// implementation.
    ///
    /// [`Operation::circuit_breaker`](crate::Operation::circuit_breaker) and the
    /// attribute's `circuit_breaker` option ask for it. Implement
    /// `From<CircuitOpen>`, not this trait:
    ///
    /// ```
    /// use resilient::{CircuitOpen, CircuitOpenError};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum FetchError { Unavailable, Refused }
    ///
    /// impl From<CircuitOpen> for FetchError {
    ///     fn from(_: CircuitOpen) -> Self {
    ///         FetchError::Unavailable
    ///     }
    /// }
    ///
    /// assert_eq!(FetchError::circuit_open(), FetchError::Unavailable);
    /// # let _ = FetchError::Refused;
    /// ```
    #[diagnostic::on_unimplemented(
        message = "`circuit_breaker` needs `{Self}` to implement `From<resilient::CircuitOpen>`",
        label = "an attempt the open breaker rejects fails with `{Self}::from(CircuitOpen)`",
        note = "add `impl From<resilient::CircuitOpen> for {Self} {{ fn from(_: resilient::CircuitOpen) -> Self {{ … }} }}`"
    )]
    pub trait CircuitOpenError { fn circuit_open() } from CircuitOpen
}

made_from! {
    /// An error type that can stand for a value that failed validation: every
    /// `E: From<ValidationFailed>`, through the blanket implementation.
    ///
    /// [`Operation::validate`](crate::Operation::validate) and the attribute's
    /// `validate` option ask for it. Implement `From<ValidationFailed>`, not
    /// this trait:
    ///
    /// ```
    /// use resilient::{ValidationError, ValidationFailed};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum FetchError { Incomplete, Refused }
    ///
    /// impl From<ValidationFailed> for FetchError {
    ///     fn from(_: ValidationFailed) -> Self {
    ///         FetchError::Incomplete
    ///     }
    /// }
    ///
    /// assert_eq!(FetchError::validation_failed(), FetchError::Incomplete);
    /// # let _ = FetchError::Refused;
    /// ```
    #[diagnostic::on_unimplemented(
        message = "`validate` needs `{Self}` to implement `From<resilient::ValidationFailed>`",
        label = "a value that fails the check becomes the error `{Self}::from(ValidationFailed)`",
        note = "add `impl From<resilient::ValidationFailed> for {Self} {{ fn from(_: resilient::ValidationFailed) -> Self {{ … }} }}`"
    )]
    pub trait ValidationError { fn validation_failed() } from ValidationFailed
}

made_from! {
    /// An error type that can stand for an attempt an adaptive throttle
    /// refused locally: every `E: From<Rejected>`, through the blanket
    /// implementation.
    ///
    /// [`Operation::adaptive_throttle`](crate::Operation::adaptive_throttle)
    /// and the attribute's `adaptive_throttle` option ask for it. Implement
    /// `From<Rejected>`, not this trait:
    ///
    /// ```
    /// use resilient::RejectedError;
    /// use resilient::throttle::Rejected;
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum FetchError { Shed, Refused }
    ///
    /// impl From<Rejected> for FetchError {
    ///     fn from(_: Rejected) -> Self {
    ///         FetchError::Shed
    ///     }
    /// }
    ///
    /// assert_eq!(FetchError::rejected(), FetchError::Shed);
    /// # let _ = FetchError::Refused;
    /// ```
    #[diagnostic::on_unimplemented(
        message = "`adaptive_throttle` needs `{Self}` to implement `From<resilient::throttle::Rejected>`",
        label = "an attempt the adaptive throttle refuses fails with `{Self}::from(Rejected)`",
        note = "add `impl From<resilient::throttle::Rejected> for {Self} {{ fn from(_: resilient::throttle::Rejected) -> Self {{ … }} }}`"
    )]
    pub trait RejectedError { fn rejected() } from Rejected
}

/// An error type that can stand for an attempt a limiter refused: every
/// `E: From<LimitExceeded>`, through the blanket implementation.
///
/// [`Operation::limit`](crate::Operation::limit) and the attribute's
/// `limit` option ask for it. Implement `From<LimitExceeded>`, not this
/// trait:
///
/// ```
/// use resilient::{LimitExceeded, LimitExceededError};
/// use std::time::Duration;
///
/// #[derive(Debug, PartialEq)]
/// enum FetchError { Busy(Option<Duration>), Refused }
///
/// impl From<LimitExceeded> for FetchError {
///     fn from(refusal: LimitExceeded) -> Self {
///         FetchError::Busy(refusal.retry_after())
///     }
/// }
///
/// let refusal = LimitExceeded::new("pool", None);
/// assert_eq!(FetchError::limit_exceeded(refusal), FetchError::Busy(None));
/// # let _ = FetchError::Refused;
/// ```
#[diagnostic::on_unimplemented(
    message = "`limit` needs `{Self}` to implement `From<resilient::LimitExceeded>`",
    label = "an attempt a limiter refuses fails with `{Self}::from(LimitExceeded)`",
    note = "add `impl From<resilient::LimitExceeded> for {Self} {{ fn from(refusal: resilient::LimitExceeded) -> Self {{ … }} }}`"
)]
pub trait LimitExceededError {
    /// The error made from `refusal`: `Self::from(refusal)`.
    fn limit_exceeded(refusal: LimitExceeded) -> Self;
}

#[diagnostic::do_not_recommend]
impl<E: From<LimitExceeded>> LimitExceededError for E {
    fn limit_exceeded(refusal: LimitExceeded) -> Self {
        E::from(refusal)
    }
}

/// An error type whose `Display` text the report can record: every
/// `E: Display`, through the blanket implementation.
///
/// [`Operation::new`](crate::Operation::new) asks for it: each failed
/// attempt's record keeps the error's text
/// ([`ExecutionError::message`](crate::ExecutionError::message)). An error
/// type without `Display` goes through
/// [`Operation::described_by`](crate::Operation::described_by) (its `Debug`
/// text, say); `#[resilient]` picks `Display` where the type has it and
/// `Debug` otherwise, and the closure API ([`Retryable`](crate::Retryable))
/// records `Debug`. Implement [`Display`](std::fmt::Display), not this
/// trait:
///
/// ```
/// use resilient::ReportableError;
/// use std::fmt;
///
/// #[derive(Debug)]
/// struct FetchError;
///
/// impl fmt::Display for FetchError {
///     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
///         f.write_str("fetch failed")
///     }
/// }
///
/// assert_eq!(FetchError::describe(&FetchError), "fetch failed");
/// ```
#[diagnostic::on_unimplemented(
    message = "the error type `{Self}` must implement `std::fmt::Display`: the report records each failed attempt's error as text",
    label = "`{Self}` doesn't implement `Display`",
    note = "for an error type that is `Debug` but not `Display`, build with `Operation::described_by_debug()`, which records its `Debug` text"
)]
pub trait ReportableError {
    /// The error's text, as the report records it.
    fn describe(error: &Self) -> String;
}

/// The error's `Debug` text: what the report records where the error
/// type's `Display` can't be told apart (the closure API,
/// [`Operation::described_by_debug`](crate::Operation::described_by_debug)).
pub(crate) fn debug_text<E: std::fmt::Debug>(error: &E) -> String {
    format!("{error:?}")
}

// Hidden from diagnostics, like the impls of `made_from!`.
#[diagnostic::do_not_recommend]
impl<E: std::fmt::Display> ReportableError for E {
    fn describe(error: &Self) -> String {
        error.to_string()
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;
    use std::io;

    use super::*;
    use crate::idempotency::{IdempotencyError, IdempotencyInFlight, StoreError};

    /// Each error's chain: its text, then each source's.
    fn chain(error: &dyn Error) -> Vec<String> {
        let mut texts = vec![error.to_string()];
        let mut next = error.source();
        while let Some(source) = next {
            texts.push(source.to_string());
            next = source.source();
        }
        texts
    }

    #[test]
    fn each_error_says_itself_once_and_hands_on_its_cause() {
        let refused = || io::Error::from(io::ErrorKind::ConnectionRefused);
        assert_eq!(
            chain(&RetryError::new(3, refused())),
            ["failed after 3 attempt(s)", "connection refused"]
        );
        let store = StoreError::Unavailable(refused().into());
        assert_eq!(
            chain(&store),
            [
                "lost the connection to the idempotency store: connection refused",
                "connection refused"
            ]
        );
        // A wrapper that only carries another error says that error's text
        // and hands on its cause, not itself.
        assert_eq!(
            chain(&IdempotencyError::from(StoreError::Backend(
                refused().into()
            ))),
            [
                "the idempotency store failed: connection refused",
                "connection refused"
            ]
        );
        assert_eq!(
            chain(&IdempotencyError::from(IdempotencyInFlight)),
            ["another call with the same idempotency key is still running"]
        );
        assert_eq!(chain(&EngineFailure::from(TimedOut)), ["attempt timed out"]);
        assert_eq!(
            chain(&EngineFailure::from(StoreError::Serialize(
                refused().into()
            ))),
            [
                "could not serialise the value to store under an idempotency key: connection refused",
                "connection refused"
            ]
        );
        assert_eq!(
            ConfigError::BaseAboveMax {
                base: Duration::from_secs(2),
                max: Duration::from_secs(1)
            }
            .to_string(),
            "backoff base (2s) must not exceed its max (1s)"
        );
        assert_eq!(
            ConfigError::ZeroDuration("timeout").to_string(),
            "timeout must be greater than zero"
        );
        assert!(ConfigError::ZeroAttempts.source().is_none());
    }
}
