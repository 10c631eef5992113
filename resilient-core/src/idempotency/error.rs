//! The errors of idempotent execution: the marker error a caller's error
//! type converts from, the stores' errors, and the coordinator's error that
//! holds either.

/// An error from a store's backend, boxed so that any store can report its
/// own cause.
type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Another call with the same idempotency key was still running when this
/// call's wait ran out.
///
/// Converted into the caller's error with `E::from(IdempotencyInFlight)`, as
/// [`TimedOut`](crate::TimedOut) and [`CircuitOpen`](crate::CircuitOpen) are.
///
/// ```
/// use resilient::idempotency::IdempotencyInFlight;
///
/// assert_eq!(
///     IdempotencyInFlight.to_string(),
///     "another call with the same idempotency key is still running"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IdempotencyInFlight;

crate::marker::marker_error!(
    IdempotencyInFlight,
    "another call with the same idempotency key is still running"
);

/// The idempotency key was reused with another fingerprint (other
/// parameters) while the first call was in flight or its value stored.
///
/// Payment APIs answer such a reuse with an error rather than replay a
/// receipt for another amount; so does an operation with
/// `idempotency_fingerprint`, through `E::from(IdempotencyConflict)`.
///
/// ```
/// use resilient::idempotency::IdempotencyConflict;
///
/// assert_eq!(
///     IdempotencyConflict.to_string(),
///     "the idempotency key was already used with other parameters"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IdempotencyConflict;

crate::marker::marker_error!(
    IdempotencyConflict,
    "the idempotency key was already used with other parameters"
);

/// An idempotency store could not do what was asked.
///
/// A store error before the body runs fails the call without running it; one
/// after the body ran never hides its result (see
/// [`run_idempotent`](super::run_idempotent)).
///
/// A store of one's own builds these from its backend's errors:
///
/// ```
/// use resilient::idempotency::StoreError;
/// use std::io;
///
/// let err = StoreError::Unavailable(io::Error::from(io::ErrorKind::ConnectionRefused).into());
/// assert_eq!(err.to_string(), "lost the connection to the idempotency store: connection refused");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The store could not be reached, or the connection dropped or timed
    /// out mid-request.
    Unavailable(Cause),
    /// The value to store could not be serialised.
    Serialize(Cause),
    /// What the store holds under the key could not be read back as a value
    /// of the expected type (a type changed between deploys, or something
    /// else wrote to the key).
    Deserialize(Cause),
    /// The store answered with an error of its own (a script error, a
    /// permission denied, a full disk…).
    Backend(Cause),
}

impl StoreError {
    /// What it says before its cause, and the cause.
    fn parts(&self) -> (&'static str, &Cause) {
        match self {
            StoreError::Unavailable(cause) => {
                ("lost the connection to the idempotency store", cause)
            }
            StoreError::Serialize(cause) => (
                "could not serialise the value to store under an idempotency key",
                cause,
            ),
            StoreError::Deserialize(cause) => (
                "could not deserialise the value stored under an idempotency key",
                cause,
            ),
            StoreError::Backend(cause) => ("the idempotency store failed", cause),
        }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, cause) = self.parts();
        write!(f, "{what}: {cause}")
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&**self.parts().1)
    }
}

/// Why an idempotent call ended without a result of its body.
///
/// [`run_idempotent`](super::run_idempotent) returns it before running
/// anything. [`into_error`](IdempotencyError::into_error) turns it into the
/// caller's error type, which is how an engine that runs idempotent calls
/// reports it.
///
/// ```
/// use resilient::idempotency::{IdempotencyError, IdempotencyInFlight, StoreError};
///
/// #[derive(Debug, PartialEq)]
/// enum PayError {
///     Busy,
///     Store(String),
/// }
/// impl From<IdempotencyInFlight> for PayError {
///     fn from(_: IdempotencyInFlight) -> Self {
///         PayError::Busy
///     }
/// }
/// impl From<StoreError> for PayError {
///     fn from(err: StoreError) -> Self {
///         PayError::Store(err.to_string())
///     }
/// }
///
/// let err = IdempotencyError::from(IdempotencyInFlight);
/// assert_eq!(err.into_error::<PayError>(), PayError::Busy);
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum IdempotencyError {
    /// The wait for another call with the same key ran out.
    InFlight(IdempotencyInFlight),
    /// The store failed before the body could run.
    Store(StoreError),
}

/// The text of the error it holds, whose source is its own.
impl std::fmt::Display for IdempotencyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdempotencyError::InFlight(error) => error.fmt(f),
            IdempotencyError::Store(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for IdempotencyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            IdempotencyError::InFlight(_) => None,
            IdempotencyError::Store(error) => std::error::Error::source(error),
        }
    }
}

