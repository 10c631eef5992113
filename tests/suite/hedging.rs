//! `hedge = …` and `max_hedges = …` through the attribute, on tokio's
//! paused clock: when hedged attempts start, which answer wins, that the
//! losers are dropped, and that a failed round still retries and falls
//! back.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::{Attempt, AttemptKind, FailureKind, StopReason, resilient};
use tokio::time::Instant;

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

const fn millis(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Each attempt's kind and when it started.
fn starts_of(report: &resilient::ExecutionReport) -> Vec<(AttemptKind, Duration)> {
    let attempts = report.attempts().iter();
    attempts.map(|r| (r.kind(), r.started_at())).collect()
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("replica {0} failed")]
struct ReplicaError(u32);

/// Counts the attempts dropped before they finished.
struct DropGuard<'a> {
    finished: bool,
    dropped: &'a AtomicU32,
}

impl Drop for DropGuard<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// An attempt that takes `took` of virtual time, then answers `result`.
async fn call(
    took: Duration,
    dropped: &AtomicU32,
    result: Result<u32, ReplicaError>,
) -> Result<u32, ReplicaError> {
    let mut guard = DropGuard {
        finished: false,
        dropped,
    };
    tokio::time::sleep(took).await;
    guard.finished = true;
    result
}

#[resilient(hedge = "1s")]
async fn lookup(dropped: &AtomicU32, #[attempt] attempt: Attempt) -> Result<u32, ReplicaError> {
    // The first attempt is stuck for 10 s; its hedge answers in 0.5 s.
    let took = if attempt.number() == 1 {
        secs(10)
    } else {
        millis(500)
    };
    call(took, dropped, Ok(attempt.number())).await
}

#[tokio::test(start_paused = true)]
async fn the_hedge_answers_at_1_5_s_and_the_stuck_attempt_is_dropped() {
    let dropped = AtomicU32::new(0);
    let start = Instant::now();
    let outcome = lookup(&dropped).await;
    assert_eq!(start.elapsed(), millis(1500));
    assert_eq!(dropped.load(Ordering::SeqCst), 1, "the first attempt");
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 2);
    assert_eq!(report.retry_count(), 0, "a hedge is not a retry");
    assert_eq!(report.stop_reason(), StopReason::Succeeded);
    assert_eq!(report.elapsed(), millis(1500));
    let records: Vec<_> = report
        .attempts()
        .iter()
        .map(|r| (r.kind(), r.started_at(), r.error().map(|e| e.kind())))
        .collect();
    assert_eq!(
        records,
        [
            (AttemptKind::Primary, secs(0), Some(FailureKind::Cancelled)),
            (AttemptKind::Hedge, secs(1), None),
        ]
    );
    assert_eq!(outcome.into_result(), Ok(2));
}

#[resilient(hedge = "1s", max_hedges = 2)]
async fn lookup_twice_hedged(
    started: &AtomicU32,
    dropped: &AtomicU32,
    #[attempt] attempt: Attempt,
) -> Result<u32, ReplicaError> {
    started.fetch_add(1, Ordering::SeqCst);
    // Only the third attempt is quick.
    let took = if attempt.number() == 3 {
        millis(100)
    } else {
        secs(60)
    };
    call(took, dropped, Ok(attempt.number())).await
}

#[tokio::test(start_paused = true)]
async fn max_hedges_2_starts_a_hedge_each_second_while_none_answers() {
    let (started, dropped) = (AtomicU32::new(0), AtomicU32::new(0));
    let start = Instant::now();
    let outcome = lookup_twice_hedged(&started, &dropped).await;
    // Hedges at 1 s and 2 s; the second one answers at 2.1 s.
    assert_eq!(start.elapsed(), millis(2100));
    assert_eq!(started.load(Ordering::SeqCst), 3);
    assert_eq!(dropped.load(Ordering::SeqCst), 2);
    let starts = starts_of(outcome.report());
    assert_eq!(
        starts,
        [
            (AttemptKind::Primary, secs(0)),
            (AttemptKind::Hedge, secs(1)),
            (AttemptKind::Hedge, secs(2)),
        ]
    );
    assert_eq!(outcome.report().retry_count(), 0);
    assert_eq!(outcome.into_result(), Ok(3));
}

#[resilient(hedge = "1s")]
async fn one_hedge_by_default(started: &AtomicU32) -> Result<u32, ReplicaError> {
    started.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(secs(5)).await;
    Ok(0)
}

#[tokio::test(start_paused = true)]
async fn without_max_hedges_one_hedge_at_most_runs() {
    let started = AtomicU32::new(0);
    let start = Instant::now();
    let outcome = one_hedge_by_default(&started).await;
    // The primary answers at 5 s, before the hedge started at 1 s does.
    assert_eq!(start.elapsed(), secs(5));
    assert_eq!(started.load(Ordering::SeqCst), 2);
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(
        outcome.report().attempts()[0].error().map(|e| e.kind()),
        None
    );
    assert_eq!(
        outcome.report().attempts()[1].error().map(|e| e.kind()),
        Some(FailureKind::Cancelled)
    );
}

