//! The circuit breaker as operations see it, on a `FakeClock`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient_core::{
    Backoff, CircuitBreaker, CircuitState, FailureKind, FakeClock, Operation, StopReason,
};

use crate::common::Fail;

fn breaker() -> CircuitBreaker {
    CircuitBreaker::builder()
        .failure_threshold(3)
        .break_duration(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// One single-attempt call through `breaker`, counting body runs in `runs`.
fn call(
    breaker: &CircuitBreaker,
    clock: &FakeClock,
    runs: &AtomicU32,
    result: Result<u32, Fail>,
) -> resilient_core::Outcome<u32, Fail> {
    Operation::new()
        .retry_if(|e: &Fail| *e != Fail::Fatal)
        .circuit_breaker(breaker)
        .clock(clock)
        .run(|_| {
            runs.fetch_add(1, Ordering::SeqCst);
            result.clone()
        })
}

#[test]
fn opens_at_the_threshold_and_rejects_without_running_the_body() {
    let (breaker, clock, runs) = (breaker(), FakeClock::new(), AtomicU32::new(0));
    for _ in 0..2 {
        let _ = call(&breaker, &clock, &runs, Err(Fail::Transient));
        assert_eq!(breaker.state(clock.now()), CircuitState::Closed);
    }
    let _ = call(&breaker, &clock, &runs, Err(Fail::Transient));
    assert_eq!(breaker.state(clock.now()), CircuitState::Open);
    assert_eq!(runs.load(Ordering::SeqCst), 3);

    let outcome = call(&breaker, &clock, &runs, Ok(1));
    assert_eq!(runs.load(Ordering::SeqCst), 3, "the body did not run");
    assert_eq!(outcome.result(), &Err(Fail::Rejected));
    let record = &outcome.report().attempts()[0];
    assert_eq!(record.error().unwrap().kind(), FailureKind::CircuitOpen);
    assert_eq!(outcome.report().stop_reason(), StopReason::CircuitOpen);
}

#[test]
fn non_retryable_errors_open_it_too() {
    let (breaker, clock, runs) = (breaker(), FakeClock::new(), AtomicU32::new(0));
    for _ in 0..2 {
        let _ = call(&breaker, &clock, &runs, Err(Fail::Fatal));
        assert_eq!(breaker.state(clock.now()), CircuitState::Closed);
    }
    let outcome = call(&breaker, &clock, &runs, Err(Fail::Fatal));
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(breaker.state(clock.now()), CircuitState::Open);
}

#[test]
fn half_opens_after_the_break_and_closes_on_success() {
    let (breaker, clock, runs) = (breaker(), FakeClock::new(), AtomicU32::new(0));
    for _ in 0..3 {
        let _ = call(&breaker, &clock, &runs, Err(Fail::Transient));
    }
    clock.advance(Duration::from_secs(29));
    assert_eq!(breaker.state(clock.now()), CircuitState::Open);
    clock.advance(Duration::from_secs(1));
    assert_eq!(breaker.state(clock.now()), CircuitState::HalfOpen);
    let outcome = call(&breaker, &clock, &runs, Ok(7));
    assert_eq!(outcome.into_result(), Ok(7));
    assert_eq!(breaker.state(clock.now()), CircuitState::Closed);
}

#[test]
fn a_failed_probe_reopens_for_a_new_break() {
    let (breaker, clock, runs) = (breaker(), FakeClock::new(), AtomicU32::new(0));
    for _ in 0..3 {
        let _ = call(&breaker, &clock, &runs, Err(Fail::Transient));
    }
    clock.advance(Duration::from_secs(30));
    let _ = call(&breaker, &clock, &runs, Err(Fail::Transient));
    assert_eq!(runs.load(Ordering::SeqCst), 4, "the probe ran");
    assert_eq!(breaker.state(clock.now()), CircuitState::Open);
    clock.advance(Duration::from_secs(29));
    assert_eq!(
        breaker.state(clock.now()),
        CircuitState::Open,
        "the break restarted"
    );
    clock.advance(Duration::from_secs(1));
    assert_eq!(breaker.state(clock.now()), CircuitState::HalfOpen);
}

/// How each attempt of `report` failed, if it did.
fn failure_kinds(report: &resilient_core::ExecutionReport) -> Vec<Option<FailureKind>> {
    report
        .attempts()
        .iter()
        .map(|r| r.error().map(|e| e.kind()))
        .collect()
}

/// Opens `breaker` with three failed single-attempt calls.
fn open(breaker: &CircuitBreaker, clock: &FakeClock) {
    let runs = AtomicU32::new(0);
    for _ in 0..3 {
        let _ = call(breaker, clock, &runs, Err(Fail::Transient));
    }
    assert_eq!(breaker.state(clock.now()), CircuitState::Open);
}

#[test]
fn a_rejection_ends_the_call_even_when_its_error_is_retryable() {
    let (breaker, clock) = (breaker(), FakeClock::new());
    open(&breaker, &clock);
    let runs = AtomicU32::new(0);
    let outcome = Operation::new()
        .max_attempts(3)
        .backoff(Backoff::constant(Duration::from_secs(20)))
        // The rejection's error is retryable: it is still not retried.
        .retry_if(|_: &Fail| true)
        .circuit_breaker(&breaker)
        .clock(&clock)
        .run(|_| Ok::<_, Fail>(runs.fetch_add(1, Ordering::SeqCst)));
    let kinds = failure_kinds(outcome.report());
    assert_eq!(kinds, [Some(FailureKind::CircuitOpen)]);
    assert_eq!(outcome.report().stop_reason(), StopReason::CircuitOpen);
    assert_eq!(clock.slept(), [], "no wait against an open breaker");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "the body never ran");
    assert_eq!(outcome.into_result(), Err(Fail::Rejected));
}

#[test]
fn the_fallback_runs_after_a_rejection() {
    let (breaker, clock) = (breaker(), FakeClock::new());
    open(&breaker, &clock);
    let outcome = Operation::new()
        .max_attempts(3)
        .circuit_breaker(&breaker)
        .clock(&clock)
        .run_with_fallback(|_| Ok::<u32, Fail>(1), Some(|_| Ok(2)));
    assert_eq!(outcome.report().stop_reason(), StopReason::CircuitOpen);
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(outcome.into_result(), Ok(2));
}

#[test]
fn a_retry_rejected_by_a_breaker_that_opened_meanwhile_ends_the_call() {
    let breaker = CircuitBreaker::builder()
        .failure_threshold(1)
        .break_duration(Duration::from_secs(30))
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .max_attempts(5)
        .backoff(Backoff::constant(Duration::from_secs(1)))
        .circuit_breaker(&breaker)
        .clock(&clock)
        .run(|_| Err::<(), _>(Fail::Transient));
    let kinds = failure_kinds(outcome.report());
    assert_eq!(
        kinds,
        [Some(FailureKind::Operation), Some(FailureKind::CircuitOpen)]
    );
    assert_eq!(clock.slept(), [Duration::from_secs(1)]);
    assert_eq!(outcome.report().stop_reason(), StopReason::CircuitOpen);
    assert_eq!(outcome.into_result(), Err(Fail::Rejected));
}

#[test]
fn two_threads_hammering_lose_no_call() {
    let breaker = CircuitBreaker::builder()
        .failure_threshold(4)
        .break_duration(Duration::from_millis(5))
        .half_open_probes(2)
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let (ran, rejected) = (AtomicU32::new(0), AtomicU32::new(0));
    const CALLS: u32 = 20_000;
    std::thread::scope(|s| {
        for _ in 0..2 {
            let (breaker, clock, ran, rejected) = (&breaker, &clock, &ran, &rejected);
            s.spawn(move || {
                for i in 0..CALLS {
                    clock.advance(Duration::from_micros(50));
                    // Both threads fail in the same bursts of 8, so the breaker opens
                    // however the threads interleave.
                    let fails = (i / 8) % 3 == 0;
                    let outcome =
                        Operation::new()
                            .circuit_breaker(breaker)
                            .clock(clock)
                            .run(|_| {
                                ran.fetch_add(1, Ordering::Relaxed);
                                if fails { Err(Fail::Transient) } else { Ok(i) }
                            });
                    if outcome.result() == &Err(Fail::Rejected) {
                        rejected.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let (ran, rejected) = (ran.into_inner(), rejected.into_inner());
    assert_eq!(
        ran + rejected,
        2 * CALLS,
        "every call either ran or was rejected"
    );
    assert!(
        ran > 0 && rejected > 0,
        "both paths were exercised: ran {ran}, rejected {rejected}"
    );
}
