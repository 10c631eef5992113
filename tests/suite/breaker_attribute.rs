//! `#[resilient(circuit_breaker = …)]` on the success path: a call through
//! a breaker takes the engine's general path, and a success there, first
//! or after retries, must end the call with one report and no more
//! attempts, and count as a success for the breaker.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use resilient::{CircuitBreaker, CircuitOpen, CircuitState, DelaySource, StopReason, resilient};

#[derive(Debug, PartialEq, thiserror::Error)]
enum Error {
    #[error("busy")]
    Busy,
    #[error("circuit open")]
    Open,
}

impl From<CircuitOpen> for Error {
    fn from(_: CircuitOpen) -> Self {
        Error::Open
    }
}

fn breaker() -> CircuitBreaker {
    CircuitBreaker::builder()
        .failure_threshold(2)
        .break_duration(Duration::from_secs(30))
        .build()
        .expect("a valid breaker")
}

static FIRST: LazyLock<CircuitBreaker> = LazyLock::new(breaker);
static FIRST_RUNS: AtomicU32 = AtomicU32::new(0);

#[resilient(retries = 3, retry_on = [Busy], backoff = constant("1s"), circuit_breaker = &FIRST)]
async fn succeeds_at_once() -> Result<u32, Error> {
    FIRST_RUNS.fetch_add(1, Ordering::SeqCst);
    Ok(7)
}

#[tokio::test(start_paused = true)]
async fn a_first_success_through_a_breaker_ends_the_call() {
    for call in 1..=3 {
        let started = tokio::time::Instant::now();
        let outcome = succeeds_at_once().await;
        let report = outcome.report();
        assert_eq!(report.attempt_count(), 1);
        assert_eq!(report.retry_count(), 0);
        assert!(report.delays().is_empty(), "no sleep after a success");
        assert_eq!(report.stop_reason(), StopReason::Succeeded);
        assert_eq!(started.elapsed(), Duration::ZERO);
        assert_eq!(outcome.into_result(), Ok(7));
        assert_eq!(FIRST_RUNS.load(Ordering::SeqCst), call);
    }
    assert_eq!(FIRST.state(Instant::now()), CircuitState::Closed);
}

static LATER: LazyLock<CircuitBreaker> = LazyLock::new(breaker);
static LATER_RUNS: AtomicU32 = AtomicU32::new(0);

/// Busy on every odd run: each call fails once, then succeeds.
#[resilient(retries = 3, retry_on = [Busy], backoff = constant("1s"), circuit_breaker = &LATER)]
async fn succeeds_on_the_second_attempt() -> Result<u32, Error> {
    let run = LATER_RUNS.fetch_add(1, Ordering::SeqCst) + 1;
    if run % 2 == 1 {
        Err(Error::Busy)
    } else {
        Ok(run)
    }
}

#[tokio::test(start_paused = true)]
async fn a_success_after_a_retry_resets_the_breakers_count() {
    // Two calls, each with one failure: with a threshold of two
    // consecutive failures, the success between them keeps it closed.
    for call in 1..=2u32 {
        let started = tokio::time::Instant::now();
        let outcome = succeeds_on_the_second_attempt().await;
        let report = outcome.report();
        assert_eq!(report.attempt_count(), 2);
        assert_eq!(report.delays(), [Duration::from_secs(1)]);
        let delay = report.attempts()[1]
            .delay_before()
            .expect("a delay before the retry");
        assert_eq!(delay.source(), DelaySource::Backoff);
        assert_eq!(started.elapsed(), Duration::from_secs(1));
        assert_eq!(outcome.into_result(), Ok(call * 2));
    }
    assert_eq!(LATER.state(Instant::now()), CircuitState::Closed);
}

static BLOCKING: LazyLock<CircuitBreaker> = LazyLock::new(breaker);

#[resilient(retries = 2, retry_on = [Busy], backoff = none, circuit_breaker = &BLOCKING)]
fn blocking_success(n: u32) -> Result<u32, Error> {
    Ok(n + 1)
}

#[test]
fn a_blocking_first_success_through_a_breaker_ends_the_call() {
    let outcome = blocking_success(1);
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::Succeeded);
    assert_eq!(outcome.into_result(), Ok(2));
    assert_eq!(BLOCKING.state(Instant::now()), CircuitState::Closed);
}
