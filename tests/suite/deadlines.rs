//! Deadlines across calls: a resilient call made inside another's attempt
//! grants none of its attempts more than that attempt has left, starts none
//! once nothing is left, and says in its report that the deadline was
//! inherited; `deadline::remaining()` reads it from the body.

use std::time::Duration;

use resilient::{
    Attempt, FailureKind, FakeClock, Outcome, StopReason, TimedOut, deadline, resilient,
};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum CallError {
    #[error("transient")]
    Transient,
    #[error("timed out")]
    TimedOut,
}

impl From<TimedOut> for CallError {
    fn from(_: TimedOut) -> Self {
        CallError::TimedOut
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Each attempt's deadline, and whether it was inherited.
fn grants<T, E>(outcome: &Outcome<T, E>) -> Vec<(Option<Duration>, bool)> {
    outcome
        .report()
        .attempts()
        .iter()
        .map(|a| (a.deadline(), a.deadline_inherited()))
        .collect()
}

// ---- async, paused time -------------------------------------------------------

/// Fails after 400 ms, whatever it is granted; its own timeout is 10 s.
#[resilient(retries = 2, backoff = constant("100ms"), timeout = "10s")]
async fn inner(#[attempt] attempt: Attempt) -> Result<Option<Duration>, CallError> {
    let _ = attempt;
    tokio::time::sleep(ms(400)).await;
    Err(CallError::Transient)
}

/// Spends 500 ms of its 2 s budget, then calls `inner`.
#[resilient(budget = "2s")]
async fn outer() -> Result<Outcome<Option<Duration>, CallError>, CallError> {
    assert_eq!(deadline::remaining(), Some(ms(2000)));
    tokio::time::sleep(ms(500)).await;
    assert_eq!(deadline::remaining(), Some(ms(1500)));
    Ok(inner().await)
}

#[tokio::test(start_paused = true)]
async fn an_inner_call_is_granted_what_its_callers_attempt_has_left() {
    assert_eq!(deadline::remaining(), None);
    let outer = outer().await;
    let inner = outer.into_result().unwrap();
    // Started at 0.5 s, 0.4 s per attempt and 0.1 s between them: each is
    // granted what is left of the caller's 2 s, never its own 10 s.
    assert_eq!(
        grants(&inner),
        [
            (Some(ms(1500)), true),
            (Some(ms(1000)), true),
            (Some(ms(500)), true),
        ]
    );
    assert_eq!(inner.report().stop_reason(), StopReason::AttemptsExhausted);
    assert_eq!(deadline::remaining(), None);
}

#[tokio::test(start_paused = true)]
async fn a_servers_budget_bounds_what_the_handler_calls() {
    use resilient::TokioClock;
    use resilient::deadline::header::{Format, budget_from};
    // The request asks for 1.2 s, under the server's cap of 5 s; the
    // handler spends 100 ms before it calls `inner`.
    let budget = budget_from(Some(b"1200m"), Format::GrpcTimeout, Duration::from_secs(5));
    let inner = deadline::with_budget(&TokioClock, budget, async {
        tokio::time::sleep(ms(100)).await;
        assert_eq!(deadline::remaining(), Some(ms(1100)));
        inner().await
    })
    .await;
    // 0.4 s per attempt and 0.1 s between them, out of what was left.
    assert_eq!(
        grants(&inner),
        [
            (Some(ms(1100)), true),
            (Some(ms(600)), true),
            (Some(ms(100)), true)
        ]
    );
    assert_eq!(deadline::remaining(), None);
    // Inside an attempt, a budget never grants more than the attempt has left.
    let outcome = resilient::Operation::new()
        .clock(TokioClock)
        .timeout(ms(300))
        .run_async(async |_| {
            let widened = deadline::with_budget(&TokioClock, Duration::from_secs(60), async {
                deadline::remaining()
            });
            Ok::<_, CallError>(widened.await)
        })
        .await;
    assert_eq!(outcome.into_result(), Ok(Some(ms(300))));
}

/// Hangs: only its deadline ends it.
#[resilient(retries = 3, backoff = constant("100ms"), timeout = "10s")]
async fn hanging() -> Result<(), CallError> {
    std::future::pending::<()>().await;
    Ok(())
}

/// Calls `hanging` at once, with 1 s to give it.
#[resilient(timeout = "1s")]
async fn impatient() -> Result<Outcome<(), CallError>, CallError> {
    Ok(hanging().await)
}

#[tokio::test(start_paused = true)]
async fn an_inner_call_is_cut_at_its_callers_deadline_and_retries_nothing_past_it() {
    let start = tokio::time::Instant::now();
    let outer = impatient().await;
    // The inner call ended by the caller's deadline, before the caller was
    // cut: the caller's result is the inner call's outcome.
    let inner = outer.into_result().unwrap();
    assert_eq!(start.elapsed(), ms(1000));
    assert_eq!(inner.result(), &Err(CallError::TimedOut));
    assert_eq!(grants(&inner), [(Some(ms(1000)), true)]);
    assert_eq!(
        inner.report().attempts()[0].error().unwrap().kind(),
        FailureKind::Timeout
    );
    assert_eq!(inner.report().stop_reason(), StopReason::BudgetExhausted);
}

/// What an attempt was granted, and what it read as remaining.
type Seen = (Option<Duration>, Option<Duration>);

/// No deadline of its own, the attribute's fastest shape.
#[resilient(retries = 1)]
async fn plain(
    #[attempt] attempt: Attempt,
) -> Result<(Option<Duration>, Option<Duration>), CallError> {
    Ok((attempt.deadline(), deadline::remaining()))
}

#[resilient(timeout = "3s")]
async fn around_plain() -> Result<Outcome<Seen, CallError>, CallError> {
    tokio::time::sleep(ms(250)).await;
    Ok(plain().await)
}

#[tokio::test(start_paused = true)]
async fn a_call_without_a_deadline_of_its_own_inherits_one_and_alone_has_none() {
    let inner = around_plain().await.into_result().unwrap();
    assert_eq!(inner.result(), &Ok((Some(ms(2750)), Some(ms(2750)))));
    assert_eq!(grants(&inner), [(Some(ms(2750)), true)]);

    let alone = plain().await;
    assert_eq!(alone.result(), &Ok((None, None)));
    assert_eq!(grants(&alone), [(None, false)]);
}

#[resilient(budget = "3s")]
async fn spawner() -> Result<Seen, CallError> {
    let carried = tokio::spawn(deadline::carry(async { deadline::remaining() }));
    let bare = tokio::spawn(async { deadline::remaining() });
    Ok((carried.await.unwrap(), bare.await.unwrap()))
}

#[tokio::test(start_paused = true)]
async fn a_spawned_task_inherits_nothing_unless_carried() {
    let outcome = spawner().await;
    assert_eq!(outcome.into_result(), Ok((Some(ms(3000)), None)));
}

// ---- blocking, FakeClock ------------------------------------------------------

#[resilient(retries = 2, backoff = constant("100ms"), budget = "5s", clock = clock)]
fn blocking_inner(
    clock: &FakeClock,
    #[attempt] attempt: Attempt,
) -> Result<Option<Duration>, CallError> {
    clock.advance(ms(300));
    if attempt.number() < 3 {
        Err(CallError::Transient)
    } else {
        Ok(attempt.deadline())
    }
}

#[resilient(budget = "2s", clock = clock)]
fn blocking_outer(
    clock: &FakeClock,
    spend: Duration,
) -> Result<Outcome<Option<Duration>, CallError>, CallError> {
    clock.advance(spend);
    Ok(blocking_inner(clock))
}

#[test]
fn a_blocking_inner_call_is_granted_what_is_left_as_time_passes() {
    let clock = FakeClock::new();
    let inner = blocking_outer(&clock, ms(800)).into_result().unwrap();
    // 1.2 s left at 0.8 s; 0.3 s per attempt and 0.1 s between them.
    assert_eq!(
        grants(&inner),
        [
            (Some(ms(1200)), true),
            (Some(ms(800)), true),
            (Some(ms(400)), true),
        ]
    );
    assert_eq!(inner.result(), &Ok(Some(ms(400))));
    assert_eq!(clock.slept(), [ms(100), ms(100)]);
}

#[test]
fn a_blocking_inner_call_starts_no_attempt_once_nothing_is_left() {
    let clock = FakeClock::new();
    let inner = blocking_outer(&clock, ms(2000)).into_result().unwrap();
    assert_eq!(inner.result(), &Err(CallError::TimedOut));
    assert_eq!(inner.report().stop_reason(), StopReason::BudgetExhausted);
    let attempts = inner.report().attempts();
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0].error().unwrap().kind(), FailureKind::Timeout);
    // The body never ran: the clock moved only by the caller's 2 s.
    assert_eq!(clock.elapsed(), ms(2000));
}

