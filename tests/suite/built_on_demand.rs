//! An operation whose options are all constants is built where it is
//! read: the first attempt runs without it (`Operation::first_attempt`,
//! `__private::first_attempt_async_of`), and a first attempt that fails,
//! or whose value fails validation, goes on through an operation built
//! for the rest. These pin that the rest is the same run: the first
//! attempt's record, the backoff after it, the budget read from `&self`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::{FailureKind, StopReason, TimedOut, ValidationFailed, resilient};

#[derive(Debug, PartialEq, thiserror::Error)]
enum Error {
    #[error("busy")]
    Busy,
    #[error("invalid")]
    Invalid,
    #[error("timed out")]
    TimedOut,
}

impl From<TimedOut> for Error {
    fn from(_: TimedOut) -> Self {
        Error::TimedOut
    }
}

impl From<ValidationFailed> for Error {
    fn from(_: ValidationFailed) -> Self {
        Error::Invalid
    }
}

fn positive(n: &u32) -> bool {
    *n > 0
}

struct Client {
    budget: Duration,
    calls: AtomicU32,
}

impl Client {
    fn new(budget: Duration) -> Self {
        Client {
            budget,
            calls: AtomicU32::new(0),
        }
    }

    /// An invalid value, then an error, then a value.
    #[resilient(retries = 3, retry_on = [Busy, Invalid], backoff = constant("1s"), validate = positive, budget = self.budget)]
    async fn fetch(&self) -> Result<u32, Error> {
        match self.calls.fetch_add(1, Ordering::SeqCst) {
            0 => Ok(0),
            1 => Err(Error::Busy),
            n => Ok(n),
        }
    }

    /// The same, blocking, without a wait between attempts.
    #[resilient(retries = 3, retry_on = [Busy, Invalid], backoff = none, validate = positive, budget = self.budget)]
    fn fetch_blocking(&self) -> Result<u32, Error> {
        match self.calls.fetch_add(1, Ordering::SeqCst) {
            0 => Ok(0),
            1 => Err(Error::Busy),
            n => Ok(n),
        }
    }
}

/// What each attempt of [`Client::fetch`] failed with, if it did.
const FAILED_WITH: [Option<FailureKind>; 3] = [
    Some(FailureKind::Validation),
    Some(FailureKind::Operation),
    None,
];

