// What every function of the option matrix uses: an error type that takes
// every conversion an option asks for, the shared objects (breaker,
// throttle, store, policy) the options point at, and the helpers they name.
// The helpers a blocking and an async fn need in their own flavour
// (`recover`, `clock`) live in the modules `blocking` and `asynchronous`.
// Written at the root of each generated file, so: `//` comments only.

use resilient::idempotency::{IdempotencyConflict, IdempotencyInFlight, MemoryStore, StoreError};
use resilient::limit::{AdaptiveLimit, Bulkhead};
use resilient::{
    Backoff, CircuitBreaker, CircuitOpen, ExecutionReport, LimitExceeded, Outcome, RetryEvent,
    RetryPolicy, RetryThrottle, TimedOut, ValidationFailed, resilient,
};
use std::sync::LazyLock;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatrixError {
    #[error("transient")]
    Transient,
    #[error("timed out")]
    TimedOut,
    #[error("circuit open")]
    CircuitOpen,
    #[error("invalid value")]
    Invalid,
    #[error("key in flight")]
    InFlight,
    #[error("store failed")]
    Store,
    #[error("key reused with other parameters")]
    Conflict,
    #[error("limit exceeded")]
    Busy,
    #[error("shed by the adaptive throttle")]
    Shed,
}

impl From<resilient::throttle::Rejected> for MatrixError {
    fn from(_: resilient::throttle::Rejected) -> Self {
        MatrixError::Shed
    }
}

impl From<IdempotencyConflict> for MatrixError {
    fn from(_: IdempotencyConflict) -> Self {
        MatrixError::Conflict
    }
}

impl From<LimitExceeded> for MatrixError {
    fn from(_: LimitExceeded) -> Self {
        MatrixError::Busy
    }
}

impl From<TimedOut> for MatrixError {
    fn from(_: TimedOut) -> Self {
        MatrixError::TimedOut
    }
}

impl From<CircuitOpen> for MatrixError {
    fn from(_: CircuitOpen) -> Self {
        MatrixError::CircuitOpen
    }
}

impl From<ValidationFailed> for MatrixError {
    fn from(_: ValidationFailed) -> Self {
        MatrixError::Invalid
    }
}

impl From<IdempotencyInFlight> for MatrixError {
    fn from(_: IdempotencyInFlight) -> Self {
        MatrixError::InFlight
    }
}

impl From<StoreError> for MatrixError {
    fn from(_: StoreError) -> Self {
        MatrixError::Store
    }
}

// `crate = "crate::runtime"`: the runtime re-exported, as an SDK would.
mod runtime {
    pub use resilient::*;
}

static BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .failure_threshold(5)
        .break_duration(Duration::from_secs(30))
        .build()
        .unwrap()
});

static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.1);

static POOL: Bulkhead = Bulkhead::new(8);

static BACKEND: resilient::throttle::AdaptiveThrottle =
    resilient::throttle::AdaptiveThrottle::new().named("matrix");

static ADAPTIVE: AdaptiveLimit = AdaptiveLimit::aimd();

// Off: a combination with chaos runs its body, as every combination must.
static CHAOS: resilient::chaos::Chaos = resilient::chaos::Chaos::new();

static STORE: MemoryStore<u32> = MemoryStore::new();

static POLICY: LazyLock<RetryPolicy> = LazyLock::new(|| {
    RetryPolicy::builder()
        .max_attempts(3)
        .backoff(Backoff::constant(Duration::from_millis(10)))
        .build()
        .unwrap()
});

fn is_transient(error: &MatrixError) -> bool {
    *error == MatrixError::Transient
}

fn retry_after(_: &MatrixError) -> Option<Duration> {
    None
}

fn is_valid(value: &u32) -> bool {
    *value > 0
}

fn log_retry(_: &RetryEvent<'_>) {}

fn log_report(report: &ExecutionReport) {
    assert!(report.attempt_count() <= 1);
}

mod blocking {
    use super::MatrixError;

    pub fn recover(x: u32) -> Result<u32, MatrixError> {
        Ok(x + 1000)
    }

    pub fn clock() -> resilient::SystemClock {
        resilient::SystemClock
    }
}

mod asynchronous {
    use super::MatrixError;

    pub async fn recover(x: u32) -> Result<u32, MatrixError> {
        Ok(x + 1000)
    }

    pub fn clock() -> resilient::TokioClock {
        resilient::TokioClock
    }
}

// A call's result, from an `Outcome` or, with `report`, a `Result`.
trait Finish {
    fn finish(self) -> Result<u32, MatrixError>;
}

impl Finish for Outcome<u32, MatrixError> {
    fn finish(self) -> Result<u32, MatrixError> {
        self.into_result()
    }
}

impl Finish for Result<u32, MatrixError> {
    fn finish(self) -> Result<u32, MatrixError> {
        self
    }
}

// One call of a generated function, by flavour.
type BlockingCall = fn() -> Result<u32, MatrixError>;
type AsyncCall = fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<u32, MatrixError>>>>;
