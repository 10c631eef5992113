//! An operation whose options are all constants is built where it is
//! read: the first attempt runs without it (`Operation::first_attempt`,
//! `Operation::first_attempt_async_of`), and a first attempt that fails,
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
