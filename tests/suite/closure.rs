//! The closure API (`Retryable`): the schedule it sleeps, the typed errors
//! its listeners see, a check that ends a call, the deadline each attempt
//! is granted, and an error type that is only `Debug`.

use std::future::IntoFuture;
use std::sync::Mutex;
use std::time::Duration;

use resilient::{
    Attempt, Backoff, CircuitOpen, FakeClock, Jitter, RetryEvent, RetryPolicy, Retryable,
    StopReason, TimedOut,
};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[derive(Debug, Clone, PartialEq)]
enum ApiError {
    Busy(u32),
    NotFound,
    Closed,
    Open,
    TimedOut,
}

impl ApiError {
    fn is_retryable(&self) -> bool {
        matches!(self, ApiError::Busy(_) | ApiError::TimedOut)
    }
}

impl From<TimedOut> for ApiError {
    fn from(_: TimedOut) -> Self {
        ApiError::TimedOut
    }
}

impl From<CircuitOpen> for ApiError {
    fn from(_: CircuitOpen) -> Self {
        ApiError::Open
    }
}

static POLICY: RetryPolicy = RetryPolicy::builder()
    .max_attempts(4)
    .backoff(Backoff::exponential(ms(100), secs(10)).jitter(Jitter::None))
    .build_const();

#[test]
fn blocking_retry_sleeps_the_schedule_and_notifies_each_typed_error() {
    let clock = FakeClock::new();
    let heard = Mutex::new(Vec::new());
    let mut calls = 0;
    let outcome = (|| {
        calls += 1;
        Err::<(), _>(ApiError::Busy(calls))
    })
    .retry(&POLICY)
    .when(ApiError::is_retryable)
    .notify(|e: &ApiError, next| heard.lock().unwrap().push((e.clone(), next)))
    .clock(&clock)
    .call();
    assert_eq!(clock.slept(), [ms(100), ms(200), ms(400)]);
    assert_eq!(outcome.report().delays(), [ms(100), ms(200), ms(400)]);
    // Before each wait, never after the final attempt.
    assert_eq!(
        *heard.lock().unwrap(),
        [
            (ApiError::Busy(1), ms(100)),
            (ApiError::Busy(2), ms(200)),
            (ApiError::Busy(3), ms(400)),
        ]
    );
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
    assert_eq!(outcome.into_result(), Err(ApiError::Busy(4)));
}

#[test]
fn on_retry_error_hands_the_attempt_number_with_the_typed_error() {
    let heard = Mutex::new(Vec::new());
    let mut calls = 0;
    let _ = (|| {
        calls += 1;
        Err::<(), _>(ApiError::Busy(calls * 10))
    })
    .retry(&POLICY)
    .on_retry_error(|event: &RetryEvent<'_>, error: &ApiError| {
        heard
            .lock()
            .unwrap()
            .push((event.attempt(), error.clone(), event.delay()))
    })
    .clock(FakeClock::new())
    .call();
    assert_eq!(
        *heard.lock().unwrap(),
        [
            (1, ApiError::Busy(10), ms(100)),
            (2, ApiError::Busy(20), ms(200)),
            (3, ApiError::Busy(30), ms(400)),
        ]
    );
}

#[test]
fn an_error_when_rejects_ends_the_call_unslept() {
    let clock = FakeClock::new();
    let heard = Mutex::new(0);
    let outcome = (|| Err::<(), _>(ApiError::NotFound))
        .retry(POLICY)
        .when(|e| e.is_retryable())
        .notify(|_, _| *heard.lock().unwrap() += 1)
        .clock(&clock)
        .call();
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert!(clock.slept().is_empty());
    assert_eq!(*heard.lock().unwrap(), 0);
}

#[test]
fn before_attempt_ends_the_call_at_once_without_running_the_body() {
    let clock = FakeClock::new();
    let mut ran = Vec::new();
    let mut checked = Vec::new();
    let outcome = (|| {
        ran.push(());
        Err::<(), _>(ApiError::Busy(0))
    })
    .retry(&POLICY)
    .before_attempt(|attempt: &Attempt| {
        checked.push(attempt.number());
        if attempt.number() == 3 {
            // Retryable by `when`'s rule, and still never retried.
            Err(ApiError::Busy(99))
        } else {
            Ok(())
        }
    })
    .clock(&clock)
    .call();
    assert_eq!(checked, [1, 2, 3]);
    assert_eq!(ran.len(), 2, "the body doesn't run after a refusal");
    assert_eq!(clock.slept(), [ms(100), ms(200)]);
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(outcome.into_result(), Err(ApiError::Busy(99)));
}

#[test]
fn the_fallback_answers_the_error_that_ended_the_attempts() {
    let outcome = (|| Err::<u32, _>(ApiError::Closed))
        .retry(&POLICY)
        .fallback(|e: &ApiError| {
            if *e == ApiError::Closed {
                Ok(7)
            } else {
                Err(e.clone())
            }
        })
        .clock(FakeClock::new())
        .call();
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.report().attempt_count(), 5);
    assert_eq!(outcome.into_result(), Ok(7));
}

