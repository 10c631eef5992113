//! A fallback sees the error that ended the attempts, and `fallback_on` /
//! `fallback_if` choose the errors it answers: any other is returned as it
//! is, and the report says that no fallback ran.

use resilient::{Attempt, AttemptKind, StopReason, resilient};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum ShopError {
    #[error("upstream unavailable")]
    Unavailable,
    #[error("{0} not found")]
    NotFound(u32),
    #[error("nothing cached for {0}")]
    NothingCached(u32),
}

fn stock_of(id: u32) -> Result<u32, ShopError> {
    match id {
        404 => Err(ShopError::NotFound(id)),
        _ => Err(ShopError::Unavailable),
    }
}

// The fallback answers an outage from the cache, and passes any other
// error on: a 404 stays a 404.
fn cached(id: u32, error: &ShopError) -> Result<u32, ShopError> {
    match error {
        ShopError::Unavailable if id == 7 => Ok(3),
        ShopError::Unavailable => Err(ShopError::NothingCached(id)),
        other => Err(other.clone()),
    }
}

#[resilient(retries = 1, retry_on = [Unavailable], backoff = none, fallback = cached)]
fn stock(id: u32) -> Result<u32, ShopError> {
    stock_of(id)
}

#[test]
fn a_fallback_sees_the_error_that_ended_the_attempts() {
    let outcome = stock(7);
    assert_eq!(outcome.report().attempt_count(), 3);
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.into_result(), Ok(3));

    let outcome = stock(404);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.into_result(), Err(ShopError::NotFound(404)));
}

// The error, then the attempt, in an async fallback that borrows the error
// across an await.
async fn cached_async(id: &str, error: &ShopError, attempt: Attempt) -> Result<String, ShopError> {
    tokio::task::yield_now().await;
    Ok(format!(
        "{id}: {error} (fallback attempt {})",
        attempt.number()
    ))
}

#[resilient(retries = 1, backoff = none, fallback = cached_async)]
async fn price(id: &str) -> Result<String, ShopError> {
    Err(ShopError::Unavailable)
}

#[tokio::test(start_paused = true)]
async fn an_async_fallback_takes_the_error_then_the_attempt() {
    let outcome = price("kettle").await;
    let kinds: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|a| a.kind())
        .collect();
    assert_eq!(
        kinds,
        [
            AttemptKind::Primary,
            AttemptKind::Primary,
            AttemptKind::Fallback
        ]
    );
    assert_eq!(
        outcome.into_result().unwrap(),
        "kettle: upstream unavailable (fallback attempt 3)"
    );
}

fn from_cache(id: u32) -> Result<u32, ShopError> {
    Ok(id % 10)
}

#[resilient(retries = 1, backoff = none, fallback = from_cache, fallback_on = [Unavailable])]
fn on_outage(id: u32) -> Result<u32, ShopError> {
    stock_of(id)
}

#[test]
fn fallback_on_answers_the_variants_listed_only() {
    let outcome = on_outage(404);
    assert_eq!(outcome.report().attempt_count(), 2);
    assert!(!outcome.report().fallback_used(), "a 404 is not an outage");
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
    assert_eq!(outcome.into_result(), Err(ShopError::NotFound(404)));

    let outcome = on_outage(17);
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.into_result(), Ok(7));
}

fn is_outage(error: &ShopError) -> bool {
    matches!(error, ShopError::Unavailable)
}

async fn from_cache_async(id: u32) -> Result<u32, ShopError> {
    Ok(id % 10)
}

#[resilient(retries = 2, backoff = none, fallback = [from_cache_async], fallback_if = is_outage)]
async fn if_outage(id: u32) -> Result<u32, ShopError> {
    stock_of(id)
}

#[tokio::test(start_paused = true)]
async fn fallback_if_answers_the_errors_its_test_selects_only() {
    let outcome = if_outage(404).await;
    assert!(!outcome.report().fallback_used());
    assert_eq!(outcome.report().attempt_count(), 3);
    assert!(
        outcome
            .report()
            .attempts()
            .iter()
            .all(|a| a.kind() == AttemptKind::Primary),
        "no fallback record"
    );
    assert_eq!(outcome.into_result(), Err(ShopError::NotFound(404)));

    let outcome = if_outage(23).await;
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.into_result(), Ok(3));
}
