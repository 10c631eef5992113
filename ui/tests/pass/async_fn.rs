#![deny(warnings)]

use resilient::{Attempt, TimedOut, resilient};
use std::time::Duration;

#[derive(Debug, PartialEq, thiserror::Error)]
enum ProviderError {
    #[error("timed out")]
    Timeout,
    #[error("overloaded")]
    Transient,
    #[error("bad request: {0}")]
    BadRequest(String),
}

impl From<TimedOut> for ProviderError {
    fn from(_: TimedOut) -> Self {
        ProviderError::Timeout
    }
}

#[resilient(
    retries = 3,
    retry_on = [Timeout, Transient],
    backoff = exponential(base = "100ms", max = "1s", multiplier = 2.0, jitter = none),
    timeout = "5s",
    budget = "30s",
)]
async fn call_provider(prompt: &str, #[attempt] attempt: Attempt) -> Result<String, ProviderError> {
    if attempt.number() < 3 {
        return Err(ProviderError::Transient);
    }
    Ok(format!("echo: {prompt}"))
}

#[resilient(retries = 3, retry_on = [Timeout])]
async fn rejected(prompt: String) -> Result<String, ProviderError> {
    Err(ProviderError::BadRequest(prompt.clone()))
}

fn assert_send<F: Send>(future: F) -> F {
    future
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let outcome = assert_send(call_provider("hi")).await;
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(
        outcome.report().delays(),
        [Duration::from_millis(100), Duration::from_millis(200)]
    );
    assert_eq!(outcome.into_result(), Ok("echo: hi".to_owned()));

    let outcome = rejected("hi".to_owned()).await;
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(
        outcome.into_result(),
        Err(ProviderError::BadRequest("hi".to_owned()))
    );
}
