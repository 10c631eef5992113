//! `retry_after`, `max_retry_after_wait` and `max_retry_after_retries` were
//! `rate_limit`, `max_rate_limit_wait` and `max_rate_limit_retries`: under
//! either name each takes the server's hint the same way, and a call waits
//! the same schedule, on a `FakeClock` and on tokio's paused clock.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::{DelaySource, ExecutionReport, FakeClock, Outcome, StopReason, resilient};

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// A 429 whose Retry-After grows by a second with each call: 1 s, 2 s, …
#[derive(Debug, thiserror::Error)]
#[error("429: retry after {0:?}")]
struct TooManyRequests(Duration);

fn hint(error: &TooManyRequests) -> Option<Duration> {
    Some(error.0)
}

fn too_many(calls: &AtomicU32) -> Result<(), TooManyRequests> {
    let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
    Err(TooManyRequests(secs(u64::from(call))))
}

/// The waits before each attempt, each with where it came from, and why
/// the call stopped.
fn schedule(report: &ExecutionReport) -> (Vec<Duration>, Vec<DelaySource>, StopReason) {
    let sources = report
        .attempts()
        .iter()
        .filter_map(|attempt| attempt.delay_before().map(|delay| delay.source()))
        .collect();
    (report.delays(), sources, report.stop_reason())
}

// ---- the number of hinted waits ---------------------------------------------

#[resilient(retry_after = hint, max_retry_after_retries = 2, clock = clock)]
fn counted(clock: &FakeClock, calls: &AtomicU32) -> Result<(), TooManyRequests> {
    too_many(calls)
}

#[resilient(rate_limit = hint, max_rate_limit_retries = 2, clock = clock)]
fn counted_by_the_old_names(clock: &FakeClock, calls: &AtomicU32) -> Result<(), TooManyRequests> {
    too_many(calls)
}

/// A call of `too_many` capped after two hinted waits, by their number
/// or by their total: it waits 1 s, then 2 s, and stops there.
fn waits_twice_then_stops(call: fn(&FakeClock, &AtomicU32) -> Outcome<(), TooManyRequests>) {
    let (clock, calls) = (FakeClock::new(), AtomicU32::new(0));
    let outcome = call(&clock, &calls);
    assert_eq!(
        schedule(outcome.report()),
        (
            vec![secs(1), secs(2)],
            vec![DelaySource::RetryAfter; 2],
            StopReason::RateLimitExhausted
        )
    );
    assert_eq!(clock.slept(), [secs(1), secs(2)]);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[test]
fn max_retry_after_retries_caps_the_hinted_waits_as_max_rate_limit_retries_did() {
    waits_twice_then_stops(counted);
    waits_twice_then_stops(counted_by_the_old_names);
}

// ---- the total of the hinted waits ------------------------------------------

#[resilient(retry_after = hint, max_retry_after_wait = "4s", clock = clock)]
fn bounded(clock: &FakeClock, calls: &AtomicU32) -> Result<(), TooManyRequests> {
    too_many(calls)
}

#[resilient(rate_limit = hint, max_rate_limit_wait = "4s", clock = clock)]
fn bounded_by_the_old_names(clock: &FakeClock, calls: &AtomicU32) -> Result<(), TooManyRequests> {
    too_many(calls)
}

/// 1 s and 2 s fit in 4 s; 3 s more would not.
#[test]
fn max_retry_after_wait_caps_the_hinted_waits_as_max_rate_limit_wait_did() {
    waits_twice_then_stops(bounded);
    waits_twice_then_stops(bounded_by_the_old_names);
}

// ---- async, on tokio's paused clock -----------------------------------------

#[derive(Debug, thiserror::Error)]
#[error("429")]
struct Busy;

fn two_seconds(_: &Busy) -> Option<Duration> {
    Some(secs(2))
}

async fn busy_twice(calls: &AtomicU32) -> Result<u32, Busy> {
    match calls.fetch_add(1, Ordering::SeqCst) {
        0 | 1 => Err(Busy),
        call => Ok(call + 1),
    }
}

#[resilient(retries = 1, retry_after = two_seconds, max_retry_after_wait = "10s", max_retry_after_retries = 5)]
async fn hinted(calls: &AtomicU32) -> Result<u32, Busy> {
    busy_twice(calls).await
}

#[resilient(retries = 1, rate_limit = two_seconds, max_rate_limit_wait = "10s", max_rate_limit_retries = 5)]
async fn hinted_by_the_old_names(calls: &AtomicU32) -> Result<u32, Busy> {
    busy_twice(calls).await
}

// Mixed: each option is one name or the other.
#[resilient(retries = 1, rate_limit = two_seconds, max_retry_after_wait = "10s", max_rate_limit_retries = 5)]
async fn hinted_by_both_names(calls: &AtomicU32) -> Result<u32, Busy> {
    busy_twice(calls).await
}

#[tokio::test(start_paused = true)]
async fn an_async_call_waits_the_hint_under_either_name() {
    for round in 0..3 {
        let calls = AtomicU32::new(0);
        let start = tokio::time::Instant::now();
        let outcome = match round {
            0 => hinted(&calls).await,
            1 => hinted_by_the_old_names(&calls).await,
            _ => hinted_by_both_names(&calls).await,
        };
        // Two hinted waits, though `retries = 1`: they spend none of it.
        assert_eq!(
            schedule(outcome.report()),
            (
                vec![secs(2), secs(2)],
                vec![DelaySource::RetryAfter; 2],
                StopReason::Succeeded
            ),
            "round {round}"
        );
        assert_eq!(start.elapsed(), secs(4), "round {round}");
        assert_eq!(outcome.into_result().unwrap(), 3);
    }
}

// ---- the builders' old names, deprecated -----------------------------------

/// The old names of the builders still build the same operation, as
/// deprecated aliases: `Operation::rate_limit`, `max_rate_limit_wait`,
/// `max_rate_limit_retries`, the `Hint` layer and the `RateLimit` bound.
#[test]
#[allow(deprecated)]
fn the_builders_old_names_are_deprecated_aliases_of_the_new() {
    use resilient::hooks::{Hint, Hooks};
    use resilient::{Operation, RateLimit};

    type Hinter = fn(&TooManyRequests) -> Option<Duration>;
    type Old<'c> = Operation<'c, (), TooManyRequests, &'c FakeClock, Hint<Hinter, Hooks>>;

    fn hinted<H: RateLimit<TooManyRequests>>(
        hint: &H,
        error: &TooManyRequests,
    ) -> Option<Duration> {
        hint.retry_after(error)
    }

    let run = |old: bool| {
        let clock = FakeClock::new();
        let calls = AtomicU32::new(0);
        let op = Operation::new().clock(&clock);
        let outcome = if old {
            let op: Old<'_> = op.rate_limit(hint as Hinter);
            op.max_rate_limit_wait(secs(4))
                .max_rate_limit_retries(5)
                .run(|_| too_many(&calls))
        } else {
            op.retry_after(hint as Hinter)
                .max_retry_after_wait(secs(4))
                .max_retry_after_retries(5)
                .run(|_| too_many(&calls))
        };
        (schedule(outcome.report()), clock.slept())
    };
    assert_eq!(run(true), run(false));
    // 1 s and 2 s fit in 4 s; a third wait of 3 s would not.
    assert_eq!(run(true).1, [secs(1), secs(2)]);
    assert_eq!(hinted(&hint, &TooManyRequests(secs(7))), Some(secs(7)));
}
