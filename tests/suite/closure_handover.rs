//! What a loop over backon hands its caller, the closure API hands over
//! too: each retried error by value (`take_retried`), once the engine is
//! done with it, with the attempt it ended and the wait after it; and an
//! async check before each attempt (`before_attempt_async`) whose error
//! converts with `From`. Blocking and async, on a `FakeClock` and tokio's
//! paused time.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::{Attempt, Backoff, FakeClock, Jitter, RetryPolicy, Retryable, StopReason};

/// An error that is neither `Clone` nor `Copy`, as a caller's callback
/// takes it.
#[derive(Debug, PartialEq)]
struct Refused {
    part: u32,
}

static POLICY: RetryPolicy = RetryPolicy::builder()
    .max_attempts(4)
    .backoff(
        Backoff::exponential(Duration::from_millis(100), Duration::from_secs(10))
            .jitter(Jitter::None),
    )
    .build_const();

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn a_blocking_retry_hands_each_retried_error_over_and_returns_the_last() {
    let clock = FakeClock::new();
    let mut calls = 0;
    let mut taken = Vec::new();
    let outcome = (|| {
        calls += 1;
        Err::<(), _>(Refused { part: calls })
    })
    .retry(&POLICY)
    .take_retried(|error: Refused, attempt, waited| taken.push((error, attempt, waited)))
    .clock(&clock)
    .call();
    assert_eq!(
        taken,
        [
            (Refused { part: 1 }, 1, ms(100)),
            (Refused { part: 2 }, 2, ms(200)),
            (Refused { part: 3 }, 3, ms(400)),
        ]
    );
    assert_eq!(clock.slept(), [ms(100), ms(200), ms(400)]);
    // The report still has every error's text; the last is the outcome's.
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 4);
    let texts: Vec<String> = report
        .attempts()
        .iter()
        .map(|record| record.error().unwrap().to_string())
        .collect();
    assert_eq!(texts[0], "Refused { part: 1 }");
    assert_eq!(outcome.into_result(), Err(Refused { part: 4 }));
}

#[test]
fn an_error_that_ends_the_call_at_once_is_never_handed_over() {
    let mut taken = 0;
    let outcome = (|| Err::<(), _>(Refused { part: 1 }))
        .retry(&POLICY)
        .when(|_: &Refused| false)
        .take_retried(|_: Refused, _, _| taken += 1)
        .clock(FakeClock::new())
        .call();
    assert_eq!(taken, 0);
    assert_eq!(outcome.into_result(), Err(Refused { part: 1 }));
}

