//! Client-side adaptive throttling (`adaptive_throttle`, `AdaptiveThrottle`):
//! the exact attempts a seeded throttle refuses, checked against the SRE
//! book's formula and splitmix64 written out here; the window on a
//! `FakeClock`; what counts as a request and an accept; what a refused
//! attempt makes of the call, through the attribute, `Operation` and the
//! closure API.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::throttle::{AdaptiveThrottle, Rejected};
use resilient::{FailureKind, FakeClock, Operation, RetryPolicy, Retryable, StopReason, resilient};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum ApiError {
    #[error("overloaded")]
    Overloaded,
    #[error("not found")]
    NotFound,
    #[error("shed locally")]
    Shed,
}

impl From<Rejected> for ApiError {
    fn from(_: Rejected) -> Self {
        ApiError::Shed
    }
}

/// The SRE book's client-side throttle, written out: the draws of
/// splitmix64 from `seed`, one per attempt while the probability is above
/// zero, against `min(max, max(0, (requests − K·accepts) / (requests + 1)))`
/// from the counts before the attempt; every attempt a request, the
/// admitted ones that `succeeds` says succeed an accept.
fn model(
    seed: u64,
    k: f64,
    max: f64,
    attempts: usize,
    succeeds: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let mut state = seed;
    let mut draw = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut requests, mut accepts) = (0.0f64, 0.0f64);
    (0..attempts)
        .map(|n| {
            let p = ((requests - k * accepts) / (requests + 1.0)).clamp(0.0, max);
            requests += 1.0;
            let refused = p > 0.0 && draw() < p;
            if !refused && succeeds(n) {
                accepts += 1.0;
            }
            refused
        })
        .collect()
}

fn call_with(
    throttle: &AdaptiveThrottle,
    clock: &FakeClock,
    ok: bool,
) -> resilient::Outcome<u32, ApiError> {
    Operation::new()
        .adaptive_throttle(throttle)
        .clock(clock.clone())
        .run(move |_| if ok { Ok(1) } else { Err(ApiError::Overloaded) })
}

/// Which of `calls` calls through `throttle` it refused, the `n`-th
/// succeeding where it runs if `succeeds(n)`.
fn refusals(
    throttle: &AdaptiveThrottle,
    clock: &FakeClock,
    calls: usize,
    succeeds: impl Fn(usize) -> bool,
) -> Vec<bool> {
    (0..calls)
        .map(|n| {
            let outcome = call_with(throttle, clock, succeeds(n));
            outcome.report().stop_reason() == StopReason::Throttled
        })
        .collect()
}

#[test]
fn a_seeded_throttle_refuses_exactly_the_attempts_the_formula_draws() {
    let throttle = AdaptiveThrottle::new().seed(2026);
    let clock = FakeClock::new();
    // The backend accepts one call in four.
    let succeeds = |n: usize| n.is_multiple_of(4);
    let refused = refusals(&throttle, &clock, 200, succeeds);
    assert_eq!(refused, model(2026, 2.0, 0.9, 200, succeeds));
    assert!(!refused[0], "the first attempt sees an empty window");
    let count = refused.iter().filter(|r| **r).count();
    assert!(
        count > 20,
        "a backend accepting 1 in 4 is shed: {count} refused"
    );
    assert_eq!(throttle.requests(), 200);
    assert_eq!(throttle.rejections(), count as u64);
}

#[test]
fn k_max_rejection_and_min_requests_change_the_sequence_as_the_formula_says() {
    let throttle = AdaptiveThrottle::new()
        .seed(5)
        .multiplier(1.2)
        .max_rejection(0.5)
        .min_requests(0);
    let clock = FakeClock::new();
    let succeeds = |n: usize| n.is_multiple_of(3);
    let refused = refusals(&throttle, &clock, 150, succeeds);
    assert_eq!(refused, model(5, 1.2, 0.5, 150, succeeds));
    assert!(throttle.rejection_probability() <= 0.5);

    // Below `min_requests`, nothing is refused, however bad the backend.
    let patient = AdaptiveThrottle::new().seed(5).min_requests(50);
    let refused = (0..50)
        .filter(|_| {
            call_with(&patient, &clock, false).report().stop_reason() == StopReason::Throttled
        })
        .count();
    assert_eq!(refused, 0);
    assert_eq!(patient.rejection_probability(), 0.0);
    // The 51st sees 50 requests and no accept: 50 / 51, capped at 0.9.
    let _ = call_with(&patient, &clock, false);
    assert_eq!(patient.rejection_probability(), 0.9);
}

