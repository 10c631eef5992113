//! `throttle = …` through the attribute: gRPC A6's sequence as calls of an
//! annotated function see it, a shared `Arc` in a field, and an async fn.

use std::sync::Arc;
use std::time::Duration;

use resilient::{FakeClock, RetryThrottle, StopReason, resilient};

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("attempt {0} failed")]
struct Failed(u32);

static THROTTLE: RetryThrottle = RetryThrottle::new(4, 0.1);

#[resilient(retries = 5, backoff = constant("1s"), clock = clock, throttle = &THROTTLE)]
fn failing(clock: &FakeClock, #[attempt] attempt: resilient::Attempt) -> Result<(), Failed> {
    Err(Failed(attempt.number()))
}

#[resilient(retries = 5, throttle = &THROTTLE)]
fn succeeding() -> Result<u32, Failed> {
    Ok(1)
}

#[test]
fn a6_sequence_through_the_attribute() {
    let clock = FakeClock::new();
    let first = failing(&clock);
    // 4 -> 3 (above 2: retry) -> 2 (not above 2: refused).
    assert_eq!(first.report().attempt_count(), 2);
    assert_eq!(first.report().retry_count(), 1);
    assert_eq!(first.report().stop_reason(), StopReason::Throttled);
    assert_eq!(clock.slept(), [secs(1)], "no wait after the refusal");
    assert_eq!(first.into_result(), Err(Failed(2)));
    assert_eq!(THROTTLE.tokens(), 2.0);

    // The first attempt always runs; its failure leaves 1.
    let second = failing(&clock);
    assert_eq!(second.report().attempt_count(), 1);
    assert_eq!(second.report().stop_reason(), StopReason::Throttled);
    assert_eq!(clock.slept(), [secs(1)]);
    assert_eq!(THROTTLE.tokens(), 1.0);

    // Each success adds 0.1: 21 of them lift 1 to 3.1.
    for _ in 0..21 {
        assert_eq!(succeeding().into_result(), Ok(1));
    }
    assert_eq!(THROTTLE.tokens(), 3.1);
    let third = failing(&clock);
    // 3.1 -> 2.1 (retry) -> 1.1 (refused).
    assert_eq!(third.report().attempt_count(), 2);
    assert_eq!(third.report().stop_reason(), StopReason::Throttled);
    assert_eq!(THROTTLE.tokens(), 1.1);
}

/// A client whose throttle is shared with its clones.
#[derive(Clone)]
struct Client {
    throttle: Arc<RetryThrottle>,
}

impl Client {
    #[resilient(retries = 3, backoff = constant("1s"), throttle = &self.throttle)]
    async fn fetch(&self) -> Result<u32, Failed> {
        Err(Failed(0))
    }
}

#[tokio::test(start_paused = true)]
async fn clones_of_a_client_share_the_throttle_in_its_field() {
    let client = Client {
        throttle: Arc::new(RetryThrottle::new(6, 0.5)),
    };
    let other = client.clone();
    // 6 -> 5 (retry) -> 4 (retry) -> 3 (not above 3: refused).
    let start = tokio::time::Instant::now();
    let outcome = client.fetch().await;
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.report().delays(), [secs(1), secs(1)]);
    assert_eq!(outcome.report().stop_reason(), StopReason::Throttled);
    assert_eq!(start.elapsed(), secs(2));
    // The clone starts where the first left the shared throttle.
    let outcome = other.fetch().await;
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::Throttled);
    assert_eq!(client.throttle.tokens(), 2.0);
}
