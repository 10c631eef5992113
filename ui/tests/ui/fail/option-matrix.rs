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
pub fn c8(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout
#[resilient(retries = 2, timeout = "1s")]
pub fn c10(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge
#[resilient(retries = 2, hedge = "100ms")]
pub fn c56(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge + max_hedges
#[resilient(retries = 2, hedge = "100ms", max_hedges = 2)]
pub fn c58(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub fn c68(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub fn c74(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s")]
pub fn c76(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms")]
pub fn c122(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge + max_hedges
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c124(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub fn c138(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + timeout
#[resilient(retries = 2, retry_if = is_transient, timeout = "1s")]
pub fn c140(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms")]
pub fn c186(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge + max_hedges
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c188(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub fn c200(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + timeout
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), timeout = "1s")]
pub fn c202(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms")]
pub fn c248(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge + max_hedges
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms", max_hedges = 2)]
pub fn c250(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub fn c260(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + timeout
#[resilient(retries = 2, jitter_seed = 7, timeout = "1s")]
pub fn c262(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms")]
pub fn c308(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge + max_hedges
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms", max_hedges = 2)]
pub fn c310(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + timeout
#[resilient(retry = POLICY, timeout = "1s")]
pub fn c320(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge
#[resilient(retry = POLICY, hedge = "100ms")]
pub fn c366(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge + max_hedges
#[resilient(retry = POLICY, hedge = "100ms", max_hedges = 2)]
pub fn c368(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + budget
#[resilient(timeout = "1s", budget = "10s")]
pub fn c378(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_elapsed
#[resilient(timeout = "1s", max_elapsed = "5s")]
pub fn c380(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + min_retries
#[resilient(retries = 2, timeout = "1s", min_retries = 1)]
pub fn c382(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit
#[resilient(timeout = "1s", rate_limit = retry_after)]
pub fn c384(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit + max_rate_limit_wait
#[resilient(timeout = "1s", rate_limit = retry_after, max_rate_limit_wait = "30s")]
pub fn c386(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit + max_rate_limit_retries
#[resilient(timeout = "1s", rate_limit = retry_after, max_rate_limit_retries = 3)]
pub fn c388(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + circuit_breaker
#[resilient(timeout = "1s", circuit_breaker = &BREAKER)]
pub fn c390(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + validate
#[resilient(timeout = "1s", validate = is_valid)]
pub fn c392(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback
#[resilient(timeout = "1s", fallback = recover)]
pub fn c394(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_on
#[resilient(timeout = "1s", fallback = recover, fallback_on = [Transient])]
pub fn c396(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_if
#[resilient(timeout = "1s", fallback = recover, fallback_if = is_transient)]
pub fn c398(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + clock
#[resilient(timeout = "1s", clock = clock())]
pub fn c400(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub fn c402(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + on_retry
#[resilient(timeout = "1s", on_retry = log_retry)]
pub fn c404(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + name
#[resilient(timeout = "1s", name = "matrix.c406")]
pub fn c406(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + report
#[resilient(timeout = "1s", report = log_report)]
pub fn c408(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + throttle
#[resilient(timeout = "1s", throttle = &THROTTLE)]
pub fn c410(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE])]
pub fn c412(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit + limit_wait
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE], limit_wait = "50ms")]
pub fn c414(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_latency = "1ms")]
pub fn c416(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_fault + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms")]
pub fn c418(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_outcome + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c420(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge
#[resilient(timeout = "1s", hedge = "100ms")]
pub fn c422(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge + max_hedges
#[resilient(timeout = "1s", hedge = "100ms", max_hedges = 2)]
pub fn c424(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c426-{x}"))]
pub fn c426(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_ttl
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c428-{x}"), idempotency_ttl = "1h")]
pub fn c428(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c430-{x}"), idempotency_fingerprint = x)]
pub fn c430(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + crate
#[resilient(timeout = "1s", crate = "crate::runtime")]
pub fn c432(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub fn c456(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge
#[resilient(budget = "10s", hedge = "100ms")]
pub fn c476(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge + max_hedges
#[resilient(budget = "10s", hedge = "100ms", max_hedges = 2)]
pub fn c478(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub fn c508(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge
#[resilient(max_elapsed = "5s", hedge = "100ms")]
pub fn c528(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge + max_hedges
#[resilient(max_elapsed = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c530(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge
#[resilient(retries = 2, min_retries = 1, hedge = "100ms")]
pub fn c578(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge + max_hedges
#[resilient(retries = 2, min_retries = 1, hedge = "100ms", max_hedges = 2)]
pub fn c580(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub fn c606(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge
#[resilient(rate_limit = retry_after, hedge = "100ms")]
pub fn c626(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge + max_hedges
#[resilient(rate_limit = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c628(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_wait + timing
#[resilient(rate_limit = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub fn c652(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_wait + hedge
#[resilient(rate_limit = retry_after, max_rate_limit_wait = "30s", hedge = "100ms")]
pub fn c672(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_wait + hedge + max_hedges
#[resilient(rate_limit = retry_after, max_rate_limit_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c674(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_retries + timing
#[resilient(rate_limit = retry_after, max_rate_limit_retries = 3, timing = false)]
pub fn c696(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_retries + hedge
#[resilient(rate_limit = retry_after, max_rate_limit_retries = 3, hedge = "100ms")]
pub fn c716(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_retries + hedge + max_hedges
#[resilient(rate_limit = retry_after, max_rate_limit_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c718(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms")]
pub fn c758(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge + max_hedges
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms", max_hedges = 2)]
pub fn c760(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge
#[resilient(validate = is_valid, hedge = "100ms")]
pub fn c798(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge + max_hedges
#[resilient(validate = is_valid, hedge = "100ms", max_hedges = 2)]
pub fn c800(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge
#[resilient(fallback = recover, hedge = "100ms")]
pub fn c836(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge + max_hedges
#[resilient(fallback = recover, hedge = "100ms", max_hedges = 2)]
pub fn c838(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub fn c848(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms")]
pub fn c872(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge + max_hedges
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c874(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms")]
pub fn c906(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge + max_hedges
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c908(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge
#[resilient(clock = clock(), hedge = "100ms")]
pub fn c938(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge + max_hedges
#[resilient(clock = clock(), hedge = "100ms", max_hedges = 2)]
pub fn c940(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge
#[resilient(timing = false, hedge = "100ms")]
pub fn c968(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge + max_hedges
#[resilient(timing = false, hedge = "100ms", max_hedges = 2)]
pub fn c970(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge
#[resilient(on_retry = log_retry, hedge = "100ms")]
pub fn c996(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge + max_hedges
#[resilient(on_retry = log_retry, hedge = "100ms", max_hedges = 2)]
pub fn c998(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge
#[resilient(name = "matrix.c1022", hedge = "100ms")]
pub fn c1022(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge + max_hedges
#[resilient(name = "matrix.c1024", hedge = "100ms", max_hedges = 2)]
pub fn c1024(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge
#[resilient(report = log_report, hedge = "100ms")]
pub fn c1046(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge + max_hedges
#[resilient(report = log_report, hedge = "100ms", max_hedges = 2)]
pub fn c1048(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge
#[resilient(throttle = &THROTTLE, hedge = "100ms")]
pub fn c1068(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge + max_hedges
#[resilient(throttle = &THROTTLE, hedge = "100ms", max_hedges = 2)]
pub fn c1070(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms")]
pub fn c1088(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms", max_hedges = 2)]
pub fn c1090(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms")]
pub fn c1106(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms", max_hedges = 2)]
pub fn c1108(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1124(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1126(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c1136(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1138(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1140(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1150(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1152(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges
#[resilient(hedge = "100ms", max_hedges = 2)]
pub fn c1162(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1164-{x}"))]
pub fn c1164(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1166-{x}"), idempotency_ttl = "1h")]
pub fn c1166(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1168-{x}"), idempotency_fingerprint = x)]
pub fn c1168(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + crate
#[resilient(hedge = "100ms", crate = "crate::runtime")]
pub fn c1170(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1172-{x}"))]
pub fn c1172(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1174-{x}"), idempotency_ttl = "1h")]
pub fn c1174(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1176-{x}"), idempotency_fingerprint = x)]
pub fn c1176(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + crate
#[resilient(hedge = "100ms", max_hedges = 2, crate = "crate::runtime")]
pub fn c1178(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout + budget + fallback
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s", budget = "10s", fallback = recover)]
pub fn c1194(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

mod asynchronous_combos {
use super::*;
use super::asynchronous::*;

// asynchronous fn: retries + retry
#[resilient(retries = 2, retry = POLICY)]
pub async fn c9(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub async fn c69(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub async fn c75(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub async fn c139(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub async fn c201(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub async fn c261(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub async fn c403(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub async fn c457(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub async fn c509(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub async fn c607(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + max_rate_limit_wait + timing
#[resilient(rate_limit = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub async fn c653(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + max_rate_limit_retries + timing
#[resilient(rate_limit = retry_after, max_rate_limit_retries = 3, timing = false)]
pub async fn c697(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub async fn c849(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub async fn c1137(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

fn main() {}
