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

// ---- max_delay: the longest delay before a retry ---------------------------

#[resilient(retries = 3, backoff = constant("1s"), max_delay = "250ms", clock = clock)]
fn capped_constant(clock: &FakeClock) -> Result<(), ApiError> {
    Err(ApiError::Busy)
}

#[resilient(retries = 5, backoff = exponential(base = "100ms", jitter = none), max_delay = "350ms", clock = clock)]
fn capped_exponential(clock: &FakeClock) -> Result<(), ApiError> {
    Err(ApiError::Busy)
}

#[resilient(retries = 4, backoff = exponential(base = "100ms", max_delay = "300ms", jitter = none), clock = clock)]
fn exponential_max_delay(clock: &FakeClock) -> Result<(), ApiError> {
    Err(ApiError::Busy)
}

#[resilient(retries = 4, backoff = exponential(base = "100ms", max = "300ms", jitter = none), clock = clock)]
fn exponential_max(clock: &FakeClock) -> Result<(), ApiError> {
    Err(ApiError::Busy)
}

#[resilient(
    retries = 3,
    backoff = constant("1s"),
    max_delay = "100ms",
    retry_after = |_: &ApiError| Some(Duration::from_secs(2)),
    clock = clock
)]
fn hinted_past_max_delay(clock: &FakeClock) -> Result<(), ApiError> {
    Err(ApiError::RateLimited)
}

#[resilient(retries = 3, backoff = constant("1s"), max_delay = "250ms", jitter_seed = 5)]
async fn capped_async() -> Result<(), ApiError> {
    Err(ApiError::Busy)
}

#[test]
fn max_delay_caps_every_backoff_delay_of_any_backoff() {
    let ms = Duration::from_millis;
    let clock = FakeClock::new();
    let outcome = capped_constant(&clock);
    assert_eq!(clock.slept(), [ms(250); 3]);
    assert_eq!(outcome.report().delays(), [ms(250); 3]);

    let clock = FakeClock::new();
    let _ = capped_exponential(&clock);
    assert_eq!(clock.slept(), [100, 200, 350, 350, 350].map(ms));
}

#[test]
fn max_delay_inside_exponential_is_its_max() {
    let (named, plain) = (FakeClock::new(), FakeClock::new());
    let _ = exponential_max_delay(&named);
    let _ = exponential_max(&plain);
    assert_eq!(
        named.slept(),
        [100, 200, 300, 300].map(Duration::from_millis)
    );
    assert_eq!(named.slept(), plain.slept());
}

#[test]
fn max_delay_leaves_a_retry_after_hint_as_the_server_said() {
    let clock = FakeClock::new();
    let outcome = hinted_past_max_delay(&clock);
    // Hints spend no retries: they run to `max_retry_after_retries`.
    assert_eq!(clock.slept(), [Duration::from_secs(2); 10]);
    assert!(
        outcome
            .report()
            .attempts()
            .iter()
            .filter_map(|a| a.delay_before())
            .all(|d| d.source() == resilient::DelaySource::RetryAfter)
    );
}

#[tokio::test(start_paused = true)]
async fn max_delay_caps_an_async_schedule_before_its_jitter() {
    let outcome = capped_async().await;
    let delays = outcome.report().delays();
    assert_eq!(delays.len(), 3);
    // Full jitter draws from [0, 250 ms], not from [0, 1 s].
    assert!(
        delays.iter().all(|d| *d <= Duration::from_millis(250)),
        "{delays:?}"
    );
}

#[test]
fn a_policy_and_an_operation_take_max_delay_too() {
    let policy = resilient::RetryPolicy::builder()
        .max_attempts(3)
        .backoff(Backoff::constant(Duration::from_secs(5)).jitter(Jitter::None))
        .max_delay(Duration::from_secs(1))
        .build()
        .expect("a valid policy");
    let clock = FakeClock::new();
    let _ = policy.run_with_clock(&clock, |_| Err::<(), _>(ApiError::Busy));
    assert_eq!(clock.slept(), [Duration::from_secs(1); 2]);

    let clock = FakeClock::new();
    let outcome = Operation::new()
        .max_attempts(3)
        .backoff(Backoff::constant(Duration::from_secs(5)).jitter(Jitter::None))
        .max_delay(Duration::from_millis(10))
        .clock(&clock)
        .run(|_| Err::<(), _>(ApiError::Busy));
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
    assert_eq!(clock.slept(), [Duration::from_millis(10); 2]);
}
