//! `max_records`: a report keeps at most that many attempt records (64 by
//! default), the first half and the latest, with exact counts; so a call
//! that retries for ever keeps constant memory.

use std::time::Duration;

use resilient::{
    AttemptKind, Backoff, FakeClock, Operation, RetryPolicy, Retryable, StopReason, resilient,
};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("busy {0}")]
struct Busy(u32);

fn numbers(report: &resilient::ExecutionReport) -> Vec<u32> {
    report.attempts().iter().map(|a| a.number()).collect()
}

#[test]
fn an_unbounded_call_keeps_64_records_by_default_and_counts_every_attempt() {
    static FOREVER: RetryPolicy = RetryPolicy::builder()
        .unbounded()
        .backoff(Backoff::constant(Duration::from_millis(1)))
        .budget(Duration::from_secs(3600))
        .build_const();
    let mut calls = 0;
    let outcome = (|| {
        calls += 1;
        if calls < 32_768 {
            Err(Busy(calls))
        } else {
            Ok(calls)
        }
    })
    .retry(&FOREVER)
    .clock(FakeClock::new())
    .call();
    let report = outcome.report();
    assert_eq!(outcome.result(), &Ok(32_768));
    assert_eq!(report.attempts().len(), 64);
    let expected: Vec<u32> = (1..=32).chain(32_737..=32_768).collect();
    assert_eq!(numbers(report), expected);
    assert_eq!(
        (report.attempt_count(), report.retry_count()),
        (32_768, 32_767)
    );
    assert_eq!(report.records_left_out(), 32_768 - 64);
    // The records kept are the attempts' own: the 33rd kept is 32 737's.
    let error = report.attempts()[32].error().expect("it failed");
    assert_eq!(error.message(), "Busy(32737)");
    assert_eq!(
        report.attempts()[32].delay_before().map(|d| d.duration()),
        Some(Duration::from_millis(1))
    );
    assert_eq!(report.stop_reason(), StopReason::Succeeded);
}

#[test]
fn operation_takes_max_records_and_the_table_and_json_say_what_was_left_out() {
    let outcome = Operation::new()
        .name("poll")
        .max_attempts(10)
        .max_records(3)
        .backoff(Backoff::constant(Duration::from_millis(5)))
        .clock(FakeClock::new())
        .run(|attempt| Err::<(), _>(Busy(attempt.number())));
    let report = outcome.report();
    assert_eq!(numbers(report), [1, 9, 10]);
    assert_eq!(report.records_left_out(), 7);
    let table = report.to_string();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[1].starts_with("  1  primary"), "{table}");
    assert_eq!(
        lines[2], "  …  7 attempt(s) left out of the report",
        "{table}"
    );
    assert!(lines[3].starts_with("  9  primary"), "{table}");
    assert!(
        table.ends_with("poll: 10 attempt(s), 9 retries, 45.0ms, stopped: attempts exhausted"),
        "{table}"
    );
    #[cfg(feature = "serde")]
    {
        let json = serde_json::to_value(report).unwrap();
        assert_eq!(json["records_left_out"], 7);
        assert_eq!(json["attempt_count"], 10);
        assert_eq!(json["attempts"].as_array().map(Vec::len), Some(3));
    }
}

async fn cached() -> Result<u32, Busy> {
    Ok(0)
}

#[resilient(retries = 20, backoff = constant("1s"), hedge = "1s", max_records = 4, fallback = cached)]
async fn hedged(#[attempt] attempt: resilient::Attempt) -> Result<u32, Busy> {
    // A primary fails after 3 s; its hedge, started at 1 s, after 1 s.
    let took = if attempt.number() % 2 == 1 { 3 } else { 1 };
    tokio::time::sleep(Duration::from_secs(took)).await;
    Err(Busy(attempt.number()))
}

#[tokio::test(start_paused = true)]
async fn hedges_and_a_fallback_keep_their_records_and_the_counts_stay_exact() {
    let outcome = hedged().await;
    let report = outcome.report();
    assert_eq!(outcome.result(), &Ok(0));
    // 21 rounds of a primary and a hedge, then the fallback.
    assert_eq!(report.attempt_count(), 43);
    assert_eq!(report.retry_count(), 20);
    let kept: Vec<(u32, AttemptKind)> = report
        .attempts()
        .iter()
        .map(|a| (a.number(), a.kind()))
        .collect();
    assert_eq!(
        kept,
        [
            (1, AttemptKind::Primary),
            (2, AttemptKind::Hedge),
            (42, AttemptKind::Hedge),
            (43, AttemptKind::Fallback)
        ]
    );
    assert_eq!(report.records_left_out(), 39);
    assert!(report.fallback_used());
}
