//! Hedged attempts on tokio's paused clock: when they start, which one
//! wins, what is dropped, and how a failed round is retried.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient_core::{
    AttemptKind, Backoff, FailureKind, Operation, RetryThrottle, StopReason, TokioClock,
};
use tokio::time::Instant;

const fn millis(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Counts the attempt futures dropped before they finished.
struct DropGuard {
    finished: bool,
    dropped: Arc<AtomicU32>,
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        if !self.finished {
            self.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// An attempt that takes `took` of virtual time, then returns `result`.
async fn attempt(
    took: Duration,
    dropped: &Arc<AtomicU32>,
    result: Result<u32, String>,
) -> Result<u32, String> {
    let mut guard = DropGuard {
        finished: false,
        dropped: Arc::clone(dropped),
    };
    tokio::time::sleep(took).await;
    guard.finished = true;
    result
}

#[tokio::test(start_paused = true)]
async fn a_hedge_answers_first_and_the_slow_attempt_is_dropped() {
    let dropped = Arc::new(AtomicU32::new(0));
    let start = Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .hedge(Duration::from_secs(1))
        .run_async(async |a| match a.number() {
            1 => attempt(Duration::from_secs(10), &dropped, Ok(1)).await,
            _ => attempt(millis(500), &dropped, Ok(2)).await,
        })
        .await;
    assert_eq!(start.elapsed(), millis(1500));
    assert_eq!(outcome.result(), &Ok(2));
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        1,
        "the first attempt was dropped"
    );
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 2);
    assert_eq!(report.retry_count(), 0);
    assert_eq!(report.stop_reason(), StopReason::Succeeded);
    let [first, hedge] = report.attempts() else {
        panic!("two records: {report:?}")
    };
    assert_eq!(hedge.kind(), AttemptKind::Hedge);
    assert_eq!(
        (hedge.started_at(), hedge.elapsed()),
        (Duration::from_secs(1), millis(500))
    );
    assert!(hedge.error().is_none());
    assert_eq!(first.kind(), AttemptKind::Primary);
    assert_eq!(first.elapsed(), millis(1500));
    assert_eq!(
        first.error().map(|e| e.kind()),
        Some(FailureKind::Cancelled)
    );
}

#[tokio::test(start_paused = true)]
async fn max_hedges_bounds_the_attempts_in_flight() {
    let dropped = Arc::new(AtomicU32::new(0));
    let start = Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .hedge(Duration::from_secs(1))
        .max_hedges(2)
        .run_async(async |a| match a.number() {
            3 => attempt(millis(100), &dropped, Ok(3)).await,
            _ => attempt(Duration::from_secs(60), &dropped, Ok(0)).await,
        })
        .await;
    // Hedges start at 1 s and 2 s; the third attempt wins at 2.1 s.
    assert_eq!(start.elapsed(), millis(2100));
    assert_eq!(outcome.result(), &Ok(3));
    let starts: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|r| (r.kind(), r.started_at()))
        .collect();
    assert_eq!(
        starts,
        [
            (AttemptKind::Primary, Duration::ZERO),
            (AttemptKind::Hedge, Duration::from_secs(1)),
            (AttemptKind::Hedge, Duration::from_secs(2)),
        ]
    );
    assert_eq!(dropped.load(Ordering::SeqCst), 2);

    // With one hedge allowed, no third attempt starts while two run.
    let started = AtomicU32::new(0);
    let outcome = Operation::new()
        .clock(TokioClock)
        .timeout(Duration::from_secs(5))
        .hedge(Duration::from_secs(1))
        .run_async(async |_| {
            started.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok::<u32, Late>(0)
        })
        .await;
    assert_eq!(started.load(Ordering::SeqCst), 2);
    assert_eq!(outcome.report().attempt_count(), 2);
}

#[derive(Debug, PartialEq)]
struct Late;

impl std::fmt::Display for Late {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("late")
    }
}

