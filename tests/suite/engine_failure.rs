//! One conversion for all the engine's own failures: an error type that
//! implements `From<EngineFailure>` and says `engine_failures!` takes every
//! option that asks for a conversion; per-type conversions keep working.

use resilient::idempotency::{IdempotencyInFlight, MemoryStore, StoreError};
use resilient::{
    CircuitBreaker, CircuitOpen, EngineFailure, FakeClock, TimedOut, ValidationFailed, resilient,
};
use std::sync::LazyLock;
use std::time::Duration;

#[derive(Debug, PartialEq, thiserror::Error)]
enum AppError {
    #[error("timed out")]
    Timeout,
    #[error("circuit open")]
    Unavailable,
    #[error("invalid")]
    Invalid,
    #[error("other engine failure: {0}")]
    Engine(String),
    #[error("fatal")]
    Fatal,
}

impl From<EngineFailure> for AppError {
    fn from(failure: EngineFailure) -> Self {
        match failure {
            EngineFailure::TimedOut(_) => AppError::Timeout,
            EngineFailure::CircuitOpen(_) => AppError::Unavailable,
            EngineFailure::ValidationFailed(_) => AppError::Invalid,
            other => AppError::Engine(other.to_string()),
        }
    }
}

resilient::engine_failures!(AppError);

#[test]
fn every_failure_converts_through_the_one_conversion() {
    assert_eq!(AppError::from(TimedOut), AppError::Timeout);
    assert_eq!(AppError::from(CircuitOpen), AppError::Unavailable);
    assert_eq!(AppError::from(ValidationFailed), AppError::Invalid);
    assert_eq!(
        AppError::from(IdempotencyInFlight),
        AppError::Engine(IdempotencyInFlight.to_string())
    );
    let store = StoreError::Unavailable("down".into());
    let text = store.to_string();
    assert_eq!(AppError::from(store), AppError::Engine(text));
}

static BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .failure_threshold(2)
        .break_duration(Duration::from_secs(60))
        .build()
        .unwrap()
});

static STORE: MemoryStore<u32> = MemoryStore::new();

fn positive(value: &u32) -> bool {
    *value > 0
}

// Every option that asks for a conversion, on one error type that has only
// the one.
#[resilient(timeout = "1s", budget = "10s", circuit_breaker = &BREAKER, validate = positive, idempotency = &STORE, idempotency_key = format!("k{value}"))]
async fn everything(value: u32) -> Result<u32, AppError> {
    if value == 9 {
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
    Ok(value)
}

#[tokio::test(start_paused = true)]
async fn the_options_take_an_error_type_with_the_one_conversion() {
    assert_eq!(everything(3).await.into_result(), Ok(3));
    assert_eq!(everything(9).await.into_result(), Err(AppError::Timeout));
    assert_eq!(everything(0).await.into_result(), Err(AppError::Invalid));
    // Two failures in a row opened the breaker.
    assert_eq!(
        everything(5).await.into_result(),
        Err(AppError::Unavailable)
    );
}

#[resilient(retries = 1, backoff = none, clock = clock)]
fn fatal(clock: &FakeClock) -> Result<u32, AppError> {
    Err(AppError::Fatal)
}

#[test]
fn the_error_type_is_still_an_ordinary_one() {
    let outcome = fatal(&FakeClock::new());
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(outcome.into_result(), Err(AppError::Fatal));
}
