//! The functions measured, written as a user writes them: an error enum,
//! `retry_on` naming its retryable variants, async bodies that await a
//! call, and backon's equivalents beside them.

use std::hint::black_box;
use std::time::Duration;

use std::sync::LazyLock;

use backon::{BlockingRetryable, ExponentialBuilder, Retryable};
use resilient::breaker::RedisBreakerState;
use resilient::{CircuitBreaker, CircuitOpen, Outcome, TimedOut, resilient};

/// A provider's failures, as a user's crate declares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderError {
    /// The attempt ran out of time.
    Timeout,
    /// The provider is overloaded; worth another try.
    Transient,
    /// The request itself is wrong.
    Fatal,
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ProviderError::Timeout => "timed out",
            ProviderError::Transient => "overloaded",
            ProviderError::Fatal => "bad request",
        })
    }
}

impl std::error::Error for ProviderError {}

impl From<CircuitOpen> for ProviderError {
    fn from(_: CircuitOpen) -> Self {
        ProviderError::Transient
    }
}

impl From<TimedOut> for ProviderError {
    fn from(_: TimedOut) -> Self {
        ProviderError::Timeout
    }
}

/// backon's counterpart of `retry_on = [Timeout, Transient]`.
fn retryable(error: &ProviderError) -> bool {
    matches!(error, ProviderError::Timeout | ProviderError::Transient)
}

/// The dependency, blocking: a call the optimiser can't see through.
#[inline(never)]
pub fn fetch(x: u64) -> Result<u64, ProviderError> {
    if x == u64::MAX {
        Err(ProviderError::Transient)
    } else {
        Ok(black_box(x).wrapping_mul(31))
    }
}

/// The dependency, async: a future of its own, awaited by every body.
#[inline(never)]
pub async fn fetch_async(x: u64) -> Result<u64, ProviderError> {
    fetch(x)
}

/// `retries` with `retry_on`, blocking.
#[resilient(retries = 3, retry_on = [Timeout, Transient])]
pub fn blocking(x: u64) -> Result<u64, ProviderError> {
    fetch(x)
}

/// [`blocking`] with a budget of its own: the attribute's counterpart of
/// an installed entry that sets one (the `profile` binary's
/// `blocking_budget` and `configured_bounded` rows).
#[resilient(retries = 3, retry_on = [Timeout, Transient], budget = "2s")]
pub fn blocking_budget(x: u64) -> Result<u64, ProviderError> {
    fetch(x)
}

/// A breaker of the service's own.
static LOCAL: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("bench.local")
        .build()
        .unwrap()
});

/// The same breaker, shared with a fleet. Its Redis is never reached (no
/// server listens on port 1): the success path reads nothing of Redis
/// either way, and the publisher's attempts stay off the calls' thread.
static SHARED: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    let fleet = RedisBreakerState::new("redis://127.0.0.1:1/").unwrap();
    CircuitBreaker::builder()
        .name("bench.shared")
        .shared(fleet)
        .build()
        .unwrap()
});

/// `retries` with `retry_on`, blocking, behind a breaker.
#[resilient(retries = 3, retry_on = [Timeout, Transient], circuit_breaker = &LOCAL)]
pub fn blocking_breaker(x: u64) -> Result<u64, ProviderError> {
    fetch(x)
}

/// The same behind the shared breaker.
#[resilient(retries = 3, retry_on = [Timeout, Transient], circuit_breaker = &SHARED)]
pub fn blocking_shared_breaker(x: u64) -> Result<u64, ProviderError> {
    fetch(x)
}

/// The same, without the report's times.
#[resilient(retries = 3, retry_on = [Timeout, Transient], timing = false)]
pub fn blocking_untimed(x: u64) -> Result<u64, ProviderError> {
    fetch(x)
}

/// `retries` with `retry_on`, async.
#[resilient(retries = 3, retry_on = [Timeout, Transient])]
pub async fn asynchronous(x: u64) -> Result<u64, ProviderError> {
    fetch_async(x).await
}

/// The same, without the report's times.
#[resilient(retries = 3, retry_on = [Timeout, Transient], timing = false)]
pub async fn asynchronous_untimed(x: u64) -> Result<u64, ProviderError> {
    fetch_async(x).await
}

/// `retry_on` with a per-attempt timeout and a budget, async.
#[resilient(retries = 3, retry_on = [Timeout, Transient], timeout = "10s", budget = "30s")]
pub async fn asynchronous_limits(x: u64) -> Result<u64, ProviderError> {
    fetch_async(x).await
}

/// `retry_on` with a hedge, async: a second attempt beside one still
/// running after 200 ms. Measured for its future's size alone.
#[resilient(retries = 3, retry_on = [Timeout, Transient], hedge = "200ms")]
pub async fn asynchronous_hedged(x: u64) -> Result<u64, ProviderError> {
    fetch_async(x).await
}

/// backon's policy for the same retries: exponential from 100 ms to 10 s
/// with jitter, as the attribute's default backoff.
fn policy() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(10))
        .with_max_times(3)
        .with_jitter()
}

