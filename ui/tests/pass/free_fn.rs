#![deny(warnings)]

use resilient::{FakeClock, StopReason, resilient};
use std::cell::Cell;
use std::time::Duration;

#[derive(Debug, PartialEq, thiserror::Error)]
enum FetchError {
    #[error("timed out")]
    Timeout,
    #[error("not found")]
    NotFound,
}

#[resilient]
fn once() -> Result<u32, FetchError> {
    Ok(1)
}

#[resilient(retries = 3, retry_on = [Timeout], backoff = constant("1s"), clock = clock.clone())]
fn flaky(clock: &FakeClock, calls: &Cell<u32>) -> Result<u32, FetchError> {
    calls.set(calls.get() + 1);
    if calls.get() < 3 {
        Err(FetchError::Timeout)
    } else {
        Ok(calls.get())
    }
}

#[resilient(retries = 3, retry_on = [FetchError::Timeout], clock = clock.clone())]
fn missing(clock: &FakeClock) -> Result<u32, FetchError> {
    Err(FetchError::NotFound)
}

#[test]
fn runs() {
    let outcome = once();
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.into_result(), Ok(1));

    let clock = FakeClock::new();
    let calls = Cell::new(0);
    let outcome = flaky(&clock, &calls);
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(clock.slept(), [Duration::from_secs(1); 2]);
    assert_eq!(outcome.into_result(), Ok(3));

    let outcome = missing(&clock);
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
}