#[test]
fn a_blocking_call_alone_inherits_nothing() {
    let clock = FakeClock::new();
    let alone = blocking_inner(&clock);
    assert_eq!(
        grants(&alone),
        [
            (Some(ms(5000)), false),
            (Some(ms(4600)), false),
            (Some(ms(4200)), false),
        ]
    );
}

/// No deadline of its own, and hangs.
#[resilient(retries = 2, backoff = none)]
async fn hanging_plain() -> Result<(), CallError> {
    std::future::pending::<()>().await;
    Ok(())
}

#[resilient(timeout = "1s")]
async fn around_hanging_plain() -> Result<Outcome<(), CallError>, CallError> {
    tokio::time::sleep(ms(400)).await;
    Ok(hanging_plain().await)
}

#[tokio::test(start_paused = true)]
async fn a_call_without_a_timeout_is_cut_at_the_deadline_it_inherited() {
    let start = tokio::time::Instant::now();
    let inner = around_hanging_plain().await.into_result().unwrap();
    assert_eq!(start.elapsed(), ms(1000));
    assert_eq!(inner.result(), &Err(CallError::TimedOut));
    assert_eq!(grants(&inner), [(Some(ms(600)), true)]);
    assert_eq!(inner.report().stop_reason(), StopReason::BudgetExhausted);
}
