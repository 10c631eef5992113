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

#[derive(Debug, PartialEq, thiserror::Error)]
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
// blocking fn: retries + hedge + max_hedges
#[resilient(retries = 2, hedge = "100ms", max_hedges = 2)]
pub fn c78(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub fn c88(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub fn c98(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s")]
pub fn c100(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms")]
pub fn c162(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge + max_hedges
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c164(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub fn c182(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + timeout
#[resilient(retries = 2, retry_if = is_transient, timeout = "1s")]
pub fn c184(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms")]
pub fn c246(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge + max_hedges
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c248(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + ignore_if
#[resilient(ignore_on = [Transient], ignore_if = is_transient)]
pub fn c258(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + timeout
#[resilient(ignore_on = [Transient], timeout = "1s")]
pub fn c266(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + hedge
#[resilient(ignore_on = [Transient], hedge = "100ms")]
pub fn c328(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + hedge + max_hedges
#[resilient(ignore_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c330(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + timeout
#[resilient(ignore_if = is_transient, timeout = "1s")]
pub fn c346(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + hedge
#[resilient(ignore_if = is_transient, hedge = "100ms")]
pub fn c408(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + hedge + max_hedges
#[resilient(ignore_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c410(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub fn c422(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + timeout
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), timeout = "1s")]
pub fn c424(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms")]
pub fn c486(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge + max_hedges
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms", max_hedges = 2)]
pub fn c488(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub fn c498(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + timeout
#[resilient(retries = 2, jitter_seed = 7, timeout = "1s")]
pub fn c500(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms")]
pub fn c562(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge + max_hedges
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms", max_hedges = 2)]
pub fn c564(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + timeout
#[resilient(retry = POLICY, timeout = "1s")]
pub fn c574(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + max_delay
#[resilient(retry = POLICY, max_delay = "5s")]
pub fn c580(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge
#[resilient(retry = POLICY, hedge = "100ms")]
pub fn c636(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge + max_hedges
#[resilient(retry = POLICY, hedge = "100ms", max_hedges = 2)]
pub fn c638(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + budget
#[resilient(timeout = "1s", budget = "10s")]
pub fn c648(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_elapsed
#[resilient(timeout = "1s", max_elapsed = "5s")]
pub fn c650(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + max_delay
#[resilient(retries = 2, timeout = "1s", max_delay = "5s")]
pub fn c652(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + min_retries
#[resilient(retries = 2, timeout = "1s", min_retries = 1)]
pub fn c654(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after
#[resilient(timeout = "1s", retry_after = retry_after)]
pub fn c656(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit
#[resilient(timeout = "1s", rate_limit = retry_after)]
pub fn c658(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_retry_after_wait
#[resilient(timeout = "1s", retry_after = retry_after, max_retry_after_wait = "30s")]
pub fn c660(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_rate_limit_wait
#[resilient(timeout = "1s", retry_after = retry_after, max_rate_limit_wait = "30s")]
pub fn c662(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_retry_after_retries
#[resilient(timeout = "1s", retry_after = retry_after, max_retry_after_retries = 3)]
pub fn c664(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_rate_limit_retries
#[resilient(timeout = "1s", retry_after = retry_after, max_rate_limit_retries = 3)]
pub fn c666(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_records
#[resilient(timeout = "1s", max_records = 8)]
pub fn c668(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + nested
#[resilient(timeout = "1s", nested = "no_retry")]
pub fn c670(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + circuit_breaker
#[resilient(timeout = "1s", circuit_breaker = &BREAKER)]
pub fn c672(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + validate
#[resilient(timeout = "1s", validate = is_valid)]
pub fn c674(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback
#[resilient(timeout = "1s", fallback = recover)]
pub fn c676(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_on
#[resilient(timeout = "1s", fallback = recover, fallback_on = [Transient])]
pub fn c678(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_if
#[resilient(timeout = "1s", fallback = recover, fallback_if = is_transient)]
pub fn c680(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + clock
#[resilient(timeout = "1s", clock = clock())]
pub fn c682(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub fn c684(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + on_retry
#[resilient(timeout = "1s", on_retry = log_retry)]
pub fn c686(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + name
#[resilient(timeout = "1s", name = "matrix.c688")]
pub fn c688(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + report
#[resilient(timeout = "1s", report = log_report)]
pub fn c690(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + throttle
#[resilient(timeout = "1s", throttle = &THROTTLE)]
pub fn c692(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + adaptive_throttle
#[resilient(timeout = "1s", adaptive_throttle = &BACKEND)]
pub fn c694(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE])]
pub fn c696(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit + limit_wait
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE], limit_wait = "50ms")]
pub fn c698(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit + priority
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE], priority = "high")]
pub fn c700(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_latency = "1ms")]
pub fn c702(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_fault + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms")]
pub fn c704(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_outcome + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c706(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge
#[resilient(timeout = "1s", hedge = "100ms")]
pub fn c708(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge + max_hedges
#[resilient(timeout = "1s", hedge = "100ms", max_hedges = 2)]
pub fn c710(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c712-{x}"))]
pub fn c712(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_ttl
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c714-{x}"), idempotency_ttl = "1h")]
pub fn c714(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c716-{x}"), idempotency_fingerprint = x)]
pub fn c716(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + crate
#[resilient(timeout = "1s", crate = "crate::runtime")]
pub fn c718(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub fn c754(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge
#[resilient(budget = "10s", hedge = "100ms")]
pub fn c778(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge + max_hedges
#[resilient(budget = "10s", hedge = "100ms", max_hedges = 2)]
pub fn c780(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub fn c822(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge
#[resilient(max_elapsed = "5s", hedge = "100ms")]
pub fn c846(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge + max_hedges
#[resilient(max_elapsed = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c848(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + max_delay + hedge
#[resilient(retries = 2, max_delay = "5s", hedge = "100ms")]
pub fn c912(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + max_delay + hedge + max_hedges
#[resilient(retries = 2, max_delay = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c914(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge
#[resilient(retries = 2, min_retries = 1, hedge = "100ms")]
pub fn c976(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge + max_hedges
#[resilient(retries = 2, min_retries = 1, hedge = "100ms", max_hedges = 2)]
pub fn c978(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + rate_limit
#[resilient(retry_after = retry_after, rate_limit = retry_after)]
pub fn c988(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + timing
#[resilient(retry_after = retry_after, timing = false)]
pub fn c1014(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge
#[resilient(retry_after = retry_after, hedge = "100ms")]
pub fn c1038(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge + max_hedges
#[resilient(retry_after = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c1040(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub fn c1074(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge
#[resilient(rate_limit = retry_after, hedge = "100ms")]
pub fn c1098(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge + max_hedges
#[resilient(rate_limit = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c1100(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + max_rate_limit_wait
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", max_rate_limit_wait = "30s")]
pub fn c1110(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + timing
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", timing = false)]
pub fn c1132(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = "100ms")]
pub fn c1156(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge + max_hedges
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c1158(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + timing
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub fn c1188(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = "100ms")]
pub fn c1212(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge + max_hedges
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c1214(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + max_rate_limit_retries
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, max_rate_limit_retries = 3)]
pub fn c1224(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + timing
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, timing = false)]
pub fn c1242(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = "100ms")]
pub fn c1266(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge + max_hedges
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c1268(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + timing
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, timing = false)]
pub fn c1294(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = "100ms")]
pub fn c1318(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge + max_hedges
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c1320(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_records + hedge
#[resilient(max_records = 8, hedge = "100ms")]
pub fn c1368(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_records + hedge + max_hedges
#[resilient(max_records = 8, hedge = "100ms", max_hedges = 2)]
pub fn c1370(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: nested + hedge
#[resilient(nested = "no_retry", hedge = "100ms")]
pub fn c1416(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: nested + hedge + max_hedges
#[resilient(nested = "no_retry", hedge = "100ms", max_hedges = 2)]
pub fn c1418(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms")]
pub fn c1462(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge + max_hedges
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms", max_hedges = 2)]
pub fn c1464(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge
#[resilient(validate = is_valid, hedge = "100ms")]
pub fn c1506(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge + max_hedges
#[resilient(validate = is_valid, hedge = "100ms", max_hedges = 2)]
pub fn c1508(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge
#[resilient(fallback = recover, hedge = "100ms")]
pub fn c1548(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge + max_hedges
#[resilient(fallback = recover, hedge = "100ms", max_hedges = 2)]
pub fn c1550(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub fn c1560(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms")]
pub fn c1588(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge + max_hedges
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c1590(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms")]
pub fn c1626(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge + max_hedges
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c1628(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge
#[resilient(clock = clock(), hedge = "100ms")]
pub fn c1662(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge + max_hedges
#[resilient(clock = clock(), hedge = "100ms", max_hedges = 2)]
pub fn c1664(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge
#[resilient(timing = false, hedge = "100ms")]
pub fn c1696(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge + max_hedges
#[resilient(timing = false, hedge = "100ms", max_hedges = 2)]
pub fn c1698(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge
#[resilient(on_retry = log_retry, hedge = "100ms")]
pub fn c1728(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge + max_hedges
#[resilient(on_retry = log_retry, hedge = "100ms", max_hedges = 2)]
pub fn c1730(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge
#[resilient(name = "matrix.c1758", hedge = "100ms")]
pub fn c1758(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge + max_hedges
#[resilient(name = "matrix.c1760", hedge = "100ms", max_hedges = 2)]
pub fn c1760(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge
#[resilient(report = log_report, hedge = "100ms")]
pub fn c1786(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge + max_hedges
#[resilient(report = log_report, hedge = "100ms", max_hedges = 2)]
pub fn c1788(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge
#[resilient(throttle = &THROTTLE, hedge = "100ms")]
pub fn c1812(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge + max_hedges
#[resilient(throttle = &THROTTLE, hedge = "100ms", max_hedges = 2)]
pub fn c1814(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: adaptive_throttle + hedge
#[resilient(adaptive_throttle = &BACKEND, hedge = "100ms")]
pub fn c1836(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: adaptive_throttle + hedge + max_hedges
#[resilient(adaptive_throttle = &BACKEND, hedge = "100ms", max_hedges = 2)]
pub fn c1838(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms")]
pub fn c1858(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms", max_hedges = 2)]
pub fn c1860(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms")]
pub fn c1878(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms", max_hedges = 2)]
pub fn c1880(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + priority + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], priority = "high", hedge = "100ms")]
pub fn c1896(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + priority + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], priority = "high", hedge = "100ms", max_hedges = 2)]
pub fn c1898(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1914(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1916(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c1926(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1928(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1930(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1940(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1942(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges
#[resilient(hedge = "100ms", max_hedges = 2)]
pub fn c1952(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1954-{x}"))]
pub fn c1954(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1956-{x}"), idempotency_ttl = "1h")]
pub fn c1956(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1958-{x}"), idempotency_fingerprint = x)]
pub fn c1958(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + crate
#[resilient(hedge = "100ms", crate = "crate::runtime")]
pub fn c1960(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1962-{x}"))]
pub fn c1962(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1964-{x}"), idempotency_ttl = "1h")]
pub fn c1964(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1966-{x}"), idempotency_fingerprint = x)]
pub fn c1966(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + crate
#[resilient(hedge = "100ms", max_hedges = 2, crate = "crate::runtime")]
pub fn c1968(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout + budget + fallback
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s", budget = "10s", fallback = recover)]
pub fn c1984(x: u32) -> Result<u32, MatrixError> {
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
pub async fn c89(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub async fn c99(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub async fn c183(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: ignore_on + ignore_if
#[resilient(ignore_on = [Transient], ignore_if = is_transient)]
pub async fn c259(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub async fn c423(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub async fn c499(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry + max_delay
#[resilient(retry = POLICY, max_delay = "5s")]
pub async fn c581(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub async fn c685(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub async fn c755(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub async fn c823(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + rate_limit
#[resilient(retry_after = retry_after, rate_limit = retry_after)]
pub async fn c989(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + timing
#[resilient(retry_after = retry_after, timing = false)]
pub async fn c1015(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub async fn c1075(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_wait + max_rate_limit_wait
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", max_rate_limit_wait = "30s")]
pub async fn c1111(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_wait + timing
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", timing = false)]
pub async fn c1133(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_rate_limit_wait + timing
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub async fn c1189(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_retries + max_rate_limit_retries
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, max_rate_limit_retries = 3)]
pub async fn c1225(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_retries + timing
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, timing = false)]
pub async fn c1243(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_rate_limit_retries + timing
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, timing = false)]
pub async fn c1295(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub async fn c1561(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub async fn c1927(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

fn main() {}