#[tokio::test(start_paused = true)]
async fn an_async_retry_hands_the_error_over_after_the_wait_before_the_next_attempt() {
    let start = tokio::time::Instant::now();
    let calls = AtomicU32::new(0);
    let taken = Mutex::new(Vec::new());
    let outcome = (|| async {
        let part = calls.fetch_add(1, Ordering::Relaxed) + 1;
        if part < 3 {
            Err(Refused { part })
        } else {
            Ok(part)
        }
    })
    .retry(&POLICY)
    .take_retried(|error: Refused, attempt, waited| {
        taken
            .lock()
            .unwrap()
            .push((error.part, attempt, waited, start.elapsed()));
    })
    .await;
    assert_eq!(outcome.into_result(), Ok(3));
    // Handed over as the next attempt begins: after its wait.
    assert_eq!(
        *taken.lock().unwrap(),
        [(1, 1, ms(100), ms(100)), (2, 2, ms(200), ms(300))]
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_dropped_during_its_wait_hands_nothing_over() {
    let taken = AtomicU32::new(0);
    let call = (|| async { Err::<(), _>(Refused { part: 1 }) })
        .retry(&POLICY)
        .take_retried(|_: Refused, _, _| {
            taken.fetch_add(1, Ordering::Relaxed);
        })
        .call();
    // Cut in the first wait (100 ms): the error goes with the call.
    assert!(tokio::time::timeout(ms(50), call).await.is_err());
    assert_eq!(taken.load(Ordering::Relaxed), 0);
}

#[derive(Debug, PartialEq)]
enum JobError {
    Busy,
    Gone(u32),
}

/// The check's own error, converted with `From`.
#[derive(Debug)]
struct Gone(u32);

impl From<Gone> for JobError {
    fn from(gone: Gone) -> Self {
        JobError::Gone(gone.0)
    }
}

#[tokio::test(start_paused = true)]
async fn an_async_check_ends_the_call_before_the_body_with_its_error_converted() {
    let start = tokio::time::Instant::now();
    let bodies = AtomicU32::new(0);
    let checked = Mutex::new(Vec::new());
    let outcome = (|| {
        // Counted when the body is called, not when its future is polled.
        bodies.fetch_add(1, Ordering::Relaxed);
        async { Err::<(), _>(JobError::Busy) }
    })
    .retry(&POLICY)
    .before_attempt_async(async |attempt: Attempt| {
        // A lookup that takes time of its own.
        tokio::time::sleep(ms(10)).await;
        checked
            .lock()
            .unwrap()
            .push((attempt.number(), start.elapsed()));
        if attempt.number() < 3 {
            Ok(())
        } else {
            Err(Gone(attempt.number()))
        }
    })
    .await;
    // Checks at 0, after 10 + 100, after 10 + 200 more: 0, 110, 320 ms in.
    assert_eq!(
        *checked.lock().unwrap(),
        [(1, ms(10)), (2, ms(120)), (3, ms(330))]
    );
    assert_eq!(bodies.load(Ordering::Relaxed), 2);
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(outcome.into_result(), Err(JobError::Gone(3)));
}

#[tokio::test(start_paused = true)]
async fn an_async_check_that_passes_leaves_the_schedule_as_it_was_and_a_fallback_answers_a_refusal()
{
    let outcome = (|| async { Err::<u32, _>(JobError::Busy) })
        .retry(&POLICY)
        .before_attempt_async(async |_: Attempt| Ok::<(), Gone>(()))
        .fallback(|error: &JobError| {
            let answer = if *error == JobError::Busy { 7 } else { 0 };
            async move { Ok(answer) }
        })
        .await;
    // Four attempts, then the fallback's record.
    assert_eq!(outcome.report().attempt_count(), 5);
    assert_eq!(
        outcome.report().delays(),
        [ms(100), ms(200), ms(400)],
        "the check adds no wait of its own"
    );
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.into_result(), Ok(7));
}

fn is_send<T: Send>(_: &T) {}

#[test]
fn the_futures_stay_send_with_both() {
    let call = (|| async { Err::<(), _>(JobError::Busy) })
        .retry(&POLICY)
        .take_retried(|_: JobError, _, _| {})
        .before_attempt_async(async |_: Attempt| Ok::<(), Gone>(()));
    is_send(&call.call());
    let boxed = std::future::IntoFuture::into_future(
        (|| async { Err::<(), _>(JobError::Busy) })
            .retry(&POLICY)
            .before_attempt_async(async |_: Attempt| Ok::<(), Gone>(())),
    );
    is_send(&boxed);
}

/// A policy that bounds nothing, so that a schedule decides.
static UNBOUNDED_BY_COUNT: RetryPolicy =
    RetryPolicy::builder().max_attempts(u32::MAX).build_const();

#[test]
fn a_blocking_retry_sleeps_the_iterators_delays_and_stops_when_it_ends() {
    let clock = FakeClock::new();
    let outcome = (|| Err::<(), _>(Refused { part: 0 }))
        .retry(&UNBOUNDED_BY_COUNT)
        .delays([ms(30), ms(10), ms(20)])
        .clock(&clock)
        .call();
    assert_eq!(clock.slept(), [ms(30), ms(10), ms(20)]);
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
}

#[test]
fn the_policys_attempts_still_bound_an_endless_schedule() {
    let clock = FakeClock::new();
    let outcome = (|| Err::<(), _>(Refused { part: 0 }))
        .retry(&POLICY)
        .delays(std::iter::repeat(ms(5)))
        .clock(&clock)
        .call();
    assert_eq!(clock.slept(), [ms(5); 3]);
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
}

#[test]
fn a_retry_after_hint_takes_nothing_from_the_schedule() {
    let clock = FakeClock::new();
    let mut calls = 0;
    let outcome = (|| {
        calls += 1;
        Err::<(), _>(Refused { part: calls })
    })
    .retry(&UNBOUNDED_BY_COUNT)
    // The second attempt's error carries a hint of 7 s.
    .retry_after(|error: &Refused| (error.part == 2).then(|| Duration::from_secs(7)))
    .delays([ms(1), ms(2)])
    .clock(&clock)
    .call();
    assert_eq!(clock.slept(), [ms(1), Duration::from_secs(7), ms(2)]);
    assert_eq!(outcome.report().attempt_count(), 4);
}

#[tokio::test(start_paused = true)]
async fn an_async_retry_sleeps_a_schedule_made_by_a_closure() {
    let start = tokio::time::Instant::now();
    let mut next = ms(100);
    // backon's exponential builder with a factor of 3 and a cap of 1 s.
    let schedule = std::iter::from_fn(move || {
        let delay = next;
        next = (next * 3).min(Duration::from_secs(1));
        Some(delay)
    })
    .take(4);
    let outcome = (|| async { Err::<(), _>(Refused { part: 0 }) })
        .retry(&UNBOUNDED_BY_COUNT)
        .delays(schedule)
        .await;
    assert_eq!(
        outcome.report().delays(),
        [ms(100), ms(300), ms(900), Duration::from_secs(1)]
    );
    assert_eq!(start.elapsed(), ms(2_300));
}
