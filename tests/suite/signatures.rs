//! The calls the contract lists compile as written, without annotations,
//! and behave as named.

use std::time::{Duration, SystemTime};

use resilient::{
    AttemptKind, Backoff, CircuitBreaker, DelaySource, ExecutionReport, FailureKind, FakeClock,
    Outcome, RetryError, RetryPolicy, StopReason,
};

#[test]
fn policy_builder_and_run() {
    let policy = RetryPolicy::builder()
        .max_attempts(3)
        .backoff(Backoff::exponential(
            Duration::from_millis(10),
            Duration::from_secs(1),
        ))
        .budget(Duration::from_secs(30))
        .max_elapsed(Duration::from_secs(20))
        .min_retries(1)
        .build()
        .unwrap();
    let err: RetryError<&str> = policy.run(|_| Err::<(), _>("no")).unwrap_err();
    assert_eq!(err.attempts(), 3);
    assert_eq!(err.cause(), &"no");
    let none = RetryPolicy::builder()
        .backoff(Backoff::none())
        .build()
        .unwrap();
    assert_eq!(none.run(|a| Ok::<_, ()>(a.number())), Ok(1));
    let constant = Backoff::constant(Duration::from_secs(1));
    assert_eq!(constant.nominal_delay(7), Duration::from_secs(1));
}

#[test]
fn clocks_and_reports() {
    let clock = FakeClock::new();
    let shared = clock.clone();
    shared.advance(Duration::from_secs(1));
    let slept: Vec<Duration> = clock.slept();
    assert!(slept.is_empty());
    let outcome: Outcome<u32, String> = resilient::Operation::new()
        .max_attempts(2)
        .backoff(Backoff::constant(Duration::from_secs(2)))
        .clock(&clock)
        .run(|a| {
            if a.number() == 1 {
                Err("once".to_owned())
            } else {
                Ok(9)
            }
        });
    let report: &ExecutionReport = outcome.report();
    let count: u32 = report.attempt_count();
    let retries: u32 = report.retry_count();
    let delays: Vec<Duration> = report.delays();
    let elapsed: Duration = report.elapsed();
    let number: u32 = report.attempts()[1].number();
    let deadline: Option<Duration> = report.attempts()[1].deadline();
    assert_eq!((count, retries, number, deadline), (2, 1, 2, None));
    assert_eq!(delays, [Duration::from_secs(2)]);
    assert_eq!(elapsed, Duration::from_secs(2));
    assert_eq!(clock.slept(), [Duration::from_secs(2)]);
    assert_eq!(outcome.into_result(), Ok(9));
}

#[test]
fn breaker_builder() {
    let breaker = CircuitBreaker::builder()
        .failure_threshold(3)
        .break_duration(Duration::from_secs(30))
        .build()
        .unwrap();
    assert!(breaker.try_acquire(std::time::Instant::now()).is_ok());
}

#[cfg(feature = "http")]
#[test]
fn http_retry_after() {
    let mut headers = http::HeaderMap::new();
    headers.insert(
        http::header::RETRY_AFTER,
        http::HeaderValue::from_static("5"),
    );
    assert_eq!(
        resilient::http::retry_after(&headers, SystemTime::now()),
        Some(Duration::from_secs(5))
    );
    assert!(resilient::http::is_retryable(
        http::StatusCode::from_u16(529).unwrap()
    ));
}

#[test]
fn enums_are_copy_eq_debug() {
    fn check<T: Copy + Eq + std::fmt::Debug>(_: T) {}
    check(StopReason::Succeeded);
    check(AttemptKind::Primary);
    check(FailureKind::Operation);
    check(DelaySource::Backoff);
    let _ = SystemTime::now();
}