impl From<resilient_core::TimedOut> for Late {
    fn from(_: resilient_core::TimedOut) -> Self {
        Late
    }
}

#[tokio::test(start_paused = true)]
async fn a_round_fails_when_every_attempt_has_failed_then_the_retry_rules_apply() {
    let dropped = Arc::new(AtomicU32::new(0));
    let start = Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .max_attempts(2)
        .backoff(Backoff::constant(Duration::from_secs(3)))
        .hedge(Duration::from_secs(1))
        .run_async(async |a| match a.number() {
            // Round 1: the primary fails at 1.5 s, its hedge at 2 s.
            1 => attempt(millis(1500), &dropped, Err("slow and broken".into())).await,
            2 => attempt(Duration::from_secs(1), &dropped, Err("broken".into())).await,
            // Round 2, after 3 s of backoff: succeeds at once.
            _ => attempt(Duration::ZERO, &dropped, Ok(a.number())).await,
        })
        .await;
    assert_eq!(outcome.result(), &Ok(3));
    assert_eq!(start.elapsed(), Duration::from_secs(5));
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 3);
    assert_eq!(report.retry_count(), 1);
    assert_eq!(report.delays(), [Duration::from_secs(3)]);
    let kinds: Vec<_> = report.attempts().iter().map(|r| r.kind()).collect();
    assert_eq!(
        kinds,
        [
            AttemptKind::Primary,
            AttemptKind::Hedge,
            AttemptKind::Primary
        ]
    );
    let errors: Vec<_> = report
        .attempts()
        .iter()
        .map(|r| r.error().map(|e| e.message().to_owned()))
        .collect();
    assert_eq!(
        errors,
        [Some("slow and broken".into()), Some("broken".into()), None]
    );
    assert_eq!(dropped.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn a_throttle_that_refuses_keeps_the_hedge_from_starting() {
    let throttle = RetryThrottle::new(2, 0.1);
    throttle.record_failure();
    let started = AtomicU32::new(0);
    let outcome = Operation::new()
        .clock(TokioClock)
        .throttle(&throttle)
        .hedge(Duration::from_secs(1))
        .run_async(async |_| {
            started.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_secs(3)).await;
            Ok::<_, String>(7)
        })
        .await;
    assert_eq!(outcome.result(), &Ok(7));
    assert_eq!(started.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.report().attempt_count(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_fatal_error_in_a_round_ends_the_call_with_that_error() {
    let dropped = Arc::new(AtomicU32::new(0));
    let calls = AtomicU32::new(0);
    let start = Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .max_attempts(4)
        .backoff(Backoff::constant(Duration::from_secs(1)))
        .retry_if(|e: &String| e != "fatal")
        .hedge(Duration::from_secs(1))
        .run_async(async |a| {
            calls.fetch_add(1, Ordering::SeqCst);
            match a.number() {
                // The primary would fail, retryably, at 3 s.
                1 => attempt(Duration::from_secs(3), &dropped, Err("transient".into())).await,
                // Its hedge fails at 1.5 s with an error not retried.
                _ => attempt(millis(500), &dropped, Err("fatal".into())).await,
            }
        })
        .await;
    assert_eq!(outcome.result(), &Err("fatal".to_owned()));
    assert_eq!(start.elapsed(), millis(1500), "no wait for the primary");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(dropped.load(Ordering::SeqCst), 1, "the primary is dropped");
    let report = outcome.report();
    assert_eq!(report.stop_reason(), StopReason::NotRetryable);
    let errors: Vec<_> = report
        .attempts()
        .iter()
        .map(|r| r.error().map(|e| (e.kind(), e.message().to_owned())))
        .collect();
    assert_eq!(
        errors,
        [
            Some((
                FailureKind::Cancelled,
                "dropped: another attempt ended the call".to_owned()
            )),
            Some((FailureKind::Operation, "fatal".to_owned())),
        ]
    );
}