#[test]
fn the_window_forgets_a_brownout_on_the_calls_clock() {
    let throttle = AdaptiveThrottle::new()
        .seed(11)
        .window(Duration::from_secs(16));
    let clock = FakeClock::new();
    for _ in 0..40 {
        let _ = call_with(&throttle, &clock, false);
    }
    assert!(throttle.rejection_probability() > 0.8);
    // Half a window later the counts are still there.
    clock.advance(Duration::from_secs(8));
    let _ = call_with(&throttle, &clock, true);
    assert!(throttle.rejection_probability() > 0.8);
    // A whole window later they are gone: the next attempt is admitted.
    clock.advance(Duration::from_secs(17));
    let outcome = call_with(&throttle, &clock, true);
    assert_eq!(outcome.into_result(), Ok(1));
    assert_eq!(throttle.rejection_probability(), 0.0);
    assert_eq!((throttle.requests(), throttle.accepts()), (1, 1));
}

#[test]
fn a_refused_attempt_never_runs_and_ends_the_call_throttled() {
    let throttle = AdaptiveThrottle::new().seed(1);
    let clock = FakeClock::new();
    // Which calls the throttle refuses, each call one attempt.
    let expected = model(1, 2.0, 0.9, 30, |_| false);
    for (n, refused) in expected.into_iter().enumerate() {
        let runs = AtomicU32::new(0);
        let outcome = Operation::new()
            .max_attempts(1)
            .adaptive_throttle(&throttle)
            .clock(clock.clone())
            .run(|_| {
                runs.fetch_add(1, Ordering::SeqCst);
                Err::<u32, _>(ApiError::Overloaded)
            });
        let report = outcome.report();
        assert_eq!(report.attempt_count(), 1);
        let error = report.attempts()[0].error().expect("every call fails");
        if refused {
            assert_eq!(runs.load(Ordering::SeqCst), 0, "call {n} ran its body");
            assert_eq!(report.stop_reason(), StopReason::Throttled);
            assert_eq!(error.kind(), FailureKind::Rejected);
            assert_eq!(outcome.into_result(), Err(ApiError::Shed));
        } else {
            assert_eq!(runs.load(Ordering::SeqCst), 1);
            assert_eq!(error.kind(), FailureKind::Operation);
            assert_eq!(outcome.into_result(), Err(ApiError::Overloaded));
        }
    }
    assert_eq!(clock.slept(), [], "nothing waits");
}

#[test]
fn a_refused_retry_is_not_retried_again() {
    let throttle = AdaptiveThrottle::new().seed(4);
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .max_attempts(50)
        .backoff(resilient::Backoff::constant(Duration::from_millis(10)))
        .adaptive_throttle(&throttle)
        .clock(clock.clone())
        .run(|_| Err::<u32, _>(ApiError::Overloaded));
    // The attempts run until the first refusal, which ends the call.
    let expected = model(4, 2.0, 0.9, 50, |_| false);
    let first_refused = expected.iter().position(|r| *r).expect("one is refused");
    let report = outcome.report();
    assert_eq!(report.stop_reason(), StopReason::Throttled);
    assert_eq!(report.attempt_count() as usize, first_refused + 1);
    assert_eq!(
        clock.slept(),
        vec![Duration::from_millis(10); first_refused]
    );
}

#[test]
fn an_ignored_error_is_neither_a_request_nor_an_accept() {
    // Nothing refused below 10 requests, so that every call below runs.
    let throttle = AdaptiveThrottle::new().min_requests(10);
    let clock = FakeClock::new();
    for _ in 0..10 {
        let outcome = Operation::new()
            .ignore_if(|error: &ApiError| *error == ApiError::NotFound)
            .adaptive_throttle(&throttle)
            .clock(clock.clone())
            .run(|_| Err::<u32, _>(ApiError::NotFound));
        assert_eq!(outcome.report().stop_reason(), StopReason::Ignored);
    }
    assert_eq!((throttle.requests(), throttle.accepts()), (0, 0));
    let _ = call_with(&throttle, &clock, false);
    let _ = call_with(&throttle, &clock, true);
    assert_eq!((throttle.requests(), throttle.accepts()), (2, 1));
}