/// backon, blocking.
pub fn backon_blocking(x: u64) -> Result<u64, ProviderError> {
    (|| fetch(x)).retry(policy()).when(retryable).call()
}

/// backon, async.
pub async fn backon_async(x: u64) -> Result<u64, ProviderError> {
    (|| fetch_async(x))
        .retry(policy())
        .sleep(tokio::time::sleep)
        .when(retryable)
        .await
}

/// The reference for the timed rows: two readings of the clock around the
/// call, the least a report of the call's duration needs (the readings are
/// kept, not subtracted).
pub fn two_instants(x: u64) -> Result<u64, ProviderError> {
    let start = std::time::Instant::now();
    let result = fetch(x);
    black_box((start, std::time::Instant::now()));
    result
}

/// The reference for the async rows: the call under a bare tokio timeout.
pub async fn bare_timeout(x: u64) -> Result<u64, ProviderError> {
    match tokio::time::timeout(Duration::from_secs(10), fetch_async(x)).await {
        Ok(result) => result,
        Err(_) => Err(ProviderError::Timeout),
    }
}

/// The outcome's value, as a caller takes it.
pub fn value(outcome: Outcome<u64, ProviderError>) -> Result<u64, ProviderError> {
    outcome.into_result()
}

// ---- shapes beyond retry_on ---------------------------------------------

/// An error without data, as many a handler's is: a unit struct.
#[derive(Debug)]
pub struct Refused;

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("refused")
    }
}

impl From<TimedOut> for Refused {
    fn from(_: TimedOut) -> Self {
        Refused
    }
}

/// The dependency of the rows below: answers from memory, no await point.
#[inline(never)]
pub fn lookup(x: u64) -> Result<u64, Refused> {
    Ok(black_box(x).wrapping_mul(31))
}

/// The body of the rows below, awaited bare.
pub async fn ready_direct(x: u64) -> Result<u64, Refused> {
    lookup(x)
}

/// `retries` with an exponential backoff, no `retry_on`, async, a body
/// that returns at once and an error without data.
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
pub async fn ready_retried(x: u64) -> Result<u64, Refused> {
    lookup(x)
}

/// The same, without the report's times.
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timing = false)]
pub async fn ready_untimed(x: u64) -> Result<u64, Refused> {
    lookup(x)
}

/// The reference: the same body under a bare tokio timeout.
pub async fn ready_timeout(x: u64) -> Result<u64, Refused> {
    match tokio::time::timeout(Duration::from_secs(10), async { lookup(x) }).await {
        Ok(result) => result,
        Err(_) => Err(Refused),
    }
}

/// backon's async retry of the same body, every error retried.
pub async fn ready_backon(x: u64) -> Result<u64, Refused> {
    (|| async { lookup(x) })
        .retry(policy())
        .sleep(tokio::time::sleep)
        .await
}

/// A chaos switch that is off, as in production.
static CHAOS_OFF: resilient::chaos::Chaos = resilient::chaos::Chaos::new().injection_rate(1.0);

/// [`blocking`] with a chaos switch that is off: what it costs is one
/// relaxed load of the switch per attempt.
#[resilient(retries = 3, retry_on = [Timeout, Transient], chaos = &CHAOS_OFF, chaos_fault = ProviderError::Transient)]
pub fn blocking_chaos_off(x: u64) -> Result<u64, ProviderError> {
    fetch(x)
}

// ---- the builder and the closure API -------------------------------------

/// The policy of the closure rows: `retries = 3` with the attribute's
/// default backoff, built once, as a library keeps its policy.
static POLICY: LazyLock<resilient::RetryPolicy> = LazyLock::new(|| {
    resilient::RetryPolicy::builder()
        .max_attempts(4)
        .build()
        .expect("a valid policy")
});

/// `Operation`, built at each call as a user writes it: four attempts,
/// `retry_on`'s test, blocking.
pub fn operation(x: u64) -> Result<u64, ProviderError> {
    resilient::Operation::new()
        .max_attempts(4)
        .retry_if(retryable)
        .run(|_| fetch(x))
        .into_result()
}

/// The same, async, on tokio's clock.
pub async fn operation_async(x: u64) -> Result<u64, ProviderError> {
    resilient::Operation::new()
        .max_attempts(4)
        .retry_if(retryable)
        .clock(resilient::TokioClock)
        .run_async(async |_| fetch_async(x).await)
        .await
        .into_result()
}

/// The closure API, as a library retries a call of its own.
mod closure {
    use resilient::Retryable;

    use super::{POLICY, ProviderError, fetch, fetch_async, retryable};

    /// Blocking.
    pub fn blocking(x: u64) -> Result<u64, ProviderError> {
        (|| fetch(x))
            .retry(&POLICY)
            .when(retryable)
            .call()
            .into_result()
    }

    /// Async, awaited without a box (`.call()`).
    pub async fn asynchronous(x: u64) -> Result<u64, ProviderError> {
        (|| fetch_async(x))
            .retry(&POLICY)
            .when(retryable)
            .call()
            .await
            .into_result()
    }
}

pub use closure::{asynchronous as closure_async, blocking as closure_blocking};
