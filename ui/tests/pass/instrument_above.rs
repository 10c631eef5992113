//! `#[tracing::instrument(err)]` above `#[resilient]`: each attempt is
//! instrumented and its error logged, and the function returns the
//! `Outcome`.
#![deny(warnings)]

use resilient::{Attempt, resilient};

#[derive(Debug, thiserror::Error)]
#[error("busy")]
struct Busy;

#[tracing::instrument(err)]
#[resilient(retries = 2, backoff = none)]
async fn price(sku: u32, #[attempt] attempt: Attempt) -> Result<u32, Busy> {
    if attempt.number() < 3 {
        Err(Busy)
    } else {
        Ok(sku)
    }
}

#[tracing::instrument(err)]
#[resilient(retries = 1, backoff = none)]
fn stock(sku: u32, #[attempt] attempt: Attempt) -> Result<u32, Busy> {
    if attempt.number() < 2 {
        Err(Busy)
    } else {
        Ok(sku % 10)
    }
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let outcome = price(7).await;
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.into_result().unwrap(), 7);
    assert_eq!(stock(42).into_result().unwrap(), 2);
}