#[test]
fn an_open_breaker_ends_the_call_with_its_error() {
    let breaker = resilient::CircuitBreaker::builder()
        .failure_threshold(1)
        .break_duration(secs(60))
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let first = (|| Err::<(), _>(ApiError::Busy(1)))
        .retry(&POLICY)
        .circuit_breaker(&breaker)
        .clock(&clock)
        .call();
    assert_eq!(first.report().stop_reason(), StopReason::CircuitOpen);
    assert_eq!(first.report().attempt_count(), 2);
    assert_eq!(first.into_result(), Err(ApiError::Open));
}

impl From<resilient::LimitExceeded> for ApiError {
    fn from(_: resilient::LimitExceeded) -> Self {
        ApiError::Closed
    }
}

#[test]
fn a_full_bulkhead_refuses_the_attempt_and_ends_the_call() {
    use resilient::limit::{Bulkhead, Limiter};
    static FULL: Bulkhead = Bulkhead::new(0);
    let mut ran = false;
    let outcome = (|| {
        ran = true;
        Ok::<_, ApiError>(1)
    })
    .retry(&POLICY)
    .limit(&[&FULL as &dyn Limiter])
    .clock(FakeClock::new())
    .call();
    assert!(!ran);
    assert_eq!(outcome.report().stop_reason(), StopReason::LimitExceeded);
    assert_eq!(outcome.into_result(), Err(ApiError::Closed));
}

#[test]
fn the_attribute_s_names_reach_the_report() {
    let reported = Mutex::new(None);
    let heard = Mutex::new(Vec::new());
    let outcome = (|| Err::<(), _>(ApiError::Busy(1)))
        .retry(&POLICY)
        .name("sdk.fetch")
        .on_retry(|event: &RetryEvent<'_>| heard.lock().unwrap().push(event.attempt()))
        .on_report(|report| *reported.lock().unwrap() = Some(report.name().to_owned()))
        .clock(FakeClock::new())
        .call();
    assert_eq!(outcome.report().name(), "sdk.fetch");
    assert_eq!(*heard.lock().unwrap(), [1, 2, 3]);
    assert_eq!(reported.lock().unwrap().as_deref(), Some("sdk.fetch"));
}

#[tokio::test(start_paused = true)]
async fn async_retry_sleeps_the_schedule_on_paused_time() {
    let start = tokio::time::Instant::now();
    let heard = Mutex::new(Vec::new());
    let outcome = (|| async { Err::<(), _>(ApiError::Busy(1)) })
        .retry(&POLICY)
        .notify(|e: &ApiError, next: Duration| heard.lock().unwrap().push((e.clone(), next)))
        .await;
    assert_eq!(outcome.report().delays(), [ms(100), ms(200), ms(400)]);
    assert_eq!(start.elapsed(), ms(700));
    assert_eq!(
        *heard.lock().unwrap(),
        [ms(100), ms(200), ms(400)].map(|d| (ApiError::Busy(1), d))
    );
}

#[tokio::test(start_paused = true)]
async fn each_attempt_is_granted_the_least_of_timeout_and_budget_left() {
    let policy = RetryPolicy::builder()
        .max_attempts(10)
        .backoff(Backoff::exponential(secs(1), secs(60)).jitter(Jitter::None))
        .build()
        .unwrap();
    let granted = Mutex::new(Vec::new());
    let start = tokio::time::Instant::now();
    let outcome = (|| async {
        tokio::time::sleep(ms(9_500)).await;
        Err::<(), _>(ApiError::Busy(0))
    })
    .retry(&policy)
    .timeout(secs(10))
    .budget(secs(30))
    .before_attempt(|attempt: &Attempt| {
        granted.lock().unwrap().push(attempt.deadline());
        Ok(())
    })
    .await;
    let deadlines: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|a| a.deadline())
        .collect();
    // Attempt 3 starts at 22 s, with 8 s of the budget left.
    assert_eq!(deadlines, [Some(secs(10)), Some(secs(10)), Some(secs(8))]);
    assert_eq!(*granted.lock().unwrap(), deadlines);
    assert_eq!(outcome.report().delays(), [secs(1), secs(2)]);
    assert_eq!(start.elapsed(), secs(30));
    assert_eq!(outcome.report().stop_reason(), StopReason::BudgetExhausted);
    assert_eq!(outcome.into_result(), Err(ApiError::TimedOut));
}