fn kinds(outcome: &resilient::Outcome<u32, Error>) -> Vec<Option<FailureKind>> {
    let attempts = outcome.report().attempts();
    attempts
        .iter()
        .map(|a| a.error().map(|e| e.kind()))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_first_attempt_failing_validation_goes_on_through_the_rest_of_the_run() {
    let client = Client::new(Duration::from_secs(30));
    let started = tokio::time::Instant::now();
    let outcome = client.fetch().await;
    assert_eq!(kinds(&outcome), FAILED_WITH);
    assert_eq!(outcome.report().delays(), [Duration::from_secs(1); 2]);
    assert_eq!(started.elapsed(), Duration::from_secs(2));
    let attempts = outcome.report().attempts();
    let deadlines: Vec<_> = attempts.iter().map(|a| a.deadline()).collect();
    let left = |secs| Some(Duration::from_secs(secs));
    assert_eq!(deadlines, [left(30), left(29), left(28)]);
    assert_eq!(outcome.into_result(), Ok(2));
}

#[tokio::test(start_paused = true)]
async fn the_budget_read_from_self_ends_the_rest_of_the_run() {
    // One second of budget: the retry after the first wait would start at
    // its end, so the run stops after the first attempt.
    let client = Client::new(Duration::from_secs(1));
    let outcome = client.fetch().await;
    assert_eq!(kinds(&outcome), [Some(FailureKind::Validation)]);
    assert_eq!(outcome.report().stop_reason(), StopReason::BudgetExhausted);
    assert_eq!(outcome.into_result(), Err(Error::Invalid));
}

#[test]
fn a_blocking_first_attempt_failing_validation_goes_on_through_the_rest_of_the_run() {
    let client = Client::new(Duration::from_secs(30));
    let outcome = client.fetch_blocking();
    assert_eq!(kinds(&outcome), FAILED_WITH);
    assert_eq!(outcome.report().delays(), [Duration::ZERO; 2]);
    assert_eq!(outcome.into_result(), Ok(2));
}

// The commonest options are written into a `Recipe`, evaluated by the
// compiler when every value is a constant it can evaluate (literals, a
// `const`, a `static`), or where the function runs when one reads `&self`.
// Each run below is the one the same options give elsewhere.

const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(4);
static SEED: u64 = 11;

static FLAKY_CALLS: AtomicU32 = AtomicU32::new(0);

/// Busy twice, then a value: the schedule of a `Recipe` of constants.
#[resilient(retries = 3, retry_on = [Busy], backoff = constant("1s"), timeout = ATTEMPT_TIMEOUT, budget = "10s", max_elapsed = "9s", min_retries = 1)]
async fn flaky() -> Result<u32, Error> {
    match FLAKY_CALLS.fetch_add(1, Ordering::SeqCst) {
        0 | 1 => Err(Error::Busy),
        n => Ok(n),
    }
}

#[tokio::test(start_paused = true)]
async fn an_async_run_of_constant_values_keeps_its_deadlines_and_schedule() {
    let started = tokio::time::Instant::now();
    let outcome = flaky().await;
    let report = outcome.report();
    assert_eq!(report.name(), "flaky");
    assert_eq!(report.delays(), [Duration::from_secs(1); 2]);
    assert_eq!(started.elapsed(), Duration::from_secs(2));
    // min(timeout, what is left of the budget) at each start (0 s, 1 s and
    // 2 s in): the timeout.
    let deadlines: Vec<_> = report.attempts().iter().map(|a| a.deadline()).collect();
    let secs = |s| Some(Duration::from_secs(s));
    assert_eq!(deadlines, [secs(4), secs(4), secs(4)]);
    assert_eq!(outcome.into_result(), Ok(2));
}

#[resilient(retries = 1, backoff = constant("500ms"), timeout = "2s", budget = "3s")]
async fn stalls() -> Result<u32, Error> {
    std::future::pending().await
}

#[tokio::test(start_paused = true)]
async fn an_async_run_of_constant_values_cuts_each_attempt_within_its_budget() {
    let outcome = stalls().await;
    let report = outcome.report();
    let deadlines: Vec<_> = report.attempts().iter().map(|a| a.deadline()).collect();
    // The retry, after half a second's wait, is granted what is left of
    // the three seconds: less than the timeout.
    assert_eq!(report.delays(), [Duration::from_millis(500)]);
    assert_eq!(
        deadlines,
        [
            Some(Duration::from_secs(2)),
            Some(Duration::from_millis(500))
        ]
    );
    assert_eq!(kinds(&outcome), [Some(FailureKind::Timeout); 2]);
    assert_eq!(outcome.into_result(), Err(Error::TimedOut));
}

struct Paced {
    timeout: Duration,
    calls: AtomicU32,
}

impl Paced {
    /// Timed out by the deadline read from `&self`, then a value.
    #[resilient(retries = 2, retry_on = [TimedOut], backoff = constant("500ms"), timeout = self.timeout)]
    async fn get(&self) -> Result<u32, Error> {
        if self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            std::future::pending::<()>().await;
        }
        Ok(7)
    }
}

#[tokio::test(start_paused = true)]
async fn an_async_run_reading_its_timeout_from_self_cuts_at_it() {
    let paced = Paced {
        timeout: Duration::from_millis(300),
        calls: AtomicU32::new(0),
    };
    let started = tokio::time::Instant::now();
    let outcome = paced.get().await;
    let report = outcome.report();
    let deadlines: Vec<_> = report.attempts().iter().map(|a| a.deadline()).collect();
    assert_eq!(deadlines, [Some(Duration::from_millis(300)); 2]);
    assert_eq!(report.delays(), [Duration::from_millis(500)]);
    assert_eq!(started.elapsed(), Duration::from_millis(800));
    assert_eq!(kinds(&outcome), [Some(FailureKind::Timeout), None]);
    assert_eq!(outcome.into_result(), Ok(7));
}

static SEEDED_CALLS: AtomicU32 = AtomicU32::new(0);

/// Always busy: three jittered waits, seeded by a `static`.
#[resilient(retries = 3, retry_on = [Busy], backoff = exponential(base = "100ms", max = "10s"), jitter_seed = SEED)]
async fn seeded() -> Result<u32, Error> {
    SEEDED_CALLS.fetch_add(1, Ordering::SeqCst);
    Err(Error::Busy)
}

#[tokio::test(start_paused = true)]
async fn a_run_of_constant_values_waits_the_schedule_its_seed_gives() {
    let outcome = seeded().await;
    // The same settings on an operation built by hand give the same
    // jittered waits.
    let expected = resilient::Operation::new()
        .max_attempts(4)
        .backoff(resilient::Backoff::exponential(
            Duration::from_millis(100),
            Duration::from_secs(10),
        ))
        .jitter_seed(SEED)
        .clock(resilient::TokioClock)
        .run_async(|_| async { Err::<u32, _>(Error::Busy) })
        .await;
    let delays = outcome.report().delays();
    assert_eq!(delays.len(), 3);
    assert_eq!(delays, expected.report().delays());
    assert_eq!(SEEDED_CALLS.load(Ordering::SeqCst), 4);
    assert_eq!(outcome.into_result(), Err(Error::Busy));
}
