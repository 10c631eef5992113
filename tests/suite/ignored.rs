//! Ignored outcomes (`ignore_on`, `ignore_if`, `.ignore_if`): an ignored
//! error ends the call at once with `StopReason::Ignored`, its record says
//! so, no fallback answers it unless one is chosen for it, and the circuit
//! breaker, the retry throttle and the adaptive limits count it as if the
//! attempt had not run.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use resilient::limit::AdaptiveLimit;
use resilient::{
    Attempt, CircuitBreaker, CircuitOpen, CircuitState, FakeClock, LimitExceeded, Operation,
    RetryPolicy, RetryThrottle, Retryable, StopReason, TokioClock, resilient,
};

const fn millis(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum StoreError {
    #[error("{0} not found")]
    NotFound(u32),
    #[error("busy")]
    Busy,
    #[error("circuit open")]
    Open,
    #[error("over the limit")]
    Limited,
}

impl From<CircuitOpen> for StoreError {
    fn from(_: CircuitOpen) -> Self {
        StoreError::Open
    }
}

impl From<LimitExceeded> for StoreError {
    fn from(_: LimitExceeded) -> Self {
        StoreError::Limited
    }
}

fn is_missing(error: &StoreError) -> bool {
    matches!(error, StoreError::NotFound(_))
}

// ---- the call ends at once --------------------------------------------------

#[resilient(retries = 3, backoff = constant("100ms"), ignore_on = [NotFound], clock = clock)]
fn busy_then_missing(clock: &FakeClock, #[attempt] attempt: Attempt) -> Result<u32, StoreError> {
    match attempt.number() {
        1 => Err(StoreError::Busy),
        n => Err(StoreError::NotFound(n)),
    }
}

#[test]
fn an_ignored_error_ends_the_call_after_the_retries_before_it() {
    let clock = FakeClock::new();
    let outcome = busy_then_missing(&clock);
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 2);
    assert_eq!(report.retry_count(), 1);
    assert_eq!(report.stop_reason(), StopReason::Ignored);
    // One wait, before the retry; none after the ignored error.
    assert_eq!(clock.slept(), [millis(100)]);
    let [busy, missing] = report.attempts() else {
        panic!("two records: {report:?}")
    };
    assert!(!busy.ignored());
    assert!(busy.error().is_some_and(|e| e.retryable()));
    assert!(missing.ignored());
    assert!(missing.error().is_some_and(|e| !e.retryable()));
    assert_eq!(outcome.into_result(), Err(StoreError::NotFound(2)));
}

#[resilient(retries = 2, backoff = none, ignore_if = is_missing)]
async fn missing_async(calls: &AtomicU32) -> Result<u32, StoreError> {
    let n = calls.fetch_add(1, Ordering::SeqCst);
    Err(StoreError::NotFound(n))
}

#[tokio::test(start_paused = true)]
async fn ignore_if_on_an_async_fn_makes_one_attempt() {
    let calls = AtomicU32::new(0);
    let outcome = missing_async(&calls).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::Ignored);
    assert!(outcome.report().attempts()[0].ignored());
}

#[test]
fn the_table_says_ignored_where_it_says_whether_an_error_was_retried() {
    let clock = FakeClock::new();
    let table = busy_then_missing(&clock).report().to_string();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[1].contains("yes"), "{table}");
    assert!(lines[2].contains("ignored"), "{table}");
    assert!(table.ends_with("stopped: error ignored"), "{table}");
}

// ---- the fallback ------------------------------------------------------------

#[resilient(retries = 1, backoff = none, ignore_on = [NotFound], fallback = cached)]
fn with_fallback(id: u32) -> Result<u32, StoreError> {
    Err(StoreError::NotFound(id))
}

#[resilient(retries = 1, backoff = none, ignore_on = [NotFound], fallback = cached, fallback_on = [NotFound])]
fn with_chosen_fallback(id: u32) -> Result<u32, StoreError> {
    Err(StoreError::NotFound(id))
}

#[resilient(retries = 1, backoff = none, ignore_if = is_missing, fallback = [cached_async, cached_async], fallback_if = is_missing)]
async fn with_chosen_fallback_async(id: u32) -> Result<u32, StoreError> {
    Err(StoreError::NotFound(id))
}

