//! The retry throttle inside operations: gRPC A6's sequence as calls see
//! it, the stop reason, and what a refused retry leaves in the report.

use std::time::Duration;

use resilient_core::{Backoff, FakeClock, Operation, Outcome, RetryThrottle, StopReason};

static THROTTLE: RetryThrottle = RetryThrottle::new(4, 0.1);

/// A call with `retries = 5` whose every attempt fails.
fn failing(throttle: &RetryThrottle, clock: &FakeClock) -> Outcome<(), String> {
    Operation::new()
        .max_attempts(6)
        .backoff(Backoff::constant(Duration::from_secs(1)))
        .throttle(throttle)
        .clock(clock)
        .run(|attempt| Err(format!("attempt {} failed", attempt.number())))
}

fn succeeding(throttle: &RetryThrottle) -> Outcome<u32, String> {
    Operation::new()
        .max_attempts(6)
        .throttle(throttle)
        .clock(FakeClock::new())
        .run(|_| Ok(1))
}

#[test]
fn a6_sequence_through_operations() {
    let clock = FakeClock::new();
    let first = failing(&THROTTLE, &clock);
    // 4 -> 3 (above 2: retry) -> 2 (not above 2: refused).
    assert_eq!(first.report().attempt_count(), 2);
    assert_eq!(first.report().stop_reason(), StopReason::Throttled);
    assert_eq!(
        clock.slept(),
        [Duration::from_secs(1)],
        "one wait, none after the refusal"
    );
    assert_eq!(first.result(), &Err("attempt 2 failed".to_owned()));
    assert_eq!(THROTTLE.tokens(), 2.0);

    // The first attempt always runs; its failure leaves 1.
    let second = failing(&THROTTLE, &clock);
    assert_eq!(second.report().attempt_count(), 1);
    assert_eq!(second.report().stop_reason(), StopReason::Throttled);
    assert_eq!(THROTTLE.tokens(), 1.0);

    // Each success adds 0.1: 21 of them lift 1 to 3.1.
    for _ in 0..21 {
        assert!(succeeding(&THROTTLE).is_ok());
    }
    assert_eq!(THROTTLE.tokens(), 3.1);
    let third = failing(&THROTTLE, &clock);
    // 3.1 -> 2.1 (retry) -> 1.1 (refused).
    assert_eq!(third.report().attempt_count(), 2);
    assert_eq!(third.report().stop_reason(), StopReason::Throttled);
    assert_eq!(THROTTLE.tokens(), 1.1);
}

#[test]
fn a_throttled_stop_shows_in_the_table() {
    let throttle = RetryThrottle::new(2, 0.1);
    let outcome = failing(&throttle, &FakeClock::new());
    assert_eq!(outcome.report().attempt_count(), 1);
    let table = outcome.report().to_string();
    assert!(table.ends_with("stopped: retries throttled"), "{table}");
}

#[test]
fn a_non_retryable_failure_takes_no_token() {
    let throttle = RetryThrottle::new(4, 0.1);
    let outcome = Operation::new()
        .max_attempts(3)
        .retry_if(|_: &String| false)
        .throttle(&throttle)
        .clock(FakeClock::new())
        .run(|_| Err::<(), _>("bad request".to_owned()));
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(throttle.tokens(), 4.0);
}

#[tokio::test(start_paused = true)]
async fn a_throttled_policy_refuses_async_retries_too() {
    use resilient_core::RetryPolicy;

    let throttle = RetryThrottle::new(4, 0.1);
    let policy = RetryPolicy::builder()
        .max_attempts(6)
        .backoff(Backoff::constant(Duration::from_secs(1)))
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let err = policy
        .throttled(&throttle)
        .run_async_with_clock(&clock, async |attempt| Err::<(), _>(attempt.number()))
        .await
        .unwrap_err();
    // 4 -> 3 (above 2: retry) -> 2 (not above 2: refused).
    assert_eq!((err.attempts(), *err.cause()), (2, 2));
    assert_eq!(clock.slept(), [Duration::from_secs(1)]);
    assert_eq!(throttle.tokens(), 2.0);

    // On tokio's clock, by default: one token left after the next failure.
    let started = tokio::time::Instant::now();
    let err = policy
        .throttled(&throttle)
        .run_async(async |attempt| Err::<(), _>(attempt.number()))
        .await
        .unwrap_err();
    assert_eq!(err.attempts(), 1);
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert_eq!(throttle.tokens(), 1.0);
}

#[test]
fn a_rejection_by_an_open_breaker_takes_no_token() {
    use resilient_core::{CircuitBreaker, CircuitOpen, CircuitState};

    #[derive(Debug)]
    struct Rejected;
    impl std::fmt::Display for Rejected {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("rejected")
        }
    }
    impl From<CircuitOpen> for Rejected {
        fn from(_: CircuitOpen) -> Self {
            Rejected
        }
    }

    let clock = FakeClock::new();
    let breaker = CircuitBreaker::builder()
        .failure_threshold(1)
        .build()
        .unwrap();
    let throttle = RetryThrottle::new(10, 0.1);
    let call = || {
        Operation::new()
            .max_attempts(3)
            .backoff(Backoff::constant(Duration::from_secs(1)))
            .circuit_breaker(&breaker)
            .throttle(&throttle)
            .clock(&clock)
            .run(|_| Err::<(), _>(Rejected))
    };
    // One real failure takes one token, and opens the breaker.
    let first = call();
    assert_eq!(first.report().stop_reason(), StopReason::CircuitOpen);
    assert_eq!(first.report().attempt_count(), 2, "the retry was rejected");
    assert_eq!(breaker.state(clock.now()), CircuitState::Open);
    assert_eq!(throttle.tokens(), 9.0);
    // Rejections never reach the dependency: they take none.
    for _ in 0..5 {
        let rejected = call();
        assert_eq!(rejected.report().stop_reason(), StopReason::CircuitOpen);
    }
    assert_eq!(throttle.tokens(), 9.0);
}
