//! A call its caller drops before it ends (a cut connection, a `timeout`
//! around it) still leaves its report, with `StopReason::Cancelled` and
//! the attempts made so far, to the report hook (and the metrics and the
//! dashboard, which `finished` feeds the same way): on the fast path
//! while the first attempt runs, and on the general path while a retry
//! runs or waits.

use std::sync::Mutex;
use std::time::Duration;

use resilient::{
    AttemptKind, Backoff, ExecutionReport, FailureKind, Operation, RetryPolicy, Retryable,
    StopReason, resilient,
};
use tokio::time::timeout;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum Failure {
    #[error("busy")]
    Busy,
}

/// What a report says: stop reason, elapsed, and each attempt's kind,
/// start, duration and failure kind.
type Seen = (
    StopReason,
    Duration,
    Vec<(AttemptKind, Duration, Duration, Option<FailureKind>)>,
);

fn seen(report: &ExecutionReport) -> Seen {
    let attempts = report
        .attempts()
        .iter()
        .map(|a| {
            (
                a.kind(),
                a.started_at(),
                a.elapsed(),
                a.error().map(|e| e.kind()),
            )
        })
        .collect();
    (report.stop_reason(), report.elapsed(), attempts)
}

/// A primary attempt's line in [`Seen`]: its start, duration and failure.
fn primary(
    started: Duration,
    elapsed: Duration,
    failure: FailureKind,
) -> (AttemptKind, Duration, Duration, Option<FailureKind>) {
    (AttemptKind::Primary, started, elapsed, Some(failure))
}

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

static SLOW: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

fn keep_slow(report: &ExecutionReport) {
    SLOW.lock().unwrap().push(seen(report));
}

#[resilient(retries = 2, backoff = constant("1s"), report = keep_slow)]
async fn slow() -> Result<u32, Failure> {
    tokio::time::sleep(secs(10)).await;
    Ok(1)
}

#[tokio::test(start_paused = true)]
async fn a_first_attempt_cut_by_its_callers_timeout_is_reported_cancelled() {
    assert!(timeout(secs(3), slow()).await.is_err());
    assert_eq!(
        *SLOW.lock().unwrap(),
        [(
            StopReason::Cancelled,
            secs(3),
            vec![primary(secs(0), secs(3), FailureKind::Cancelled)]
        )]
    );
    // A future never polled ran nothing, and says nothing.
    drop(slow());
    assert_eq!(SLOW.lock().unwrap().len(), 1);
}

static RETRIED: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

fn keep_retried(report: &ExecutionReport) {
    RETRIED.lock().unwrap().push(seen(report));
}

#[resilient(retries = 3, backoff = constant("1s"), report = keep_retried)]
async fn retried(#[attempt] attempt: resilient::Attempt) -> Result<u32, Failure> {
    // The first attempt fails at once; the second hangs.
    if attempt.number() == 1 {
        return Err(Failure::Busy);
    }
    tokio::time::sleep(secs(10)).await;
    Ok(2)
}

#[tokio::test(start_paused = true)]
async fn a_retry_cut_while_it_runs_is_reported_with_the_attempts_before_it() {
    assert!(timeout(secs(3), retried()).await.is_err());
    let reports = RETRIED.lock().unwrap().clone();
    assert_eq!(
        reports,
        [(
            StopReason::Cancelled,
            secs(3),
            vec![
                primary(secs(0), secs(0), FailureKind::Operation),
                primary(secs(1), secs(2), FailureKind::Cancelled),
            ]
        )]
    );
}

static WAITING: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

fn keep_waiting(report: &ExecutionReport) {
    WAITING.lock().unwrap().push(seen(report));
}

#[resilient(retries = 3, backoff = constant("2s"), report = keep_waiting)]
async fn always_busy() -> Result<u32, Failure> {
    Err(Failure::Busy)
}

#[tokio::test(start_paused = true)]
async fn a_call_cut_during_its_backoff_keeps_the_attempts_it_made() {
    assert!(
        timeout(Duration::from_millis(2500), always_busy())
            .await
            .is_err()
    );
    let reports = WAITING.lock().unwrap().clone();
    assert_eq!(
        reports,
        [(
            StopReason::Cancelled,
            Duration::from_millis(2500),
            vec![
                primary(secs(0), secs(0), FailureKind::Operation),
                primary(secs(2), secs(0), FailureKind::Operation),
            ]
        )]
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_that_ends_is_reported_once_and_not_cancelled() {
    static ENDED: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
    let outcome = Operation::new()
        .max_attempts(2)
        .backoff(Backoff::constant(secs(1)))
        .on_report(|report: &ExecutionReport| ENDED.lock().unwrap().push(seen(report)))
        .run_async(|attempt| async move {
            if attempt.number() == 1 {
                Err(Failure::Busy)
            } else {
                Ok(5)
            }
        })
        .await;
    assert_eq!(outcome.into_result(), Ok(5));
    let ended = ENDED.lock().unwrap().clone();
    assert_eq!(ended.len(), 1);
    assert_eq!(ended[0].0, StopReason::Succeeded);
}

#[tokio::test(start_paused = true)]
async fn operation_and_the_closure_api_report_a_cancelled_call_too() {
    static CUT: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
    let hook = |report: &ExecutionReport| CUT.lock().unwrap().push(seen(report));
    let hanging = || async {
        tokio::time::sleep(secs(10)).await;
        Ok::<u32, Failure>(1)
    };
    let call = Operation::new()
        .clock(resilient::TokioClock)
        .on_report(hook)
        .run_async(|_| hanging());
    assert!(timeout(secs(1), call).await.is_err());

    static POLICY: RetryPolicy = RetryPolicy::builder().max_attempts(3).build_const();
    let call = hanging.retry(&POLICY).on_report(hook);
    assert!(timeout(secs(2), call).await.is_err());

    let cut = CUT.lock().unwrap().clone();
    let cancelled = |after: u64| {
        (
            StopReason::Cancelled,
            secs(after),
            vec![(
                AttemptKind::Primary,
                secs(0),
                secs(after),
                Some(FailureKind::Cancelled),
            )],
        )
    };
    assert_eq!(cut, [cancelled(1), cancelled(2)]);
}