fn cached(id: u32) -> Result<u32, StoreError> {
    Ok(id * 10)
}

async fn cached_async(id: u32) -> Result<u32, StoreError> {
    Ok(id * 100)
}

#[test]
fn no_fallback_answers_an_ignored_error_unless_one_is_chosen_for_it() {
    let plain = with_fallback(4);
    assert!(!plain.report().fallback_used());
    assert_eq!(plain.report().attempt_count(), 1);
    assert_eq!(plain.into_result(), Err(StoreError::NotFound(4)));

    let chosen = with_chosen_fallback(4);
    assert!(chosen.report().fallback_used());
    assert_eq!(chosen.report().stop_reason(), StopReason::Ignored);
    assert_eq!(chosen.into_result(), Ok(40));
}

#[tokio::test(start_paused = true)]
async fn a_chosen_chain_answers_an_ignored_error_on_an_async_fn() {
    let outcome = with_chosen_fallback_async(3).await;
    assert!(outcome.report().fallback_used());
    // The first fallback of the chain succeeds: the second never runs.
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(outcome.into_result(), Ok(300));
}

// ---- the breaker ---------------------------------------------------------------

static STORE: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .failure_threshold(2)
        .break_duration(Duration::from_secs(30))
        .build()
        .expect("valid breaker")
});

#[resilient(ignore_on = [NotFound], circuit_breaker = &STORE)]
fn lookup(error: StoreError) -> Result<u32, StoreError> {
    Err(error.clone())
}

#[test]
fn the_breaker_counts_an_ignored_error_as_neither_a_success_nor_a_failure() {
    let now = Instant::now;
    assert_eq!(
        lookup(StoreError::Busy).report().stop_reason(),
        StopReason::AttemptsExhausted
    );
    // Not failures: two of them would open a breaker of threshold 2.
    for id in 0..5 {
        let outcome = lookup(StoreError::NotFound(id));
        assert_eq!(outcome.report().stop_reason(), StopReason::Ignored);
    }
    assert_eq!(STORE.state(now()), CircuitState::Closed);
    // Not successes either: a success would have cleared the first
    // failure, and this second one would leave the breaker closed.
    let _ = lookup(StoreError::Busy);
    assert_eq!(STORE.state(now()), CircuitState::Open);
    // A refusal is the breaker's, whatever the operation ignores.
    let refused = lookup(StoreError::NotFound(9));
    assert_eq!(refused.report().stop_reason(), StopReason::CircuitOpen);
    assert!(!refused.report().attempts()[0].ignored());
    assert_eq!(refused.into_result(), Err(StoreError::Open));
}

#[test]
fn an_ignored_probe_leaves_the_breaker_half_open_with_its_probe_back() {
    let breaker = CircuitBreaker::builder()
        .failure_threshold(1)
        .break_duration(Duration::from_secs(10))
        .build()
        .expect("valid breaker");
    let clock = FakeClock::new();
    let call = |error: StoreError| {
        Operation::new()
            .ignore_if(is_missing)
            .circuit_breaker(&breaker)
            .clock(clock.clone())
            .run(move |_| Err::<u32, _>(error.clone()))
    };
    let _ = call(StoreError::Busy);
    clock.advance(Duration::from_secs(10));
    // The probe's error is ignored: it decides nothing, and the next call
    // gets the probe slot again rather than a rejection.
    for id in 0..3 {
        let outcome = call(StoreError::NotFound(id));
        assert_eq!(outcome.report().stop_reason(), StopReason::Ignored);
    }
    let failed = call(StoreError::Busy);
    assert_eq!(failed.report().stop_reason(), StopReason::AttemptsExhausted);
    assert_eq!(
        call(StoreError::Busy).report().stop_reason(),
        StopReason::CircuitOpen
    );
}

// ---- the retry throttle and the adaptive limits ------------------------------

static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.1);

#[resilient(retries = 2, backoff = none, ignore_on = [NotFound], throttle = &THROTTLE)]
fn throttled(error: StoreError) -> Result<u32, StoreError> {
    Err(error.clone())
}