static SHARED: AdaptiveThrottle = AdaptiveThrottle::new().seed(99).named("attribute");

#[resilient(retries = 2, backoff = none, adaptive_throttle = &SHARED, clock = clock)]
fn failing(clock: &FakeClock, runs: &AtomicU32) -> Result<u32, ApiError> {
    runs.fetch_add(1, Ordering::SeqCst);
    Err(ApiError::Overloaded)
}

#[test]
fn through_the_attribute_every_attempt_retries_included_is_asked() {
    let (clock, runs) = (FakeClock::new(), AtomicU32::new(0));
    let stops: Vec<StopReason> = (0..30)
        .map(|_| failing(&clock, &runs).report().stop_reason())
        .collect();
    // Every attempt fails, so the refusals over the attempts are the
    // model's whatever the calls; a call ends at a refusal or after its
    // three attempts.
    let attempts = runs.load(Ordering::SeqCst) as usize + SHARED.rejections() as usize;
    let mut expected = Vec::new();
    let mut in_call = 0;
    for refused in model(99, 2.0, 0.9, attempts, |_| false) {
        in_call += 1;
        if refused {
            expected.push(StopReason::Throttled);
            in_call = 0;
        } else if in_call == 3 {
            expected.push(StopReason::AttemptsExhausted);
            in_call = 0;
        }
    }
    assert_eq!(stops, expected);
    assert_eq!(SHARED.requests(), attempts as u64);
    assert_eq!(SHARED.accepts(), 0);
    // No accept in the window: the cap.
    assert_eq!(SHARED.rejection_probability(), 0.9);
}

static ASYNC: AdaptiveThrottle = AdaptiveThrottle::new().seed(3);

#[resilient(adaptive_throttle = &ASYNC, fallback = cached)]
async fn lookup(ok: bool) -> Result<u32, ApiError> {
    if ok { Ok(7) } else { Err(ApiError::Overloaded) }
}

async fn cached(_ok: bool) -> Result<u32, ApiError> {
    Ok(0)
}

#[tokio::test(start_paused = true)]
async fn an_async_fn_falls_back_when_its_attempt_is_refused() {
    for _ in 0..20 {
        let _ = lookup(false).await;
    }
    let mut refused = 0;
    for _ in 0..20 {
        let outcome = lookup(false).await;
        if outcome.report().stop_reason() == StopReason::Throttled {
            refused += 1;
            assert!(outcome.report().fallback_used());
            assert_eq!(outcome.into_result(), Ok(0));
        }
    }
    assert!(refused > 10, "{refused} of 20 refused");
}

#[test]
fn the_closure_api_takes_an_adaptive_throttle() {
    let throttle = AdaptiveThrottle::new().seed(8).max_rejection(1.0);
    let policy = RetryPolicy::builder()
        .max_attempts(1)
        .build()
        .expect("valid");
    let clock = FakeClock::new();
    let call = || {
        (|| Err::<u32, _>(ApiError::Overloaded))
            .retry(&policy)
            .adaptive_throttle(&throttle)
            .clock(clock.clone())
            .call()
    };
    let refused: Vec<bool> = (0..10)
        .map(|_| call().report().stop_reason() == StopReason::Throttled)
        .collect();
    assert_eq!(refused, model(8, 2.0, 1.0, 10, |_| false));
    assert_eq!(throttle.requests(), 10);
}

#[tokio::test(start_paused = true)]
async fn a_call_dropped_while_its_admitted_attempt_runs_counts_for_neither() {
    let throttle = AdaptiveThrottle::new();
    let stuck = Operation::new()
        .adaptive_throttle(&throttle)
        .clock(resilient::TokioClock)
        .run_async(async |_| std::future::pending::<Result<u32, ApiError>>().await);
    // Its caller gives up while the attempt, admitted, is in flight.
    let cut = tokio::time::timeout(Duration::from_secs(1), stuck).await;
    assert!(cut.is_err());
    assert_eq!((throttle.requests(), throttle.accepts()), (0, 0));
    // A call that ends is counted as before.
    let done = Operation::new()
        .adaptive_throttle(&throttle)
        .clock(resilient::TokioClock)
        .run_async(async |_| Ok::<u32, ApiError>(1))
        .await;
    assert_eq!(done.into_result(), Ok(1));
    assert_eq!((throttle.requests(), throttle.accepts()), (1, 1));
}