impl From<IdempotencyInFlight> for IdempotencyError {
    fn from(error: IdempotencyInFlight) -> Self {
        IdempotencyError::InFlight(error)
    }
}

impl From<StoreError> for IdempotencyError {
    fn from(error: StoreError) -> Self {
        IdempotencyError::Store(error)
    }
}

impl IdempotencyError {
    /// Converts into the caller's error type, through its `From` impls.
    ///
    /// ```
    /// use resilient::idempotency::{IdempotencyError, IdempotencyInFlight, StoreError};
    ///
    /// #[derive(Debug)]
    /// struct AppError(String);
    /// impl From<IdempotencyInFlight> for AppError {
    ///     fn from(err: IdempotencyInFlight) -> Self {
    ///         AppError(err.to_string())
    ///     }
    /// }
    /// impl From<StoreError> for AppError {
    ///     fn from(err: StoreError) -> Self {
    ///         AppError(err.to_string())
    ///     }
    /// }
    ///
    /// let app: AppError = IdempotencyError::InFlight(IdempotencyInFlight).into_error();
    /// assert_eq!(app.0, "another call with the same idempotency key is still running");
    /// ```
    pub fn into_error<E>(self) -> E
    where
        E: From<IdempotencyInFlight> + From<StoreError>,
    {
        match self {
            IdempotencyError::InFlight(in_flight) => E::from(in_flight),
            IdempotencyError::Store(store) => E::from(store),
        }
    }
}

/// An error type that an idempotent call can fail with: one that converts
/// both [`IdempotencyInFlight`] and [`StoreError`], through the blanket
/// implementation. Asked of the error type only when an operation has an
/// idempotency key.
///
/// ```
/// use resilient::idempotency::{IdempotencyFailure, IdempotencyInFlight, StoreError};
///
/// #[derive(Debug)]
/// enum AppError { Busy, Store(String) }
/// impl From<IdempotencyInFlight> for AppError {
///     fn from(_: IdempotencyInFlight) -> Self { AppError::Busy }
/// }
/// impl From<StoreError> for AppError {
///     fn from(e: StoreError) -> Self { AppError::Store(e.to_string()) }
/// }
///
/// assert!(matches!(AppError::in_flight(IdempotencyInFlight), AppError::Busy));
/// ```
#[diagnostic::on_unimplemented(
    message = "`idempotency` needs `{Self}` to implement `From<resilient::idempotency::IdempotencyInFlight>` and `From<resilient::idempotency::StoreError>`",
    label = "a call that waited too long for the same key, or whose store failed, fails with this error",
    note = "add `impl From<resilient::idempotency::IdempotencyInFlight> for {Self}` and `impl From<resilient::idempotency::StoreError> for {Self}`"
)]
pub trait IdempotencyFailure: Sized {
    /// The error of a call that waited past its budget for another run.
    fn in_flight(error: IdempotencyInFlight) -> Self;
    /// The error of a call whose store failed.
    fn store(error: StoreError) -> Self;
}

#[diagnostic::do_not_recommend]
impl<E: From<IdempotencyInFlight> + From<StoreError>> IdempotencyFailure for E {
    fn in_flight(error: IdempotencyInFlight) -> Self {
        E::from(error)
    }

    fn store(error: StoreError) -> Self {
        E::from(error)
    }
}

/// An error type that a call with a fingerprint can fail with: one that
/// converts [`IdempotencyConflict`], through the blanket implementation.
/// Asked of the error type only when an operation has
/// `idempotency_fingerprint`.
///
/// ```
/// use resilient::idempotency::{IdempotencyConflict, IdempotencyConflictFailure};
///
/// #[derive(Debug, PartialEq)]
/// enum PayError { KeyReused }
/// impl From<IdempotencyConflict> for PayError {
///     fn from(_: IdempotencyConflict) -> Self { PayError::KeyReused }
/// }
///
/// assert_eq!(PayError::conflict(IdempotencyConflict), PayError::KeyReused);
/// ```
#[diagnostic::on_unimplemented(
    message = "`idempotency_fingerprint` needs `{Self}` to implement `From<resilient::idempotency::IdempotencyConflict>`",
    label = "a call that reuses its key with other parameters fails with this error",
    note = "add `impl From<resilient::idempotency::IdempotencyConflict> for {Self}`"
)]
pub trait IdempotencyConflictFailure: Sized {
    /// The error of a call that reused its key with other parameters.
    fn conflict(error: IdempotencyConflict) -> Self;
}

#[diagnostic::do_not_recommend]
impl<E: From<IdempotencyConflict>> IdempotencyConflictFailure for E {
    fn conflict(error: IdempotencyConflict) -> Self {
        E::from(error)
    }
}
