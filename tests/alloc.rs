//! The success path allocates nothing: 1 000 successful calls of each kind,
//! `timeout` and `budget` set, a circuit breaker consulted or permits
//! taken from limiters, hedged calls whose first attempt answers before the
//! hedge delay (a hedged call allocates only once a hedge starts), the full
//! report built, under a counting global allocator.
//!
//! With the `metrics` feature, each call records two series through the
//! `metrics` facade (an attempt counter and the duration histogram), whose
//! keys carry the operation's name and are allocated by the facade: two
//! allocations a call, and exactly that many. `.ci/run` also runs this test
//! without the feature, and with `dashboard` alone: the dashboard's counts
//! are atomics, so they add none (an operation's first call, which
//! registers it, is the warm-up call below).
//!
//! Runs without the test harness so no other thread allocates meanwhile.

use std::alloc::System;
use std::hint::black_box;
use std::sync::LazyLock;

use resilient::limit::{AdaptiveLimit, Bulkhead, RateLimiter};
use resilient::{CircuitBreaker, CircuitOpen, LimitExceeded, TimedOut, resilient};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[derive(Debug)]
struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failure")
    }
}

impl From<TimedOut> for Failure {
    fn from(_: TimedOut) -> Self {
        Failure
    }
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
fn blocking(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), budget = "30s", max_elapsed = "20s")]
fn blocking_with_budget(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
async fn plain_async(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timeout = "10s", budget = "30s")]
async fn async_with_limits(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

/// Hedged, answering at once: long before the hedge delay.
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), hedge = "10s")]
async fn hedged(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

/// Hedged, answering on its second poll, by when the hedge's timer runs.
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), hedge = "10s", max_hedges = 2)]
async fn hedged_after_a_poll(x: u64) -> Result<u64, Failure> {
    pending_once().await;
    Ok(x + 1)
}

/// Pending once, and woken at once: an attempt that is not over on its
/// first poll. (Not `tokio::task::yield_now`, whose wake-up the runtime
/// queues in a list it allocates in each `block_on`.)
async fn pending_once() {
    let mut polled = false;
    std::future::poll_fn(|cx| {
        if std::mem::replace(&mut polled, true) {
            std::task::Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await;
}

#[resilient(retries = 1, backoff = none)]
fn fails_once(#[attempt] attempt: resilient::Attempt, x: u64) -> Result<u64, Failure> {
    if attempt.number() == 1 {
        Err(Failure)
    } else {
        Ok(x + 1)
    }
}

/// A call through a breaker takes the engine's general path: it must not
/// allocate on success either.
static BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(CircuitBreaker::default);

impl From<CircuitOpen> for Failure {
    fn from(_: CircuitOpen) -> Self {
        Failure
    }
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), circuit_breaker = &BREAKER)]
async fn async_breaker(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), circuit_breaker = &BREAKER)]
fn blocking_breaker(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

/// A call with `limit` takes and returns its permits in atomics: a
/// bulkhead's count, a rate limiter's cell, an adaptive limit's sample.
static POOL: Bulkhead = Bulkhead::new(8);
static QUOTA: RateLimiter = RateLimiter::per_second(1_000_000_000);
static ADAPTIVE: LazyLock<AdaptiveLimit> = LazyLock::new(AdaptiveLimit::gradient2);

impl From<LimitExceeded> for Failure {
    fn from(_: LimitExceeded) -> Self {
        Failure
    }
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), limit = [&POOL, &QUOTA, &*ADAPTIVE])]
async fn async_limited(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), limit = [&POOL, &QUOTA, &*ADAPTIVE], limit_wait = "1s")]
fn blocking_limited(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

const CALLS: u64 = 1_000;

/// Allocations a successful call may make: none of the engine's own.
const PER_CALL: usize = if cfg!(feature = "metrics") { 2 } else { 0 };

/// Allocations made by `f`, after one warm-up call (first-use
/// initialisation of thread-locals and the runtime is not the success path).
fn allocations(mut f: impl FnMut(u64) -> u64) -> usize {
    black_box(f(0));
    let region = Region::new(GLOBAL);
    for i in 0..CALLS {
        assert_eq!(black_box(f(black_box(i))), i + 1);
    }
    region.change().allocations
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let cases: [(&str, usize); 12] = [
        (
            "async hedged, answering before the hedge",
            allocations(|x| rt.block_on(hedged(x)).into_result().unwrap()),
        ),
        (
            "async hedged, answering on its second poll",
            allocations(|x| {
                let outcome = rt.block_on(hedged_after_a_poll(x));
                assert_eq!(outcome.report().attempt_count(), 1);
                outcome.into_result().unwrap()
            }),
        ),
        (
            "Operation::hedge, answering before the hedge",
            allocations(|x| {
                let call = resilient::Operation::new()
                    .max_attempts(4)
                    .clock(resilient::TokioClock)
                    .hedge(std::time::Duration::from_secs(10))
                    .run_async(async |_| Ok::<u64, Failure>(x + 1));
                rt.block_on(call).into_result().unwrap()
            }),
        ),
        (
            "async with limit",
            allocations(|x| rt.block_on(async_limited(x)).into_result().unwrap()),
        ),
        (
            "blocking with limit and limit_wait",
            allocations(|x| blocking_limited(x).into_result().unwrap()),
        ),
        (
            "Operation::run_async through a breaker",
            allocations(|x| {
                let call = resilient::Operation::new()
                    .max_attempts(4)
                    .circuit_breaker(&BREAKER)
                    .clock(resilient::TokioClock)
                    .run_async(async |_| Ok::<u64, Failure>(x + 1));
                rt.block_on(call).into_result().unwrap()
            }),
        ),
        (
            "async breaker",
            allocations(|x| rt.block_on(async_breaker(x)).into_result().unwrap()),
        ),
        (
            "blocking breaker",
            allocations(|x| blocking_breaker(x).into_result().unwrap()),
        ),
        (
            "blocking",
            allocations(|x| {
                let outcome = blocking(x);
                assert_eq!(outcome.report().attempt_count(), 1);
                outcome.into_result().unwrap()
            }),
        ),
        (
            "blocking with budget",
            allocations(|x| blocking_with_budget(x).into_result().unwrap()),
        ),
        (
            "async",
            allocations(|x| rt.block_on(plain_async(x)).into_result().unwrap()),
        ),
        (
            "async with timeout and budget",
            allocations(|x| {
                let outcome = rt.block_on(async_with_limits(x));
                assert_eq!(
                    outcome.report().attempts()[0].deadline(),
                    Some(std::time::Duration::from_secs(10))
                );
                outcome.into_result().unwrap()
            }),
        ),
    ];
    // The control: a failure renders its message into the report, so the
    // counter must see allocations here, or it is not counting at all.
    let control = allocations(|x| fails_once(x).into_result().unwrap());
    let mut failed = 0;
    if control < CALLS as usize {
        failed += 1;
        println!("test control ... FAILED (a failing call should allocate; saw {control})");
    }
    let allowed = PER_CALL * CALLS as usize;
    let total = cases.len() + 1;
    for (name, count) in cases {
        if count == allowed {
            println!("test {name} ... ok ({count} allocations in {CALLS} calls)");
        } else {
            failed += 1;
            println!("test {name} ... FAILED ({count} allocations in {CALLS} calls)");
        }
    }
    println!("\nalloc: {} passed, {failed} failed", total - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}