async fn stale(dropped: Arc<AtomicU32>) -> Result<u32, ReplicaError> {
    Ok(dropped.load(Ordering::SeqCst) + 100)
}

#[resilient(retries = 1, backoff = constant("3s"), hedge = "1s", fallback = stale)]
async fn flaky(dropped: Arc<AtomicU32>, #[attempt] attempt: Attempt) -> Result<u32, ReplicaError> {
    // Each primary fails after 1.5 s, each hedge 1 s after it starts.
    let took = if attempt.number() % 2 == 1 {
        millis(1500)
    } else {
        secs(1)
    };
    call(took, &dropped, Err(ReplicaError(attempt.number()))).await
}

#[tokio::test(start_paused = true)]
async fn a_round_whose_attempts_all_fail_is_retried_then_falls_back() {
    let dropped = Arc::new(AtomicU32::new(0));
    let start = Instant::now();
    let outcome = flaky(Arc::clone(&dropped)).await;
    // Round 1: 0-1.5 s and 1-2 s; a 3 s wait; round 2: 5-6.5 s and 6-7 s.
    assert_eq!(start.elapsed(), secs(7));
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 5);
    assert_eq!(report.retry_count(), 1);
    assert_eq!(report.delays(), [secs(3)]);
    assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);
    use AttemptKind::{Fallback, Hedge, Primary};
    let records: Vec<_> = report
        .attempts()
        .iter()
        .map(|r| {
            (
                r.kind(),
                r.started_at(),
                r.error().map(|e| e.message().to_owned()),
            )
        })
        .collect();
    let failed = |n: u32| Some(format!("replica {n} failed"));
    assert_eq!(
        records,
        [
            (Primary, secs(0), failed(1)),
            (Hedge, secs(1), failed(2)),
            (Primary, secs(5), failed(3)),
            (Hedge, secs(6), failed(4)),
            (Fallback, secs(7), None),
        ]
    );
    // Every attempt ran to its end: none was dropped.
    assert_eq!(outcome.into_result(), Ok(100));
}

/// The calls `measured` took, and the one of them that hangs.
static MEASURED_CALLS: AtomicU32 = AtomicU32::new(0);

#[resilient(hedge = p95)]
async fn measured() -> Result<u32, ReplicaError> {
    let call = MEASURED_CALLS.fetch_add(1, Ordering::SeqCst);
    // Calls 0..20 answer in 80 ms; call 20, the 21st call's first
    // attempt, hangs for 10 s, and its hedge (call 21) answers in 80 ms.
    let took = if call == 20 { secs(10) } else { millis(80) };
    tokio::time::sleep(took).await;
    Ok(call)
}

#[tokio::test(start_paused = true)]
async fn hedge_p95_waits_the_measured_percentile_of_the_functions_own_calls() {
    for expected in 0..20 {
        let outcome = measured().await;
        assert_eq!(
            outcome.report().attempt_count(),
            1,
            "below the 100 ms fallback, no hedge"
        );
        assert_eq!(outcome.into_result(), Ok(expected));
    }
    let start = Instant::now();
    let outcome = measured().await;
    // p95 of twenty 80 ms samples: the upper end of their bucket, 81.919
    // ms (an eighth of a power of two wide), rounded up to a whole ms.
    let p95 = millis(82);
    assert_eq!(start.elapsed(), p95 + millis(80));
    let starts = starts_of(outcome.report());
    assert_eq!(
        starts,
        [(AttemptKind::Primary, secs(0)), (AttemptKind::Hedge, p95)],
        "the hedge waited the measured p95, not the 100 ms fallback"
    );
    assert_eq!(outcome.into_result(), Ok(21));
}

/// The attempts `hanging` started.
static HANGING_CALLS: AtomicU32 = AtomicU32::new(0);

#[derive(Debug)]
struct Hung;

impl From<resilient::TimedOut> for Hung {
    fn from(_: resilient::TimedOut) -> Self {
        Hung
    }
}

#[resilient(hedge = p99, timeout = "1s")]
async fn hanging() -> Result<u32, Hung> {
    HANGING_CALLS.fetch_add(1, Ordering::SeqCst);
    std::future::pending().await
}

#[tokio::test(start_paused = true)]
async fn under_a_hanging_backend_hedge_p99_stays_within_5_percent_extra_load() {
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..100 {
        calls.spawn(async { hanging().await.into_result() });
    }
    let results = calls.join_all().await;
    assert!(results.iter().all(Result::is_err), "every call timed out");
    // The 20th call may hedge once (0.05 × 20), the 40th once more, …:
    // five hedges for a hundred calls, each at the 100 ms fallback.
    assert_eq!(HANGING_CALLS.load(Ordering::SeqCst), 105);
}
