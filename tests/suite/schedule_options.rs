//! `jitter_seed` makes the attribute's jittered schedule exact, and a
//! Retry-After hint on an error that isn't retried is ignored.

use resilient::{Backoff, FakeClock, Jitter, Operation, StopReason, resilient};
use std::time::Duration;

#[derive(Debug, PartialEq, thiserror::Error)]
enum ApiError {
    #[error("busy")]
    Busy,
    #[error("rate limited")]
    RateLimited,
}

#[resilient(retries = 4, backoff = exponential(base = "100ms", max = "10s"), jitter_seed = 42, clock = clock)]
fn seeded(clock: &FakeClock) -> Result<(), ApiError> {
    Err(ApiError::Busy)
}

#[resilient(retries = 4, backoff = exponential(base = "100ms", max = "10s"), jitter_seed = 43, clock = clock)]
fn seeded_otherwise(clock: &FakeClock) -> Result<(), ApiError> {
    Err(ApiError::Busy)
}

/// The schedule the engine draws with `seed`: what `Operation::jitter_seed`
/// gives, so the attribute's must be the same.
fn schedule_with(seed: u64) -> Vec<Duration> {
    let clock = FakeClock::new();
    let _ = Operation::new()
        .max_attempts(5)
        .backoff(
            Backoff::exponential(Duration::from_millis(100), Duration::from_secs(10))
                .jitter(Jitter::Full),
        )
        .jitter_seed(seed)
        .clock(&clock)
        .run(|_| Err::<(), _>(ApiError::Busy));
    clock.slept()
}

#[test]
fn jitter_seed_makes_the_jittered_schedule_exact() {
    let clock = FakeClock::new();
    let outcome = seeded(&clock);
    assert_eq!(outcome.report().attempt_count(), 5);
    let expected = schedule_with(42);
    assert_eq!(clock.slept(), expected);
    assert_eq!(outcome.report().delays(), expected);

    let again = FakeClock::new();
    let _ = seeded(&again);
    assert_eq!(again.slept(), expected, "the same seed, the same schedule");

    let other = FakeClock::new();
    let _ = seeded_otherwise(&other);
    assert_eq!(other.slept(), schedule_with(43));
    assert_ne!(other.slept(), expected);
}

fn retry_after(error: &ApiError) -> Option<Duration> {
    (*error == ApiError::RateLimited).then_some(Duration::from_secs(5))
}

// `RateLimited` has a hint, but isn't in `retry_on`.
#[resilient(retries = 3, retry_on = [Busy], rate_limit = retry_after, clock = clock)]
fn hinted(clock: &FakeClock) -> Result<(), ApiError> {
    Err(ApiError::RateLimited)
}

#[test]
fn a_retry_after_hint_on_an_error_that_is_not_retried_is_ignored() {
    let clock = FakeClock::new();
    let outcome = hinted(&clock);
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(clock.slept(), [], "no wait for the hint");
    assert_eq!(outcome.into_result(), Err(ApiError::RateLimited));
}
