//! A `FakeClock` drives async attempts too: its deadline timers fire only
//! when virtual time reaches them, never because an attempt yielded.

use std::time::Duration;

use resilient_core::{Backoff, FailureKind, FakeClock, Operation, StopReason};

use crate::common::Fail;

#[tokio::test]
async fn an_attempt_that_yields_is_not_cut_short() {
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .timeout(Duration::from_secs(1))
        .budget(Duration::from_secs(5))
        .clock(&clock)
        .run_async(async |_| {
            for _ in 0..100 {
                tokio::task::yield_now().await;
            }
            Ok::<_, Fail>(7)
        })
        .await;
    assert_eq!(outcome.into_result(), Ok(7));
    assert_eq!(clock.elapsed(), Duration::ZERO);
}

#[tokio::test]
async fn an_attempt_times_out_when_virtual_time_reaches_its_deadline() {
    let clock = FakeClock::new();
    let driver = clock.clone();
    let run = Operation::new()
        .max_attempts(2)
        .backoff(Backoff::constant(Duration::from_secs(1)))
        .timeout(Duration::from_secs(3))
        .clock(&clock)
        .run_async(async |attempt| {
            if attempt.number() == 1 {
                std::future::pending::<()>().await;
            }
            Err::<(), _>(Fail::Transient)
        });
    let advance = async {
        // Let the attempt start and wait, then move time past its deadline.
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        driver.advance(Duration::from_secs(2));
        tokio::task::yield_now().await;
        driver.advance(Duration::from_secs(1));
    };
    let (outcome, ()) = tokio::join!(run, advance);
    let report = outcome.report();
    assert_eq!(outcome.result(), &Err(Fail::Transient));
    assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);
    let first = &report.attempts()[0];
    assert_eq!(first.error().map(|e| e.kind()), Some(FailureKind::Timeout));
    assert_eq!(first.elapsed(), Duration::from_secs(3));
    assert_eq!(
        clock.slept(),
        [Duration::from_secs(1)],
        "the timer is not a sleep"
    );
    assert_eq!(report.attempts()[1].started_at(), Duration::from_secs(4));
}