#[test]
fn a_blocking_attempt_is_granted_the_least_of_timeout_and_budget_left() {
    let policy = RetryPolicy::builder()
        .max_attempts(10)
        .backoff(Backoff::exponential(secs(1), secs(60)).jitter(Jitter::None))
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let granted = Mutex::new(Vec::new());
    let outcome = (|| {
        clock.advance(ms(9_500));
        Err::<(), _>(ApiError::Busy(0))
    })
    .retry(&policy)
    .timeout(secs(10))
    .budget(secs(30))
    .before_attempt(|attempt: &Attempt| {
        granted.lock().unwrap().push(attempt.deadline());
        Ok(())
    })
    .clock(&clock)
    .call();
    let deadlines = [Some(secs(10)), Some(secs(10)), Some(secs(8))];
    assert_eq!(*granted.lock().unwrap(), deadlines);
    let recorded: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|a| a.deadline())
        .collect();
    assert_eq!(recorded, deadlines);
    assert_eq!(clock.slept(), [secs(1), secs(2)]);
    assert_eq!(outcome.report().stop_reason(), StopReason::BudgetExhausted);
}

#[tokio::test(start_paused = true)]
async fn async_before_attempt_ends_the_call_and_the_fallback_runs() {
    let outcome = (|| async { Err::<u32, _>(ApiError::Busy(1)) })
        .retry(&POLICY)
        .before_attempt(|attempt: &Attempt| {
            if attempt.retry_number() == 1 {
                Err(ApiError::Closed)
            } else {
                Ok(())
            }
        })
        .fallback(|e| {
            let closed = *e == ApiError::Closed;
            async move { if closed { Ok(1) } else { Ok(0) } }
        })
        .await;
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(outcome.report().delays(), [ms(100)]);
    assert_eq!(outcome.into_result(), Ok(1));
}

#[tokio::test(start_paused = true)]
async fn call_runs_an_async_closure_unboxed() {
    let outcome = (|| async { Ok::<_, ApiError>(5) })
        .retry(&POLICY)
        .call()
        .await;
    assert_eq!(outcome.into_result(), Ok(5));
}

#[test]
fn an_awaited_retry_is_send_when_its_parts_are() {
    fn send<F: Send>(_: F) {}
    send(
        (|| async { Ok::<_, ApiError>(1) })
            .retry(&POLICY)
            .when(ApiError::is_retryable)
            .notify(|_: &ApiError, _| {})
            .into_future(),
    );
    send((|| async { Ok::<_, ApiError>(1) }).retry(&POLICY).call());
}

/// An error type without `Display`, as a generic library's often is.
#[derive(Debug)]
struct Opaque<T> {
    code: T,
}

#[test]
fn a_debug_only_error_is_reported_by_its_debug_text() {
    let outcome = (|| Err::<(), _>(Opaque { code: 503 }))
        .retry(RetryPolicy::builder().max_attempts(2).build().unwrap())
        .clock(FakeClock::new())
        .call();
    let messages: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|a| a.error().unwrap().message().to_owned())
        .collect();
    assert_eq!(messages, ["Opaque { code: 503 }"; 2]);
    assert_eq!(outcome.into_result().unwrap_err().code, 503);
}

#[test]
fn unbounded_attempts_run_until_the_budget_ends_them() {
    let policy = RetryPolicy::builder()
        .unbounded()
        .backoff(Backoff::constant(secs(1)))
        .budget(ms(5_500))
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let outcome = (|| Err::<(), _>(ApiError::Busy(0)))
        .retry(&policy)
        .clock(&clock)
        .call();
    assert_eq!(clock.slept(), [secs(1); 5]);
    assert_eq!(outcome.report().attempt_count(), 6);
    assert_eq!(outcome.report().stop_reason(), StopReason::BudgetExhausted);
}

/// A library keeps its policy in a `static`: a `LazyLock`, since a
/// policy is built by a builder that checks it, or an `Arc`. `retry`
/// takes a reference to either as it takes `&RetryPolicy`, and sleeps the
/// same schedule.
#[test]
fn a_policy_in_a_lazy_lock_or_an_arc_is_taken_by_reference() {
    static POLICY: std::sync::LazyLock<RetryPolicy> = std::sync::LazyLock::new(|| {
        RetryPolicy::builder()
            .max_attempts(3)
            .backoff(Backoff::constant(ms(40)))
            .build()
            .expect("a valid policy")
    });
    let shared = std::sync::Arc::new(*POLICY);
    let schedule = |clock: &FakeClock, outcome: resilient::Outcome<u32, ApiError>| {
        (outcome.report().attempt_count(), clock.slept())
    };
    let clock = FakeClock::new();
    let lazy = (|| Err::<u32, _>(ApiError::Busy(1)))
        .retry(&POLICY)
        .clock(clock.clone())
        .call();
    assert_eq!(schedule(&clock, lazy), (3, vec![ms(40); 2]));
    let clock = FakeClock::new();
    let arc = (|| Err::<u32, _>(ApiError::Busy(1)))
        .retry(&shared)
        .clock(clock.clone())
        .call();
    assert_eq!(schedule(&clock, arc), (3, vec![ms(40); 2]));
}
