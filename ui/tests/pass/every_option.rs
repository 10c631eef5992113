#![deny(warnings)]

use resilient::{
    Attempt, Backoff, CircuitBreaker, CircuitOpen, FakeClock, Jitter, RetryEvent, RetryPolicy,
    TimedOut, ValidationFailed, resilient,
};
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

#[derive(Debug, PartialEq, thiserror::Error)]
enum ApiError {
    #[error("rate limited for {0}s")]
    RateLimited(u64),
    #[error("timed out")]
    Timeout,
    #[error("circuit open")]
    CircuitOpen,
    #[error("invalid answer")]
    Invalid,
}

impl From<TimedOut> for ApiError {
    fn from(_: TimedOut) -> Self {
        ApiError::Timeout
    }
}

impl From<CircuitOpen> for ApiError {
    fn from(_: CircuitOpen) -> Self {
        ApiError::CircuitOpen
    }
}

impl From<ValidationFailed> for ApiError {
    fn from(_: ValidationFailed) -> Self {
        ApiError::Invalid
    }
}

static BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .failure_threshold(10)
        .break_duration(Duration::from_secs(30))
        .build()
        .unwrap()
});

static RETRY_EVENTS: AtomicU32 = AtomicU32::new(0);

fn retry_after(error: &ApiError) -> Option<Duration> {
    match error {
        ApiError::RateLimited(secs) => Some(Duration::from_secs(*secs)),
        _ => None,
    }
}

#[allow(clippy::ptr_arg, reason = "`validate` receives `&T`, here `&String`")]
fn is_complete(answer: &String) -> bool {
    !answer.is_empty()
}

fn count_retry(_: &RetryEvent<'_>) {
    RETRY_EVENTS.fetch_add(1, Ordering::SeqCst);
}

async fn cached(prompt: &str) -> Result<String, ApiError> {
    Ok(format!("cached {prompt}"))
}

mod runtime {
    pub use resilient::*;
}

#[resilient(
    retries = 4,
    retry_on = [RateLimited, Timeout, ApiError::Invalid],
    backoff = exponential(base = "50ms", max = "2s", multiplier = 3, jitter = equal),
    timeout = "2s",
    budget = "1m",
    max_elapsed = "30s",
    min_retries = 1,
    retry_after = retry_after,
    max_retry_after_wait = "10s",
    max_retry_after_retries = 3,
    nested = "no_retry",
    circuit_breaker = &BREAKER,
    validate = is_complete,
    on_retry = count_retry,
    clock = resilient::TokioClock,
    fallback = cached,
    crate = "crate::every_option::runtime",
)]
async fn ask(prompt: &str, #[attempt] attempt: Attempt) -> Result<String, ApiError> {
    match attempt.number() {
        1 => Err(ApiError::RateLimited(1)),
        2 => Ok(String::new()),
        _ => Ok(format!("answer to {prompt}")),
    }
}

fn policy() -> RetryPolicy {
    RetryPolicy::builder()
        .max_attempts(3)
        .backoff(
            Backoff::exponential(Duration::from_millis(10), Duration::from_secs(1))
                .jitter(Jitter::None),
        )
        .build()
        .unwrap()
}

#[resilient(retry = policy(), budget = "10s", clock = clock.clone())]
fn with_policy(clock: &FakeClock) -> Result<u8, ApiError> {
    Err(ApiError::Timeout)
}

#[resilient(retries = 2, retry_if = |e: &ApiError| *e == ApiError::Timeout, backoff = Backoff::none(), on_retry = |_: &RetryEvent<'_>| (), clock = clock.clone())]
fn with_expressions(clock: &FakeClock) -> Result<u8, ApiError> {
    Err(ApiError::Timeout)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let outcome = ask("life").await;
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.into_result(), Ok("answer to life".to_owned()));
    assert_eq!(RETRY_EVENTS.load(Ordering::SeqCst), 2);

    let clock = FakeClock::new();
    assert_eq!(with_expressions(&clock).report().attempt_count(), 3);
    let clock = FakeClock::new();
    assert_eq!(with_policy(&clock).report().attempt_count(), 3);
    assert_eq!(
        clock.slept(),
        [Duration::from_millis(10), Duration::from_millis(20)]
    );
}
