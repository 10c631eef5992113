//! `timing = false`: the report keeps counts, kinds, errors, retryable
//! flags and the delays decided, the waits still happen, and no time is
//! measured: every offset, duration and the elapsed time are zero.

use std::time::Duration;

use resilient::{Attempt, AttemptKind, DelaySource, FailureKind, FakeClock, StopReason, resilient};

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[derive(Debug, PartialEq, thiserror::Error)]
enum SyncError {
    #[error("busy")]
    Busy,
    #[error("conflict")]
    Conflict,
}

#[resilient(
    retries = 3,
    retry_on = [Busy],
    backoff = exponential(base = "1s", jitter = none),
    clock = clock,
    timing = false,
    fallback = last_known,
)]
fn sync_inventory(clock: &FakeClock, #[attempt] attempt: Attempt) -> Result<u32, SyncError> {
    // Each attempt takes 5 s on the clock, which the report never reads.
    clock.advance(secs(5));
    match attempt.number() {
        1 | 2 => Err(SyncError::Busy),
        _ => Err(SyncError::Conflict),
    }
}

fn last_known(clock: &FakeClock) -> Result<u32, SyncError> {
    clock.advance(secs(5));
    Ok(7)
}

#[test]
fn a_blocking_fn_records_everything_but_time() {
    let clock = FakeClock::new();
    let outcome = sync_inventory(&clock);
    let report = outcome.report();

    assert_eq!(report.attempt_count(), 4);
    assert_eq!(report.retry_count(), 2);
    assert_eq!(report.stop_reason(), StopReason::NotRetryable);
    assert!(report.fallback_used());
    let records: Vec<_> = report
        .attempts()
        .iter()
        .map(|r| {
            let error = r
                .error()
                .map(|e| (e.kind(), e.retryable(), e.message().to_owned()));
            (r.number(), r.kind(), error)
        })
        .collect();
    let failed = |retryable, text: &str| Some((FailureKind::Operation, retryable, text.to_owned()));
    assert_eq!(
        records,
        [
            (1, AttemptKind::Primary, failed(true, "busy")),
            (2, AttemptKind::Primary, failed(true, "busy")),
            (3, AttemptKind::Primary, failed(false, "conflict")),
            (4, AttemptKind::Fallback, None),
        ]
    );

    // The waits are decided and slept as usual…
    assert_eq!(report.delays(), [secs(1), secs(2)]);
    assert_eq!(clock.slept(), [secs(1), secs(2)]);
    let sources: Vec<_> = report
        .attempts()
        .iter()
        .filter_map(|r| r.delay_before().map(|d| d.source()))
        .collect();
    assert_eq!(sources, [DelaySource::Backoff; 2]);
    // …while 23 s passed on the clock, and the report measured none of it.
    assert_eq!(clock.elapsed(), secs(23));
    assert_eq!(report.elapsed(), Duration::ZERO);
    for record in report.attempts() {
        assert_eq!(
            (record.started_at(), record.elapsed(), record.deadline()),
            (Duration::ZERO, Duration::ZERO, None)
        );
    }
    assert_eq!(outcome.into_result(), Ok(7));
}

#[resilient(retries = 2, backoff = constant("2s"), timing = false)]
async fn sync_async(#[attempt] attempt: Attempt) -> Result<u32, SyncError> {
    tokio::time::sleep(secs(1)).await;
    if attempt.number() < 3 {
        Err(SyncError::Busy)
    } else {
        Ok(attempt.number())
    }
}

#[tokio::test(start_paused = true)]
async fn an_async_fn_waits_on_tokios_clock_and_measures_nothing() {
    let start = tokio::time::Instant::now();
    let outcome = sync_async().await;
    assert_eq!(start.elapsed(), secs(7));
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 3);
    assert_eq!(report.retry_count(), 2);
    assert_eq!(report.stop_reason(), StopReason::Succeeded);
    assert_eq!(report.delays(), [secs(2), secs(2)]);
    assert_eq!(report.elapsed(), Duration::ZERO);
    let times: Vec<_> = report
        .attempts()
        .iter()
        .map(|r| (r.started_at(), r.elapsed()))
        .collect();
    assert_eq!(times, [(Duration::ZERO, Duration::ZERO); 3]);
    assert_eq!(outcome.into_result(), Ok(3));
}
