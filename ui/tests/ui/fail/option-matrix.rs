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
pub fn c62(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge + max_hedges
#[resilient(retries = 2, hedge = "100ms", max_hedges = 2)]
pub fn c64(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub fn c74(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub fn c80(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s")]
pub fn c82(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms")]
pub fn c134(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge + max_hedges
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c136(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub fn c150(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + timeout
#[resilient(retries = 2, retry_if = is_transient, timeout = "1s")]
pub fn c152(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms")]
pub fn c204(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge + max_hedges
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c206(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub fn c218(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + timeout
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), timeout = "1s")]
pub fn c220(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms")]
pub fn c272(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge + max_hedges
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms", max_hedges = 2)]
pub fn c274(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub fn c284(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + timeout
#[resilient(retries = 2, jitter_seed = 7, timeout = "1s")]
pub fn c286(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms")]
pub fn c338(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + jitter_seed + hedge + max_hedges
#[resilient(retries = 2, jitter_seed = 7, hedge = "100ms", max_hedges = 2)]
pub fn c340(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + timeout
#[resilient(retry = POLICY, timeout = "1s")]
pub fn c350(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge
#[resilient(retry = POLICY, hedge = "100ms")]
pub fn c402(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge + max_hedges
#[resilient(retry = POLICY, hedge = "100ms", max_hedges = 2)]
pub fn c404(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + budget
#[resilient(timeout = "1s", budget = "10s")]
pub fn c414(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_elapsed
#[resilient(timeout = "1s", max_elapsed = "5s")]
pub fn c416(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + min_retries
#[resilient(retries = 2, timeout = "1s", min_retries = 1)]
pub fn c418(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after
#[resilient(timeout = "1s", retry_after = retry_after)]
pub fn c420(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit
#[resilient(timeout = "1s", rate_limit = retry_after)]
pub fn c422(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_retry_after_wait
#[resilient(timeout = "1s", retry_after = retry_after, max_retry_after_wait = "30s")]
pub fn c424(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_rate_limit_wait
#[resilient(timeout = "1s", retry_after = retry_after, max_rate_limit_wait = "30s")]
pub fn c426(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_retry_after_retries
#[resilient(timeout = "1s", retry_after = retry_after, max_retry_after_retries = 3)]
pub fn c428(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + retry_after + max_rate_limit_retries
#[resilient(timeout = "1s", retry_after = retry_after, max_rate_limit_retries = 3)]
pub fn c430(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + circuit_breaker
#[resilient(timeout = "1s", circuit_breaker = &BREAKER)]
pub fn c432(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + validate
#[resilient(timeout = "1s", validate = is_valid)]
pub fn c434(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback
#[resilient(timeout = "1s", fallback = recover)]
pub fn c436(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_on
#[resilient(timeout = "1s", fallback = recover, fallback_on = [Transient])]
pub fn c438(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback + fallback_if
#[resilient(timeout = "1s", fallback = recover, fallback_if = is_transient)]
pub fn c440(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + clock
#[resilient(timeout = "1s", clock = clock())]
pub fn c442(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub fn c444(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + on_retry
#[resilient(timeout = "1s", on_retry = log_retry)]
pub fn c446(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + name
#[resilient(timeout = "1s", name = "matrix.c448")]
pub fn c448(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + report
#[resilient(timeout = "1s", report = log_report)]
pub fn c450(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + throttle
#[resilient(timeout = "1s", throttle = &THROTTLE)]
pub fn c452(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE])]
pub fn c454(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit + limit_wait
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE], limit_wait = "50ms")]
pub fn c456(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_latency = "1ms")]
pub fn c458(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_fault + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms")]
pub fn c460(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + chaos + chaos_outcome + chaos_latency
#[resilient(timeout = "1s", chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c462(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge
#[resilient(timeout = "1s", hedge = "100ms")]
pub fn c464(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge + max_hedges
#[resilient(timeout = "1s", hedge = "100ms", max_hedges = 2)]
pub fn c466(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c468-{x}"))]
pub fn c468(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_ttl
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c470-{x}"), idempotency_ttl = "1h")]
pub fn c470(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c472-{x}"), idempotency_fingerprint = x)]
pub fn c472(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + crate
#[resilient(timeout = "1s", crate = "crate::runtime")]
pub fn c474(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub fn c504(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge
#[resilient(budget = "10s", hedge = "100ms")]
pub fn c524(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge + max_hedges
#[resilient(budget = "10s", hedge = "100ms", max_hedges = 2)]
pub fn c526(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub fn c562(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge
#[resilient(max_elapsed = "5s", hedge = "100ms")]
pub fn c582(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge + max_hedges
#[resilient(max_elapsed = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c584(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge
#[resilient(retries = 2, min_retries = 1, hedge = "100ms")]
pub fn c638(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge + max_hedges
#[resilient(retries = 2, min_retries = 1, hedge = "100ms", max_hedges = 2)]
pub fn c640(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + rate_limit
#[resilient(retry_after = retry_after, rate_limit = retry_after)]
pub fn c650(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + timing
#[resilient(retry_after = retry_after, timing = false)]
pub fn c672(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge
#[resilient(retry_after = retry_after, hedge = "100ms")]
pub fn c692(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + hedge + max_hedges
#[resilient(retry_after = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c694(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub fn c724(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge
#[resilient(rate_limit = retry_after, hedge = "100ms")]
pub fn c744(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge + max_hedges
#[resilient(rate_limit = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c746(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + max_rate_limit_wait
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", max_rate_limit_wait = "30s")]
pub fn c756(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + timing
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", timing = false)]
pub fn c774(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = "100ms")]
pub fn c794(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_wait + hedge + max_hedges
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c796(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + timing
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub fn c822(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = "100ms")]
pub fn c842(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_wait + hedge + max_hedges
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c844(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + max_rate_limit_retries
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, max_rate_limit_retries = 3)]
pub fn c854(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + timing
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, timing = false)]
pub fn c868(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = "100ms")]
pub fn c888(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_retry_after_retries + hedge + max_hedges
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c890(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + timing
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, timing = false)]
pub fn c912(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = "100ms")]
pub fn c932(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_after + max_rate_limit_retries + hedge + max_hedges
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c934(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms")]
pub fn c974(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge + max_hedges
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms", max_hedges = 2)]
pub fn c976(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge
#[resilient(validate = is_valid, hedge = "100ms")]
pub fn c1014(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge + max_hedges
#[resilient(validate = is_valid, hedge = "100ms", max_hedges = 2)]
pub fn c1016(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge
#[resilient(fallback = recover, hedge = "100ms")]
pub fn c1052(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge + max_hedges
#[resilient(fallback = recover, hedge = "100ms", max_hedges = 2)]
pub fn c1054(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub fn c1064(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms")]
pub fn c1088(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_on + hedge + max_hedges
#[resilient(fallback = recover, fallback_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c1090(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms")]
pub fn c1122(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + fallback_if + hedge + max_hedges
#[resilient(fallback = recover, fallback_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c1124(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge
#[resilient(clock = clock(), hedge = "100ms")]
pub fn c1154(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge + max_hedges
#[resilient(clock = clock(), hedge = "100ms", max_hedges = 2)]
pub fn c1156(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge
#[resilient(timing = false, hedge = "100ms")]
pub fn c1184(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge + max_hedges
#[resilient(timing = false, hedge = "100ms", max_hedges = 2)]
pub fn c1186(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge
#[resilient(on_retry = log_retry, hedge = "100ms")]
pub fn c1212(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge + max_hedges
#[resilient(on_retry = log_retry, hedge = "100ms", max_hedges = 2)]
pub fn c1214(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge
#[resilient(name = "matrix.c1238", hedge = "100ms")]
pub fn c1238(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge + max_hedges
#[resilient(name = "matrix.c1240", hedge = "100ms", max_hedges = 2)]
pub fn c1240(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge
#[resilient(report = log_report, hedge = "100ms")]
pub fn c1262(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge + max_hedges
#[resilient(report = log_report, hedge = "100ms", max_hedges = 2)]
pub fn c1264(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge
#[resilient(throttle = &THROTTLE, hedge = "100ms")]
pub fn c1284(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge + max_hedges
#[resilient(throttle = &THROTTLE, hedge = "100ms", max_hedges = 2)]
pub fn c1286(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms")]
pub fn c1304(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms", max_hedges = 2)]
pub fn c1306(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms")]
pub fn c1322(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms", max_hedges = 2)]
pub fn c1324(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1340(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1342(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub fn c1352(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1354(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_fault + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1356(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms")]
pub fn c1366(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: chaos + chaos_outcome + chaos_latency + hedge + max_hedges
#[resilient(chaos = &CHAOS, chaos_outcome = 7, chaos_latency = "1ms", hedge = "100ms", max_hedges = 2)]
pub fn c1368(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges
#[resilient(hedge = "100ms", max_hedges = 2)]
pub fn c1378(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1380-{x}"))]
pub fn c1380(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1382-{x}"), idempotency_ttl = "1h")]
pub fn c1382(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c1384-{x}"), idempotency_fingerprint = x)]
pub fn c1384(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + crate
#[resilient(hedge = "100ms", crate = "crate::runtime")]
pub fn c1386(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1388-{x}"))]
pub fn c1388(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1390-{x}"), idempotency_ttl = "1h")]
pub fn c1390(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c1392-{x}"), idempotency_fingerprint = x)]
pub fn c1392(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + crate
#[resilient(hedge = "100ms", max_hedges = 2, crate = "crate::runtime")]
pub fn c1394(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout + budget + fallback
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s", budget = "10s", fallback = recover)]
pub fn c1410(x: u32) -> Result<u32, MatrixError> {
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
pub async fn c75(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub async fn c81(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub async fn c151(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub async fn c219(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: jitter_seed + retry
#[resilient(jitter_seed = 7, retry = POLICY)]
pub async fn c285(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub async fn c445(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub async fn c505(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub async fn c563(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + rate_limit
#[resilient(retry_after = retry_after, rate_limit = retry_after)]
pub async fn c651(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + timing
#[resilient(retry_after = retry_after, timing = false)]
pub async fn c673(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub async fn c725(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_wait + max_rate_limit_wait
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", max_rate_limit_wait = "30s")]
pub async fn c757(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_wait + timing
#[resilient(retry_after = retry_after, max_retry_after_wait = "30s", timing = false)]
pub async fn c775(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_rate_limit_wait + timing
#[resilient(retry_after = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub async fn c823(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_retries + max_rate_limit_retries
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, max_rate_limit_retries = 3)]
pub async fn c855(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_retry_after_retries + timing
#[resilient(retry_after = retry_after, max_retry_after_retries = 3, timing = false)]
pub async fn c869(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_after + max_rate_limit_retries + timing
#[resilient(retry_after = retry_after, max_rate_limit_retries = 3, timing = false)]
pub async fn c913(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: fallback + fallback_on + fallback_if
#[resilient(fallback = recover, fallback_on = [Transient], fallback_if = is_transient)]
pub async fn c1065(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: chaos + chaos_fault + chaos_outcome + chaos_latency
#[resilient(chaos = &CHAOS, chaos_fault = MatrixError::Transient, chaos_outcome = 7, chaos_latency = "1ms")]
pub async fn c1353(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

fn main() {}
