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
pub fn c6(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout
#[resilient(retries = 2, timeout = "1s")]
pub fn c8(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge
#[resilient(retries = 2, hedge = "100ms")]
pub fn c44(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + hedge + max_hedges
#[resilient(retries = 2, hedge = "100ms", max_hedges = 2)]
pub fn c46(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub fn c56(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub fn c60(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s")]
pub fn c62(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms")]
pub fn c98(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + hedge + max_hedges
#[resilient(retries = 2, retry_on = [Transient], hedge = "100ms", max_hedges = 2)]
pub fn c100(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub fn c112(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + timeout
#[resilient(retries = 2, retry_if = is_transient, timeout = "1s")]
pub fn c114(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms")]
pub fn c150(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_if + hedge + max_hedges
#[resilient(retries = 2, retry_if = is_transient, hedge = "100ms", max_hedges = 2)]
pub fn c152(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub fn c162(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + timeout
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), timeout = "1s")]
pub fn c164(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms")]
pub fn c200(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + backoff + hedge + max_hedges
#[resilient(retries = 2, backoff = exponential(base = "10ms", jitter = none), hedge = "100ms", max_hedges = 2)]
pub fn c202(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + timeout
#[resilient(retry = POLICY, timeout = "1s")]
pub fn c212(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge
#[resilient(retry = POLICY, hedge = "100ms")]
pub fn c248(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retry + hedge + max_hedges
#[resilient(retry = POLICY, hedge = "100ms", max_hedges = 2)]
pub fn c250(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + budget
#[resilient(timeout = "1s", budget = "10s")]
pub fn c260(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + max_elapsed
#[resilient(timeout = "1s", max_elapsed = "5s")]
pub fn c262(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + timeout + min_retries
#[resilient(retries = 2, timeout = "1s", min_retries = 1)]
pub fn c264(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit
#[resilient(timeout = "1s", rate_limit = retry_after)]
pub fn c266(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit + max_rate_limit_wait
#[resilient(timeout = "1s", rate_limit = retry_after, max_rate_limit_wait = "30s")]
pub fn c268(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + rate_limit + max_rate_limit_retries
#[resilient(timeout = "1s", rate_limit = retry_after, max_rate_limit_retries = 3)]
pub fn c270(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + circuit_breaker
#[resilient(timeout = "1s", circuit_breaker = &BREAKER)]
pub fn c272(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + validate
#[resilient(timeout = "1s", validate = is_valid)]
pub fn c274(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + fallback
#[resilient(timeout = "1s", fallback = recover)]
pub fn c276(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + clock
#[resilient(timeout = "1s", clock = clock())]
pub fn c278(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub fn c280(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + on_retry
#[resilient(timeout = "1s", on_retry = log_retry)]
pub fn c282(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + name
#[resilient(timeout = "1s", name = "matrix.c284")]
pub fn c284(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + report
#[resilient(timeout = "1s", report = log_report)]
pub fn c286(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + throttle
#[resilient(timeout = "1s", throttle = &THROTTLE)]
pub fn c288(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE])]
pub fn c290(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + limit + limit_wait
#[resilient(timeout = "1s", limit = [&POOL, &ADAPTIVE], limit_wait = "50ms")]
pub fn c292(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge
#[resilient(timeout = "1s", hedge = "100ms")]
pub fn c294(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + hedge + max_hedges
#[resilient(timeout = "1s", hedge = "100ms", max_hedges = 2)]
pub fn c296(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c298-{x}"))]
pub fn c298(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_ttl
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c300-{x}"), idempotency_ttl = "1h")]
pub fn c300(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(timeout = "1s", idempotency = &STORE, idempotency_key = format!("c302-{x}"), idempotency_fingerprint = x)]
pub fn c302(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timeout + crate
#[resilient(timeout = "1s", crate = "crate::runtime")]
pub fn c304(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub fn c324(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge
#[resilient(budget = "10s", hedge = "100ms")]
pub fn c338(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: budget + hedge + max_hedges
#[resilient(budget = "10s", hedge = "100ms", max_hedges = 2)]
pub fn c340(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub fn c366(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge
#[resilient(max_elapsed = "5s", hedge = "100ms")]
pub fn c380(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: max_elapsed + hedge + max_hedges
#[resilient(max_elapsed = "5s", hedge = "100ms", max_hedges = 2)]
pub fn c382(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge
#[resilient(retries = 2, min_retries = 1, hedge = "100ms")]
pub fn c420(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + min_retries + hedge + max_hedges
#[resilient(retries = 2, min_retries = 1, hedge = "100ms", max_hedges = 2)]
pub fn c422(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub fn c444(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge
#[resilient(rate_limit = retry_after, hedge = "100ms")]
pub fn c458(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + hedge + max_hedges
#[resilient(rate_limit = retry_after, hedge = "100ms", max_hedges = 2)]
pub fn c460(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_wait + timing
#[resilient(rate_limit = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub fn c480(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_wait + hedge
#[resilient(rate_limit = retry_after, max_rate_limit_wait = "30s", hedge = "100ms")]
pub fn c494(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_wait + hedge + max_hedges
#[resilient(rate_limit = retry_after, max_rate_limit_wait = "30s", hedge = "100ms", max_hedges = 2)]
pub fn c496(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_retries + timing
#[resilient(rate_limit = retry_after, max_rate_limit_retries = 3, timing = false)]
pub fn c514(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_retries + hedge
#[resilient(rate_limit = retry_after, max_rate_limit_retries = 3, hedge = "100ms")]
pub fn c528(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: rate_limit + max_rate_limit_retries + hedge + max_hedges
#[resilient(rate_limit = retry_after, max_rate_limit_retries = 3, hedge = "100ms", max_hedges = 2)]
pub fn c530(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms")]
pub fn c560(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: circuit_breaker + hedge + max_hedges
#[resilient(circuit_breaker = &BREAKER, hedge = "100ms", max_hedges = 2)]
pub fn c562(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge
#[resilient(validate = is_valid, hedge = "100ms")]
pub fn c590(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: validate + hedge + max_hedges
#[resilient(validate = is_valid, hedge = "100ms", max_hedges = 2)]
pub fn c592(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge
#[resilient(fallback = recover, hedge = "100ms")]
pub fn c618(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: fallback + hedge + max_hedges
#[resilient(fallback = recover, hedge = "100ms", max_hedges = 2)]
pub fn c620(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge
#[resilient(clock = clock(), hedge = "100ms")]
pub fn c644(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: clock + hedge + max_hedges
#[resilient(clock = clock(), hedge = "100ms", max_hedges = 2)]
pub fn c646(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge
#[resilient(timing = false, hedge = "100ms")]
pub fn c668(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: timing + hedge + max_hedges
#[resilient(timing = false, hedge = "100ms", max_hedges = 2)]
pub fn c670(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge
#[resilient(on_retry = log_retry, hedge = "100ms")]
pub fn c690(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: on_retry + hedge + max_hedges
#[resilient(on_retry = log_retry, hedge = "100ms", max_hedges = 2)]
pub fn c692(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge
#[resilient(name = "matrix.c710", hedge = "100ms")]
pub fn c710(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: name + hedge + max_hedges
#[resilient(name = "matrix.c712", hedge = "100ms", max_hedges = 2)]
pub fn c712(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge
#[resilient(report = log_report, hedge = "100ms")]
pub fn c728(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: report + hedge + max_hedges
#[resilient(report = log_report, hedge = "100ms", max_hedges = 2)]
pub fn c730(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge
#[resilient(throttle = &THROTTLE, hedge = "100ms")]
pub fn c744(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: throttle + hedge + max_hedges
#[resilient(throttle = &THROTTLE, hedge = "100ms", max_hedges = 2)]
pub fn c746(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms")]
pub fn c758(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], hedge = "100ms", max_hedges = 2)]
pub fn c760(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms")]
pub fn c770(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: limit + limit_wait + hedge + max_hedges
#[resilient(limit = [&POOL, &ADAPTIVE], limit_wait = "50ms", hedge = "100ms", max_hedges = 2)]
pub fn c772(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges
#[resilient(hedge = "100ms", max_hedges = 2)]
pub fn c782(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c784-{x}"))]
pub fn c784(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c786-{x}"), idempotency_ttl = "1h")]
pub fn c786(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", idempotency = &STORE, idempotency_key = format!("c788-{x}"), idempotency_fingerprint = x)]
pub fn c788(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + crate
#[resilient(hedge = "100ms", crate = "crate::runtime")]
pub fn c790(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c792-{x}"))]
pub fn c792(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_ttl
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c794-{x}"), idempotency_ttl = "1h")]
pub fn c794(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + idempotency + idempotency_key + idempotency_fingerprint
#[resilient(hedge = "100ms", max_hedges = 2, idempotency = &STORE, idempotency_key = format!("c796-{x}"), idempotency_fingerprint = x)]
pub fn c796(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: hedge + max_hedges + crate
#[resilient(hedge = "100ms", max_hedges = 2, crate = "crate::runtime")]
pub fn c798(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// blocking fn: retries + retry_on + timeout + budget + fallback
#[resilient(retries = 2, retry_on = [Transient], timeout = "1s", budget = "10s", fallback = recover)]
pub fn c814(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

mod asynchronous_combos {
use super::*;
use super::asynchronous::*;

// asynchronous fn: retries + retry
#[resilient(retries = 2, retry = POLICY)]
pub async fn c7(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retries + retry_on + retry_if
#[resilient(retries = 2, retry_on = [Transient], retry_if = is_transient)]
pub async fn c57(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_on + retry
#[resilient(retry_on = [Transient], retry = POLICY)]
pub async fn c61(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: retry_if + retry
#[resilient(retry_if = is_transient, retry = POLICY)]
pub async fn c113(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: backoff + retry
#[resilient(backoff = exponential(base = "10ms", jitter = none), retry = POLICY)]
pub async fn c163(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: timeout + timing
#[resilient(timeout = "1s", timing = false)]
pub async fn c281(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: budget + timing
#[resilient(budget = "10s", timing = false)]
pub async fn c325(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: max_elapsed + timing
#[resilient(max_elapsed = "5s", timing = false)]
pub async fn c367(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + timing
#[resilient(rate_limit = retry_after, timing = false)]
pub async fn c445(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + max_rate_limit_wait + timing
#[resilient(rate_limit = retry_after, max_rate_limit_wait = "30s", timing = false)]
pub async fn c481(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
// asynchronous fn: rate_limit + max_rate_limit_retries + timing
#[resilient(rate_limit = retry_after, max_rate_limit_retries = 3, timing = false)]
pub async fn c515(x: u32) -> Result<u32, MatrixError> {
    Ok(x)
}
}

fn main() {}
