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
pub fn c74(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge + max_hedges
#[resilient(retries = 2, hedge = "100ms", max_hedges = 2)]
pub fn c76(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub fn c86(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub fn c96(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s")]
pub fn c98(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms")]
pub fn c158(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge + max_hedges
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c160(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub fn c178(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + timeout
#[resilient(retries = 2, retry_if = is_transient, timeout = "1s")]
pub fn c180(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms")]
pub fn c240(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge + max_hedges
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c242(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + ignore_if
#[resilient(ignore_on = [Transient], ignore_if = is_transient)]
pub fn c252(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + timeout
#[resilient(ignore_on = [Transient], timeout = "1s")]
pub fn c260(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + hedge
#[resilient(ignore_on = [Transient], hedge = "100ms")]
pub fn c320(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_on + hedge + max_hedges
#[resilient(ignore_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c322(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + timeout
#[resilient(ignore_if = is_transient, timeout = "1s")]
pub fn c338(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + hedge
#[resilient(ignore_if = is_transient, hedge = "100ms")]
pub fn c398(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: ignore_if + hedge + max_hedges
#[resilient(ignore_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c400(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub fn c412(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + timeout
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), timeout = "1s")]
pub fn c414(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms")]
pub fn c474(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge + max_hedges
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms", max_hedges = 2)]
pub fn c476(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub fn c486(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + timeout
#[resilient(retries = 2, jitter_seed = 7, timeout = "1s")]
pub fn c488(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms")]
pub fn c548(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge + max_hedges
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms", max_hedges = 2)]
pub fn c550(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + timeout
#[resilient(retry = POLICY, timeout = "1s")]
pub fn c560(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + max_delay
#[resilient(retry = POLICY, max_delay = "5s")]
pub fn c566(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge
#[resilient(retry = POLICY, hedge = "100ms")]
pub fn c620(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge + max_hedges
#[resilient(retry = POLICY, hedge = "100ms", max_hedges = 2)]
pub fn c622(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + budget
#[resilient(timeout = "1s", budget = "10s")]
pub fn c632(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_elapsed
#[resilient(timeout = "1s", max_elapsed = "5s")]
pub fn c634(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + max_delay
#[resilient(retries = 2, timeout = "1s", max_delay = "5s")]
pub fn c636(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + min_retries
#[resilient(retries = 2, timeout = "1s", min_retries = 1)]
pub fn c638(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after
#[resilient(timeout = "1s", retry_after = retry_after)]
pub fn c640(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit
#[resilient(timeout = "1s", rate_limit = retry_after)]
pub fn c642(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_retry_after_wait
#[resilient(timeout = "1s", retry_after = retry_after, max_retry_after_wait = "30s")]
pub fn c644(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_rate_limit_wait
#[resilient(timeout = "1s", retry_after = retry_after, max_rate_limit_wait = "30s")]
pub fn c646(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_retry_after_retries
#[resilient(timeout = "1s", retry_after = retry_after, max_retry_after_retries = 3)]
pub fn c648(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_rate_limit_retries
#[resilient(timeout = "1s", retry_after = retry_after, max_rate_limit_retries = 3)]
pub fn c650(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_records
#[resilient(timeout = "1s", max_records = 8)]
pub fn c652(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + nested
#[resilient(timeout = "1s", nested = "no_retry")]
pub fn c654(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + circuit_breaker
#[resilient(timeout = "1s", circuit_breaker = &BREAKER)]
pub fn c656(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + validate
#[resilient(timeout = "1s", validate = is_valid)]
pub fn c658(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback
#[resilient(timeout = "1s", fallback = recover)]
pub fn c660(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_on
#[resilient(timeout = "1s", fallback = recover, fallback_on = [Transient])]
pub fn c662(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_if
#[resilient(timeout = "1s", fallback = recover, fallback_if = is_transient)]
pub fn c664(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + clock
#[resilient(timeout = "1s", clock = clock())]
pub fn c666(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub fn c668(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + on_retry
#[resilient(timeout = "1s", on_retry = log_retry)]
pub fn c670(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + name
#[resilient(timeout = "1s", name = "matrix.c672")]
pub fn c672(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + report
#[resilient(timeout = "1s", report = log_report)]
pub fn c674(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + throttle
#[resilient(timeout = "1s", throttle = &THROTTLE)]
pub fn c676(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + adaptive_throttle
#[resilient(timeout = "1s", adaptive_throttle = &BACKEND)]
pub fn c678(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE])]
pub fn c680(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit + limit_wait
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE], limit_wait = "50ms")]
pub fn c682(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_latency = "1ms")]
pub fn c684(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_fault + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms")]
pub fn c686(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_outcome + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c688(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge
#[resilient(timeout = "1s", hedge = "100ms")]
pub fn c690(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge + max_hedges
#[resilient(timeout = "1s", hedge = "100ms", max_hedges = 2)]
pub fn c692(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c694-{x}"))]
pub fn c694(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_ttl
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c696-{x}"), idempotency_ttl = "1h")]
pub fn c696(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c698-{x}"), idempotency_fingerprint = x)]
pub fn c698(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + crate
#[resilient(timeout = "1s", crate = "crate::runtime")]
pub fn c700(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub fn c736(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge
#[resilient(budget = "10s", hedge = "100ms")]
pub fn c758(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge + max_hedges
#[resilient(budget = "10s", hedge = "100ms", max_hedges = 2)]
pub fn c760(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub fn c802(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge
#[resilient(max_elapsed = "5s", hedge = "100ms")]
pub fn c824(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge + max_hedges
#[resilient(max_elapsed = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c826(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + max_delay + hedge
#[resilient(retries = 2, max_delay = "5s", hedge = "100ms")]
pub fn c888(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + max_delay + hedge + max_hedges
#[resilient(retries = 2, max_delay = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c890(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge
#[resilient(retries = 2, min_retries = 1, hedge = "100ms")]
pub fn c950(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge + max_hedges
#[resilient(retries = 2, min_retries = 1, hedge = "100ms", max_hedges = 2)]
pub fn c952(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + rate_limit
#[resilient(retry_after = retry_after, rate_limit = retry_after)]
pub fn c962(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + timing
#[resilient(retry_after = retry_after, timing = false)]
pub fn c988(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge
#[resilient(retry_after = retry_after, hedge = "100ms")]
pub fn c1010(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge + max_hedges
#[resilient(retry_after = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c1012(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub fn c1046(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge
#[resilient(rate_limit = retry_after, hedge = "100ms")]
pub fn c1068(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge + max_hedges
#[resilient(rate_limit = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c1070(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + max_rate_limit_wait
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", max_rate_limit_wait = "30s")]
pub fn c1080(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + timing
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", timing = false)]
pub fn c1102(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = "100ms")]
pub fn c1124(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge + max_hedges
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c1126(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + timing
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub fn c1156(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = "100ms")]
pub fn c1178(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge + max_hedges
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c1180(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + max_rate_limit_retries
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, max_rate_limit_retries = 3)]
pub fn c1190(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + timing
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, timing = false)]
pub fn c1208(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = "100ms")]
pub fn c1230(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge + max_hedges
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c1232(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + timing
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, timing = false)]
pub fn c1258(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = "100ms")]
pub fn c1280(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge + max_hedges
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c1282(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_records + hedge
#[resilient(max_records = 8, hedge = "100ms")]
pub fn c1328(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_records + hedge + max_hedges
#[resilient(max_records = 8, hedge = "100ms", max_hedges = 2)]
pub fn c1330(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: nested + hedge
#[resilient(nested = "no_retry", hedge = "100ms")]
pub fn c1374(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: nested + hedge + max_hedges
#[resilient(nested = "no_retry", hedge = "100ms", max_hedges = 2)]
pub fn c1376(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms")]
pub fn c1418(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge + max_hedges
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms", max_hedges = 2)]
pub fn c1420(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge
#[resilient(validate = is_valid, hedge = "100ms")]
pub fn c1460(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge + max_hedges
#[resilient(validate = is_valid, hedge = "100ms", max_hedges = 2)]
pub fn c1462(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge
#[resilient(fallback = recover, hedge = "100ms")]
pub fn c1500(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge + max_hedges
#[resilient(fallback = recover, hedge = "100ms", max_hedges = 2)]
pub fn c1502(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub fn c1512(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms")]
pub fn c1538(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge + max_hedges
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c1540(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms")]
pub fn c1574(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge + max_hedges
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c1576(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge
#[resilient(clock = clock(), hedge = "100ms")]
pub fn c1608(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge + max_hedges
#[resilient(clock = clock(), hedge = "100ms", max_hedges = 2)]
pub fn c1610(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge
#[resilient(timing = false, hedge = "100ms")]
pub fn c1640(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge + max_hedges
#[resilient(timing = false, hedge = "100ms", max_hedges = 2)]
pub fn c1642(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge
#[resilient(on_retry = log_retry, hedge = "100ms")]
pub fn c1670(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge + max_hedges
#[resilient(on_retry = log_retry, hedge = "100ms", max_hedges = 2)]
pub fn c1672(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge
#[resilient(name = "matrix.c1698", hedge = "100ms")]
pub fn c1698(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge + max_hedges
#[resilient(name = "matrix.c1700", hedge = "100ms", max_hedges = 2)]
pub fn c1700(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge
#[resilient(report = log_report, hedge = "100ms")]
pub fn c1724(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge + max_hedges
#[resilient(report = log_report, hedge = "100ms", max_hedges = 2)]
pub fn c1726(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge
#[resilient(throttle = &THROTTLE, hedge = "100ms")]
pub fn c1748(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge + max_hedges
#[resilient(throttle = &THROTTLE, hedge = "100ms", max_hedges = 2)]
pub fn c1750(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: adaptive_throttle + hedge
#[resilient(adaptive_throttle = &BACKEND, hedge = "100ms")]
pub fn c1770(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: adaptive_throttle + hedge + max_hedges
#[resilient(adaptive_throttle = &BACKEND, hedge = "100ms", max_hedges = 2)]
pub fn c1772(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms")]
pub fn c1790(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms", max_hedges = 2)]
pub fn c1792(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms")]
pub fn c1808(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms", max_hedges = 2)]
pub fn c1810(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1826(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1828(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c1838(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1840(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1842(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1852(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1854(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges
#[resilient(hedge = "100ms", max_hedges = 2)]
pub fn c1864(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1866-{x}"))]
pub fn c1866(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1868-{x}"), idempotency_ttl = "1h")]
pub fn c1868(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1870-{x}"), idempotency_fingerprint = x)]
pub fn c1870(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + crate
#[resilient(hedge = "100ms", crate = "crate::runtime")]
pub fn c1872(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1874-{x}"))]
pub fn c1874(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1876-{x}"), idempotency_ttl = "1h")]
pub fn c1876(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1878-{x}"), idempotency_fingerprint = x)]
pub fn c1878(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + crate
#[resilient(hedge = "100ms", max_hedges = 2, crate = "crate::runtime")]
pub fn c1880(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout + budget + fallback
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s", budget = "10s", fallback = recover)]
pub fn c1896(x: u32) -> Result<u32, MatrixError> {
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
pub async fn c87(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub async fn c97(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub async fn c179(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: ignore_on + ignore_if
#[resilient(ignore_on = [Transient], ignore_if = is_transient)]
pub async fn c253(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub async fn c413(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub async fn c487(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry + max_delay
#[resilient(retry = POLICY, max_delay = "5s")]
pub async fn c567(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub async fn c669(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub async fn c737(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub async fn c803(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + rate_limit
#[resilient(retry_after = retry_after, rate_limit = retry_after)]
pub async fn c963(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + timing
#[resilient(retry_after = retry_after, timing = false)]
pub async fn c989(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub async fn c1047(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_wait + max_rate_limit_wait
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", max_rate_limit_wait = "30s")]
pub async fn c1081(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_wait + timing
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", timing = false)]
pub async fn c1103(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_rate_limit_wait + timing
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub async fn c1157(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_retries + max_rate_limit_retries
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, max_rate_limit_retries = 3)]
pub async fn c1191(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_retries + timing
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, timing = false)]
pub async fn c1209(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_rate_limit_retries + timing
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, timing = false)]
pub async fn c1259(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub async fn c1513(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub async fn c1839(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

fn main() {}