#[test]
fn the_retry_throttle_spends_no_token_on_an_ignored_error() {
    for id in 0..20 {
        let _ = throttled(StoreError::NotFound(id));
    }
    assert_eq!(THROTTLE.tokens(), 10.0);
    // A retryable failure takes one token an attempt.
    let busy = throttled(StoreError::Busy);
    assert_eq!(busy.report().attempt_count(), 3);
    assert_eq!(THROTTLE.tokens(), 7.0);
}

static ADAPTIVE: AdaptiveLimit = AdaptiveLimit::aimd().initial(30).min(5);

#[resilient(ignore_on = [NotFound], limit = &ADAPTIVE)]
fn limited(error: StoreError) -> Result<u32, StoreError> {
    Err(error.clone())
}

#[test]
fn an_adaptive_limit_takes_no_sample_of_an_ignored_error() {
    for id in 0..10 {
        let _ = limited(StoreError::NotFound(id));
    }
    assert_eq!(ADAPTIVE.limit(), 30);
    // A retryable failure is a drop: the limit shrinks by a tenth.
    let _ = limited(StoreError::Busy);
    assert_eq!(ADAPTIVE.limit(), 27);
}

// ---- Operation and the closure API ---------------------------------------------

#[tokio::test(start_paused = true)]
async fn operation_ignore_if_ends_an_async_run() {
    let calls = AtomicU32::new(0);
    let outcome = Operation::new()
        .max_attempts(5)
        .ignore_if(is_missing)
        .clock(TokioClock)
        .run_async(async |attempt: Attempt| {
            calls.fetch_add(1, Ordering::SeqCst);
            match attempt.number() {
                1 | 2 => Err::<u32, _>(StoreError::Busy),
                n => Err(StoreError::NotFound(n)),
            }
        })
        .await;
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(outcome.report().stop_reason(), StopReason::Ignored);
    let ignored: Vec<bool> = outcome
        .report()
        .attempts()
        .iter()
        .map(|r| r.ignored())
        .collect();
    assert_eq!(ignored, [false, false, true]);
}

#[test]
fn the_closure_api_ignores_without_running_its_fallback() {
    let policy = RetryPolicy::builder()
        .max_attempts(4)
        .build()
        .expect("valid policy");
    let mut calls = 0;
    let outcome = (|| {
        calls += 1;
        Err::<u32, _>(StoreError::NotFound(calls))
    })
    .retry(&policy)
    .ignore_if(is_missing)
    .fallback(|_: &StoreError| Ok(0))
    .clock(FakeClock::new())
    .call();
    assert_eq!(outcome.report().stop_reason(), StopReason::Ignored);
    assert!(!outcome.report().fallback_used());
    assert_eq!(outcome.into_result(), Err(StoreError::NotFound(1)));
}

// ---- hedged rounds ---------------------------------------------------------------

#[resilient(retries = 2, hedge = "1s", ignore_on = [NotFound])]
async fn hedged_lookup(#[attempt] attempt: Attempt) -> Result<u32, StoreError> {
    match attempt.number() {
        // Stuck: the hedge answers first.
        1 => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(1)
        }
        n => {
            tokio::time::sleep(millis(500)).await;
            Err(StoreError::NotFound(n))
        }
    }
}

#[tokio::test(start_paused = true)]
async fn an_ignored_hedge_ends_its_round_and_the_call() {
    let started = tokio::time::Instant::now();
    let outcome = hedged_lookup().await;
    // The hedge started at 1 s and was ignored at 1.5 s: the stuck
    // attempt is dropped then, and nothing is retried.
    assert_eq!(started.elapsed(), millis(1_500));
    let report = outcome.report();
    assert_eq!(report.stop_reason(), StopReason::Ignored);
    assert_eq!(report.attempt_count(), 2);
    let ignored: Vec<bool> = report.attempts().iter().map(|r| r.ignored()).collect();
    assert_eq!(ignored, [false, true]);
    assert_eq!(outcome.into_result(), Err(StoreError::NotFound(2)));
}
