//! The fixture the engine's test files share: one error type, convertible
//! from every marker the engine makes, and its Retry-After hint.

// Each test file uses the part it needs.
#![allow(dead_code)]

use std::fmt;
use std::time::Duration;

use resilient_core::{CircuitOpen, TimedOut, ValidationFailed};

/// What an attempt in these tests fails with.
#[derive(Debug, Clone, PartialEq)]
pub enum Fail {
    /// Worth another attempt.
    Transient,
    /// Not worth another attempt (see [`retryable`]).
    Fatal,
    /// The attempt outlived its deadline.
    Timeout,
    /// An open circuit breaker rejected the attempt.
    Rejected,
    /// The value failed validation.
    Invalid,
    /// A server asked to wait this long.
    Limited(Duration),
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<TimedOut> for Fail {
    fn from(_: TimedOut) -> Self {
        Fail::Timeout
    }
}

impl From<CircuitOpen> for Fail {
    fn from(_: CircuitOpen) -> Self {
        Fail::Rejected
    }
}

impl From<ValidationFailed> for Fail {
    fn from(_: ValidationFailed) -> Self {
        Fail::Invalid
    }
}

/// The Retry-After hint of a `Limited` failure.
/// A current-thread runtime on paused time, for a test that runs its
/// async part inside a synchronous one (a local metrics recorder, a
/// proptest case).
pub fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
}

pub fn hint(e: &Fail) -> Option<Duration> {
    match e {
        Fail::Limited(d) => Some(*d),
        _ => None,
    }
}

/// Every failure but `Fatal` is worth another attempt.
pub fn retryable(e: &Fail) -> bool {
    *e != Fail::Fatal
}

pub const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}
