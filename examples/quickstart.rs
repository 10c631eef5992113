//! A flaky provider that times out, then is overloaded, then answers.
//!
//! Run with `cargo run --example quickstart`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::{Attempt, TimedOut, resilient};

/// What the provider can fail with.
#[derive(Debug, thiserror::Error)]
enum ProviderError {
    #[error("request timed out")]
    Timeout,
    #[error("provider overloaded (503)")]
    Transient,
    #[error("invalid request: {0}")]
    BadRequest(String),
}

impl From<TimedOut> for ProviderError {
    fn from(_: TimedOut) -> Self {
        ProviderError::Timeout
    }
}

/// Calls made to the simulated provider.
static CALLS: AtomicU32 = AtomicU32::new(0);

/// The simulated provider: the first call hangs, the second is refused, the
/// third answers. No network involved.
async fn provider(prompt: &str) -> Result<String, ProviderError> {
    if prompt.is_empty() {
        return Err(ProviderError::BadRequest("empty prompt".into()));
    }
    match CALLS.fetch_add(1, Ordering::SeqCst) {
        // Hangs: only the attempt's timeout ends it.
        0 => std::future::pending().await,
        1 => {
            tokio::time::sleep(Duration::from_millis(20)).await;
            Err(ProviderError::Transient)
        }
        _ => {
            tokio::time::sleep(Duration::from_millis(30)).await;
            Ok(format!("Hello! You said {prompt:?}."))
        }
    }
}

#[resilient(
    retries = 3,
    retry_on = [Timeout, Transient],
    backoff = exponential(base = "50ms", max = "1s"),
    timeout = "200ms",
    budget = "2s",
)]
async fn call_provider(prompt: &str, #[attempt] attempt: Attempt) -> Result<String, ProviderError> {
    println!(
        "attempt {} (granted {:?})",
        attempt.number(),
        attempt.deadline().unwrap_or_default()
    );
    provider(prompt).await
}

#[tokio::main]
async fn main() {
    let outcome = call_provider("hi").await;
    println!();
    match outcome.result() {
        Ok(answer) => println!("answer: {answer}"),
        Err(error) => println!("failed: {error}"),
    }
    println!();
    println!("{}", outcome.report());
}
