// Generated from ui/tests/option_matrix/table.rs: every combination of
// options the attribute rejects, each with its one error. Regenerate with
// `MATRIX=overwrite cargo test -p resilient-ui --test option_matrix`.
#![allow(dead_code, unused_imports)]

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

mod blocking_combos {
use super::*;
use super::blocking::*;

// blocking fn: retries + retry
#[resilient(retries = 2, retry = POLICY)]
pub fn c12(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout
#[resilient(retries = 2, timeout = "1s")]
pub fn c14(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge
#[resilient(retries = 2, hedge = "100ms")]
pub fn c76(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge: p95
#[resilient(retries = 2, hedge = p95)]
pub fn c78(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge + max_hedges
#[resilient(retries = 2, hedge = "100ms", max_hedges = 2)]
pub fn c80(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + coalesce
#[resilient(retries = 2, coalesce = format!("c88-{x}"))]
pub fn c88(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub fn c92(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub fn c102(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s")]
pub fn c104(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms")]
pub fn c166(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge: p95
#[resilient(retries = 2, retry_on = [Transient], hedge = p95)]
pub fn c168(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge + max_hedges
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c170(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + coalesce
#[resilient(retries = 2, retry_on = [Transient], coalesce = format!("c178-{x}"))]
pub fn c178(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub fn c190(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + timeout
#[resilient(retries = 2, retry_if = is_transient, timeout = "1s")]
pub fn c192(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms")]
pub fn c254(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge: p95
#[resilient(retries = 2, retry_if = is_transient, hedge = p95)]
pub fn c256(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge + max_hedges
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c258(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + coalesce
#[resilient(retries = 2, retry_if = is_transient, coalesce = format!("c266-{x}"))]
pub fn c266(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + ignore_if
#[resilient(ignore_on = [Transient], ignore_if = is_transient)]
pub fn c270(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + timeout
#[resilient(ignore_on = [Transient], timeout = "1s")]
pub fn c278(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + hedge
#[resilient(ignore_on = [Transient], hedge = "100ms")]
pub fn c340(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + hedge: p95
#[resilient(ignore_on = [Transient], hedge = p95)]
pub fn c342(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + hedge + max_hedges
#[resilient(ignore_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c344(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + coalesce
#[resilient(ignore_on = [Transient], coalesce = format!("c352-{x}"))]
pub fn c352(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + timeout
#[resilient(ignore_if = is_transient, timeout = "1s")]
pub fn c362(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + hedge
#[resilient(ignore_if = is_transient, hedge = "100ms")]
pub fn c424(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + hedge: p95
#[resilient(ignore_if = is_transient, hedge = p95)]
pub fn c426(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + hedge + max_hedges
#[resilient(ignore_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c428(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + coalesce
#[resilient(ignore_if = is_transient, coalesce = format!("c436-{x}"))]
pub fn c436(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub fn c442(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + timeout
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), timeout = "1s")]
pub fn c444(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms")]
pub fn c506(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge: p95
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = p95)]
pub fn c508(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge + max_hedges
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms", max_hedges = 2)]
pub fn c510(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + coalesce
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), coalesce = format!("c518-{x}"))]
pub fn c518(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub fn c522(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + timeout
#[resilient(retries = 2, jitter_seed = 7, timeout = "1s")]
pub fn c524(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms")]
pub fn c586(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge: p95
#[resilient(retries = 2, jitter_seed = 7, hedge = p95)]
pub fn c588(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge + max_hedges
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms", max_hedges = 2)]
pub fn c590(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + coalesce
#[resilient(retries = 2, jitter_seed = 7, coalesce = format!("c598-{x}"))]
pub fn c598(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + timeout
#[resilient(retry = POLICY, timeout = "1s")]
pub fn c602(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + max_delay
#[resilient(retry = POLICY, max_delay = "5s")]
pub fn c608(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge
#[resilient(retry = POLICY, hedge = "100ms")]
pub fn c664(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge: p95
#[resilient(retry = POLICY, hedge = p95)]
pub fn c666(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge + max_hedges
#[resilient(retry = POLICY, hedge = "100ms", max_hedges = 2)]
pub fn c668(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + coalesce
#[resilient(retry = POLICY, coalesce = format!("c676-{x}"))]
pub fn c676(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + budget
#[resilient(timeout = "1s", budget = "10s")]
pub fn c680(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_elapsed
#[resilient(timeout = "1s", max_elapsed = "5s")]
pub fn c682(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + max_delay
#[resilient(retries = 2, timeout = "1s", max_delay = "5s")]
pub fn c684(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + min_retries
#[resilient(retries = 2, timeout = "1s", min_retries = 1)]
pub fn c686(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after
#[resilient(timeout = "1s", retry_after = retry_after)]
pub fn c688(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit
#[resilient(timeout = "1s", rate_limit = retry_after)]
pub fn c690(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_retry_after_wait
#[resilient(timeout = "1s", retry_after = retry_after, max_retry_after_wait = "30s")]
pub fn c692(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_rate_limit_wait
#[resilient(timeout = "1s", retry_after = retry_after, max_rate_limit_wait = "30s")]
pub fn c694(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_retry_after_retries
#[resilient(timeout = "1s", retry_after = retry_after, max_retry_after_retries = 3)]
pub fn c696(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_rate_limit_retries
#[resilient(timeout = "1s", retry_after = retry_after, max_rate_limit_retries = 3)]
pub fn c698(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_records
#[resilient(timeout = "1s", max_records = 8)]
pub fn c700(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + nested
#[resilient(timeout = "1s", nested = "no_retry")]
pub fn c702(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + circuit_breaker
#[resilient(timeout = "1s", circuit_breaker = &BREAKER)]
pub fn c704(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + validate
#[resilient(timeout = "1s", validate = is_valid)]
pub fn c706(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback
#[resilient(timeout = "1s", fallback = recover)]
pub fn c708(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_on
#[resilient(timeout = "1s", fallback = recover, fallback_on = [Transient])]
pub fn c710(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_if
#[resilient(timeout = "1s", fallback = recover, fallback_if = is_transient)]
pub fn c712(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + clock
#[resilient(timeout = "1s", clock = clock())]
pub fn c714(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub fn c716(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + on_retry
#[resilient(timeout = "1s", on_retry = log_retry)]
pub fn c718(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + name
#[resilient(timeout = "1s", name = "matrix.c720")]
pub fn c720(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + report
#[resilient(timeout = "1s", report = log_report)]
pub fn c722(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + throttle
#[resilient(timeout = "1s", throttle = &THROTTLE)]
pub fn c724(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + adaptive_throttle
#[resilient(timeout = "1s", adaptive_throttle = &BACKEND)]
pub fn c726(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE])]
pub fn c728(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit + limit_wait
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE], limit_wait = "50ms")]
pub fn c730(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit + priority
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE], priority = "high")]
pub fn c732(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_latency = "1ms")]
pub fn c734(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_fault + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms")]
pub fn c736(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_outcome + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c738(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge
#[resilient(timeout = "1s", hedge = "100ms")]
pub fn c740(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge: p95
#[resilient(timeout = "1s", hedge = p95)]
pub fn c742(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge + max_hedges
#[resilient(timeout = "1s", hedge = "100ms", max_hedges = 2)]
pub fn c744(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c746-{x}"))]
pub fn c746(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_ttl
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c748-{x}"), idempotency_ttl = "1h")]
pub fn c748(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c750-{x}"), idempotency_fingerprint = x)]
pub fn c750(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + coalesce
#[resilient(timeout = "1s", coalesce = format!("c752-{x}"))]
pub fn c752(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + crate
#[resilient(timeout = "1s", crate = "crate::runtime")]
pub fn c754(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub fn c790(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge
#[resilient(budget = "10s", hedge = "100ms")]
pub fn c814(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge: p95
#[resilient(budget = "10s", hedge = p95)]
pub fn c816(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge + max_hedges
#[resilient(budget = "10s", hedge = "100ms", max_hedges = 2)]
pub fn c818(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + coalesce
#[resilient(budget = "10s", coalesce = format!("c826-{x}"))]
pub fn c826(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub fn c862(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge
#[resilient(max_elapsed = "5s", hedge = "100ms")]
pub fn c886(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge: p95
#[resilient(max_elapsed = "5s", hedge = p95)]
pub fn c888(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge + max_hedges
#[resilient(max_elapsed = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c890(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + coalesce
#[resilient(max_elapsed = "5s", coalesce = format!("c898-{x}"))]
pub fn c898(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + max_delay + hedge
#[resilient(retries = 2, max_delay = "5s", hedge = "100ms")]
pub fn c956(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + max_delay + hedge: p95
#[resilient(retries = 2, max_delay = "5s", hedge = p95)]
pub fn c958(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + max_delay + hedge + max_hedges
#[resilient(retries = 2, max_delay = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c960(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + max_delay + coalesce
#[resilient(retries = 2, max_delay = "5s", coalesce = format!("c968-{x}"))]
pub fn c968(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge
#[resilient(retries = 2, min_retries = 1, hedge = "100ms")]
pub fn c1024(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge: p95
#[resilient(retries = 2, min_retries = 1, hedge = p95)]
pub fn c1026(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge + max_hedges
#[resilient(retries = 2, min_retries = 1, hedge = "100ms", max_hedges = 2)]
pub fn c1028(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + coalesce
#[resilient(retries = 2, min_retries = 1, coalesce = format!("c1036-{x}"))]
pub fn c1036(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + rate_limit
#[resilient(retry_after = retry_after, rate_limit = retry_after)]
pub fn c1040(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + timing
#[resilient(retry_after = retry_after, timing = false)]
pub fn c1066(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge
#[resilient(retry_after = retry_after, hedge = "100ms")]
pub fn c1090(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge: p95
#[resilient(retry_after = retry_after, hedge = p95)]
pub fn c1092(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge + max_hedges
#[resilient(retry_after = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c1094(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + coalesce
#[resilient(retry_after = retry_after, coalesce = format!("c1102-{x}"))]
pub fn c1102(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub fn c1130(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge
#[resilient(rate_limit = retry_after, hedge = "100ms")]
pub fn c1154(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge: p95
#[resilient(rate_limit = retry_after, hedge = p95)]
pub fn c1156(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge + max_hedges
#[resilient(rate_limit = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c1158(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + coalesce
#[resilient(rate_limit = retry_after, coalesce = format!("c1166-{x}"))]
pub fn c1166(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + max_rate_limit_wait
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", max_rate_limit_wait = "30s")]
pub fn c1170(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + timing
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", timing = false)]
pub fn c1192(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = "100ms")]
pub fn c1216(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge: p95
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = p95)]
pub fn c1218(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge + max_hedges
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c1220(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + coalesce
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", coalesce = format!("c1228-{x}"))]
pub fn c1228(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + timing
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub fn c1252(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = "100ms")]
pub fn c1276(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge: p95
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = p95)]
pub fn c1278(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge + max_hedges
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c1280(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + coalesce
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", coalesce = format!("c1288-{x}"))]
pub fn c1288(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + max_rate_limit_retries
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, max_rate_limit_retries = 3)]
pub fn c1292(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + timing
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, timing = false)]
pub fn c1310(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = "100ms")]
pub fn c1334(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge: p95
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = p95)]
pub fn c1336(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge + max_hedges
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c1338(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + coalesce
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, coalesce = format!("c1346-{x}"))]
pub fn c1346(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + timing
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, timing = false)]
pub fn c1366(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = "100ms")]
pub fn c1390(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge: p95
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = p95)]
pub fn c1392(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge + max_hedges
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c1394(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + coalesce
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, coalesce = format!("c1402-{x}"))]
pub fn c1402(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_records + hedge
#[resilient(max_records = 8, hedge = "100ms")]
pub fn c1444(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_records + hedge: p95
#[resilient(max_records = 8, hedge = p95)]
pub fn c1446(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_records + hedge + max_hedges
#[resilient(max_records = 8, hedge = "100ms", max_hedges = 2)]
pub fn c1448(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_records + coalesce
#[resilient(max_records = 8, coalesce = format!("c1456-{x}"))]
pub fn c1456(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: nested + hedge
#[resilient(nested = "no_retry", hedge = "100ms")]
pub fn c1496(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: nested + hedge: p95
#[resilient(nested = "no_retry", hedge = p95)]
pub fn c1498(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: nested + hedge + max_hedges
#[resilient(nested = "no_retry", hedge = "100ms", max_hedges = 2)]
pub fn c1500(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: nested + coalesce
#[resilient(nested = "no_retry", coalesce = format!("c1508-{x}"))]
pub fn c1508(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms")]
pub fn c1546(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge: p95
#[resilient(circuit_breaker = &BREAKER, hedge = p95)]
pub fn c1548(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge + max_hedges
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms", max_hedges = 2)]
pub fn c1550(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + coalesce
#[resilient(circuit_breaker = &BREAKER, coalesce = format!("c1558-{x}"))]
pub fn c1558(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge
#[resilient(validate = is_valid, hedge = "100ms")]
pub fn c1594(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge: p95
#[resilient(validate = is_valid, hedge = p95)]
pub fn c1596(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge + max_hedges
#[resilient(validate = is_valid, hedge = "100ms", max_hedges = 2)]
pub fn c1598(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + coalesce
#[resilient(validate = is_valid, coalesce = format!("c1606-{x}"))]
pub fn c1606(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge
#[resilient(fallback = recover, hedge = "100ms")]
pub fn c1640(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge: p95
#[resilient(fallback = recover, hedge = p95)]
pub fn c1642(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge + max_hedges
#[resilient(fallback = recover, hedge = "100ms", max_hedges = 2)]
pub fn c1644(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + coalesce
#[resilient(fallback = recover, coalesce = format!("c1652-{x}"))]
pub fn c1652(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub fn c1656(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms")]
pub fn c1684(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge: p95
#[resilient(fallback = recover, fallback_on = [Transient], hedge = p95)]
pub fn c1686(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge + max_hedges
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c1688(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + coalesce
#[resilient(fallback = recover, fallback_on = [Transient], coalesce = format!("c1696-{x}"))]
pub fn c1696(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms")]
pub fn c1726(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge: p95
#[resilient(fallback = recover, fallback_if = is_transient, hedge = p95)]
pub fn c1728(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge + max_hedges
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c1730(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + coalesce
#[resilient(fallback = recover, fallback_if = is_transient, coalesce = format!("c1738-{x}"))]
pub fn c1738(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge
#[resilient(clock = clock(), hedge = "100ms")]
pub fn c1766(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge: p95
#[resilient(clock = clock(), hedge = p95)]
pub fn c1768(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge + max_hedges
#[resilient(clock = clock(), hedge = "100ms", max_hedges = 2)]
pub fn c1770(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + coalesce
#[resilient(clock = clock(), coalesce = format!("c1778-{x}"))]
pub fn c1778(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge
#[resilient(timing = false, hedge = "100ms")]
pub fn c1804(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge: p95
#[resilient(timing = false, hedge = p95)]
pub fn c1806(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge + max_hedges
#[resilient(timing = false, hedge = "100ms", max_hedges = 2)]
pub fn c1808(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + coalesce
#[resilient(timing = false, coalesce = format!("c1816-{x}"))]
pub fn c1816(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge
#[resilient(on_retry = log_retry, hedge = "100ms")]
pub fn c1840(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge: p95
#[resilient(on_retry = log_retry, hedge = p95)]
pub fn c1842(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge + max_hedges
#[resilient(on_retry = log_retry, hedge = "100ms", max_hedges = 2)]
pub fn c1844(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + coalesce
#[resilient(on_retry = log_retry, coalesce = format!("c1852-{x}"))]
pub fn c1852(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge
#[resilient(name = "matrix.c1874", hedge = "100ms")]
pub fn c1874(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge: p95
#[resilient(name = "matrix.c1876", hedge = p95)]
pub fn c1876(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge + max_hedges
#[resilient(name = "matrix.c1878", hedge = "100ms", max_hedges = 2)]
pub fn c1878(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + coalesce
#[resilient(name = "matrix.c1886", coalesce = format!("c1886-{x}"))]
pub fn c1886(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge
#[resilient(report = log_report, hedge = "100ms")]
pub fn c1906(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge: p95
#[resilient(report = log_report, hedge = p95)]
pub fn c1908(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge + max_hedges
#[resilient(report = log_report, hedge = "100ms", max_hedges = 2)]
pub fn c1910(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + coalesce
#[resilient(report = log_report, coalesce = format!("c1918-{x}"))]
pub fn c1918(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge
#[resilient(throttle = &THROTTLE, hedge = "100ms")]
pub fn c1936(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge: p95
#[resilient(throttle = &THROTTLE, hedge = p95)]
pub fn c1938(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge + max_hedges
#[resilient(throttle = &THROTTLE, hedge = "100ms", max_hedges = 2)]
pub fn c1940(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + coalesce
#[resilient(throttle = &THROTTLE, coalesce = format!("c1948-{x}"))]
pub fn c1948(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: adaptive_throttle + hedge
#[resilient(adaptive_throttle = &BACKEND, hedge = "100ms")]
pub fn c1964(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: adaptive_throttle + hedge: p95
#[resilient(adaptive_throttle = &BACKEND, hedge = p95)]
pub fn c1966(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: adaptive_throttle + hedge + max_hedges
#[resilient(adaptive_throttle = &BACKEND, hedge = "100ms", max_hedges = 2)]
pub fn c1968(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: adaptive_throttle + coalesce
#[resilient(adaptive_throttle = &BACKEND, coalesce = format!("c1976-{x}"))]
pub fn c1976(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms")]
pub fn c1990(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge: p95
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = p95)]
pub fn c1992(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms", max_hedges = 2)]
pub fn c1994(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + coalesce
#[resilient(limit = [&POOL, &ADAPTIVE], coalesce = format!("c2002-{x}"))]
pub fn c2002(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms")]
pub fn c2014(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge: p95
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = p95)]
pub fn c2016(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms", max_hedges = 2)]
pub fn c2018(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + coalesce
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", coalesce = format!("c2026-{x}"))]
pub fn c2026(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + priority + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], priority = "high", hedge = "100ms")]
pub fn c2036(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + priority + hedge: p95
#[resilient(limit = [&POOL, &ADAPTIVE], priority = "high", hedge = p95)]
pub fn c2038(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + priority + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], priority = "high", hedge = "100ms", max_hedges = 2)]
pub fn c2040(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + priority + coalesce
#[resilient(limit = [&POOL, &ADAPTIVE], priority = "high", coalesce = format!("c2048-{x}"))]
pub fn c2048(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms")]
pub fn c2058(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge: p95
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = p95)]
pub fn c2060(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c2062(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + coalesce
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", coalesce = format!("c2070-{x}"))]
pub fn c2070(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c2074(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms")]
pub fn c2076(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge: p95
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = p95)]
pub fn c2078(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c2080(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + coalesce
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", coalesce = format!("c2088-{x}"))]
pub fn c2088(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms")]
pub fn c2092(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge: p95
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = p95)]
pub fn c2094(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c2096(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + coalesce
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", coalesce = format!("c2104-{x}"))]
pub fn c2104(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + hedge: p95
#[resilient(hedge = "100ms", hedge = p95)]
pub fn c2108(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges
#[resilient(hedge = "100ms", max_hedges = 2)]
pub fn c2110(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c2112-{x}"))]
pub fn c2112(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c2114-{x}"), idempotency_ttl = "1h")]
pub fn c2114(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c2116-{x}"), idempotency_fingerprint = x)]
pub fn c2116(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + coalesce
#[resilient(hedge = "100ms", coalesce = format!("c2118-{x}"))]
pub fn c2118(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + crate
#[resilient(hedge = "100ms", crate = "crate::runtime")]
pub fn c2120(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge: p95 + max_hedges
#[resilient(hedge = p95, max_hedges = 2)]
pub fn c2122(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge: p95 + idempotency + idempotency_key
#[resilient(hedge = p95, idempotency = &STORE, idempotency_key = format!("c2124-{x}"))]
pub fn c2124(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge: p95 + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = p95, idempotency = &STORE, idempotency_key = format!("c2126-{x}"), idempotency_ttl = "1h")]
pub fn c2126(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge: p95 + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = p95, idempotency = &STORE, idempotency_key = format!("c2128-{x}"), idempotency_fingerprint = x)]
pub fn c2128(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge: p95 + coalesce
#[resilient(hedge = p95, coalesce = format!("c2130-{x}"))]
pub fn c2130(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge: p95 + crate
#[resilient(hedge = p95, crate = "crate::runtime")]
pub fn c2132(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c2134-{x}"))]
pub fn c2134(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c2136-{x}"), idempotency_ttl = "1h")]
pub fn c2136(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c2138-{x}"), idempotency_fingerprint = x)]
pub fn c2138(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + coalesce
#[resilient(hedge = "100ms", max_hedges = 2, coalesce = format!("c2140-{x}"))]
pub fn c2140(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + crate
#[resilient(hedge = "100ms", max_hedges = 2, crate = "crate::runtime")]
pub fn c2142(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: idempotency + idempotency_key + coalesce
#[resilient(idempotency = &STORE, idempotency_key = format!("c2150-{x}"), coalesce = format!("c2150-{x}"))]
pub fn c2150(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: idempotency + idempotency_key + idempotency_ttl + coalesce
#[resilient(idempotency = &STORE, idempotency_key = format!("c2156-{x}"), idempotency_ttl = "1h", coalesce = format!("c2156-{x}"))]
pub fn c2156(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: idempotency + idempotency_key + idempotency_fingerprint + coalesce
#[resilient(idempotency = &STORE, idempotency_key = format!("c2160-{x}"), idempotency_fingerprint = x, coalesce = format!("c2160-{x}"))]
pub fn c2160(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: coalesce + crate
#[resilient(coalesce = format!("c2164-{x}"), crate = "crate::runtime")]
pub fn c2164(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout + budget + fallback
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s", budget = "10s", fallback = recover)]
pub fn c2166(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

mod asynchronous_combos {
use super::*;
use super::asynchronous::*;

// asynchronous fn: retries + retry
#[resilient(retries = 2, retry = POLICY)]
pub async fn c13(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub async fn c93(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub async fn c103(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub async fn c191(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: ignore_on + ignore_if
#[resilient(ignore_on = [Transient], ignore_if = is_transient)]
pub async fn c271(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub async fn c443(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub async fn c523(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry + max_delay
#[resilient(retry = POLICY, max_delay = "5s")]
pub async fn c609(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub async fn c717(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub async fn c791(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub async fn c863(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + rate_limit
#[resilient(retry_after = retry_after, rate_limit = retry_after)]
pub async fn c1041(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + timing
#[resilient(retry_after = retry_after, timing = false)]
pub async fn c1067(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub async fn c1131(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_wait + max_rate_limit_wait
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", max_rate_limit_wait = "30s")]
pub async fn c1171(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_wait + timing
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", timing = false)]
pub async fn c1193(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_rate_limit_wait + timing
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub async fn c1253(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_retries + max_rate_limit_retries
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, max_rate_limit_retries = 3)]
pub async fn c1293(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_retries + timing
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, timing = false)]
pub async fn c1311(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_rate_limit_retries + timing
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, timing = false)]
pub async fn c1367(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub async fn c1657(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub async fn c2075(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: hedge + hedge: p95
#[resilient(hedge = "100ms", hedge = p95)]
pub async fn c2109(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

fn main() {}
