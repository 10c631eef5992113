//! Chaos through the attribute: injected faults prove a fallback and trip a
//! breaker, the rate holds over many calls, and a `static` switch flipped
//! from another thread takes effect on the next attempt.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use resilient::chaos::{Chaos, Injection, seeded_draw};
use resilient::{
    AttemptKind, CircuitBreaker, CircuitOpen, FailureKind, RetryEvent, StopReason, TimedOut,
    resilient,
};

#[derive(Debug, PartialEq, thiserror::Error)]
enum PriceError {
    #[error("pricing unavailable")]
    Unavailable,
    #[error("circuit open")]
    CircuitOpen,
    #[error("timed out")]
    TimedOut,
}

impl From<CircuitOpen> for PriceError {
    fn from(_: CircuitOpen) -> Self {
        PriceError::CircuitOpen
    }
}

impl From<TimedOut> for PriceError {
    fn from(_: TimedOut) -> Self {
        PriceError::TimedOut
    }
}

fn injected(
    outcome: &resilient::Outcome<u32, PriceError>,
) -> Vec<(AttemptKind, Option<Injection>)> {
    outcome
        .report()
        .attempts()
        .iter()
        .map(|a| (a.kind(), a.injected()))
        .collect()
}

static FALLBACK_PROOF: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
static PRICED: AtomicU32 = AtomicU32::new(0);

#[resilient(retries = 3, backoff = constant("100ms"), fallback = list_price, chaos = &FALLBACK_PROOF, chaos_fault = PriceError::Unavailable)]
async fn price(sku: &str) -> Result<u32, PriceError> {
    PRICED.fetch_add(1, Ordering::SeqCst);
    Ok(sku.len() as u32 * 100)
}

async fn list_price(_sku: &str) -> Result<u32, PriceError> {
    Ok(1_000)
}

#[tokio::test(start_paused = true)]
async fn four_injected_attempts_then_the_fallback_serves() {
    let start = tokio::time::Instant::now();
    let outcome = price("A-1").await;
    assert_eq!(
        injected(&outcome),
        [
            (AttemptKind::Primary, Some(Injection::Fault)),
            (AttemptKind::Primary, Some(Injection::Fault)),
            (AttemptKind::Primary, Some(Injection::Fault)),
            (AttemptKind::Primary, Some(Injection::Fault)),
            (AttemptKind::Fallback, None),
        ]
    );
    assert_eq!(PRICED.load(Ordering::SeqCst), 0, "no attempt ran the body");
    assert_eq!(outcome.report().delays(), [Duration::from_millis(100); 3]);
    assert_eq!(start.elapsed(), Duration::from_millis(300));
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.into_result(), Ok(1_000));
}

static BREAKER_PROOF: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
static STOCK: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .failure_threshold(2)
        .break_duration(Duration::from_secs(30))
        .build()
        .unwrap()
});
static STOCKED: AtomicU32 = AtomicU32::new(0);

#[resilient(retries = 1, backoff = none, circuit_breaker = &STOCK, chaos = &BREAKER_PROOF, chaos_fault = || PriceError::Unavailable)]
async fn stock() -> Result<u32, PriceError> {
    STOCKED.fetch_add(1, Ordering::SeqCst);
    Ok(3)
}

#[tokio::test(start_paused = true)]
async fn injected_faults_trip_the_breaker_and_the_next_call_is_rejected_unrun() {
    let outcome = stock().await;
    assert_eq!(
        injected(&outcome),
        [
            (AttemptKind::Primary, Some(Injection::Fault)),
            (AttemptKind::Primary, Some(Injection::Fault)),
        ]
    );
    assert_eq!(STOCKED.load(Ordering::SeqCst), 0);

    // Chaos is off now; the breaker, opened by the injected faults, still
    // rejects the call before its body runs.
    BREAKER_PROOF.set_enabled(false);
    let outcome = stock().await;
    let record = &outcome.report().attempts()[0];
    assert_eq!(
        record.error().map(|e| e.kind()),
        Some(FailureKind::CircuitOpen)
    );
    assert_eq!(record.injected(), None);
    assert_eq!(outcome.report().stop_reason(), StopReason::CircuitOpen);
    assert_eq!(outcome.into_result(), Err(PriceError::CircuitOpen));
    assert_eq!(STOCKED.load(Ordering::SeqCst), 0);
}

fn seeded() -> f64 {
    static STATE: AtomicU64 = AtomicU64::new(2026);
    seeded_draw(&STATE)
}

static SAMPLED: Chaos = Chaos::new()
    .enabled(true)
    .injection_rate(0.3)
    .randomizer(seeded);

#[resilient(chaos = &SAMPLED, chaos_fault = PriceError::Unavailable)]
fn sampled() -> Result<u32, PriceError> {
    Ok(7)
}

#[test]
fn a_rate_of_three_tenths_injects_three_thousand_calls_in_ten_thousand() {
    let mut injected = 0;
    for _ in 0..10_000 {
        let outcome = sampled();
        let record = &outcome.report().attempts()[0];
        match outcome.result() {
            Err(PriceError::Unavailable) => {
                assert_eq!(record.injected(), Some(Injection::Fault));
                injected += 1;
            }
            Ok(7) => assert_eq!(record.injected(), None),
            other => panic!("{other:?}"),
        }
    }
    assert!((2_850..=3_150).contains(&injected), "{injected}");
}

static FLIPPED: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
static FLIPPED_RAN: AtomicU32 = AtomicU32::new(0);

/// Before the wait for attempt 2, another thread switches chaos off.
fn switch_off_elsewhere(_: &RetryEvent<'_>) {
    std::thread::scope(|scope| {
        scope.spawn(|| FLIPPED.set_enabled(false));
    });
}

#[resilient(retries = 3, backoff = none, on_retry = switch_off_elsewhere, chaos = &FLIPPED, chaos_fault = PriceError::Unavailable)]
async fn flipped() -> Result<u32, PriceError> {
    FLIPPED_RAN.fetch_add(1, Ordering::SeqCst);
    Ok(9)
}

#[tokio::test(start_paused = true)]
async fn switching_off_from_another_thread_stops_the_next_attempt() {
    let outcome = flipped().await;
    assert_eq!(
        injected(&outcome),
        [
            (AttemptKind::Primary, Some(Injection::Fault)),
            (AttemptKind::Primary, None),
        ]
    );
    assert_eq!(FLIPPED_RAN.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.into_result(), Ok(9));
}

static SLOW: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
static STALE: Chaos = Chaos::new().enabled(false).injection_rate(1.0);

#[resilient(timeout = "1s", chaos = [&STALE, &SLOW], chaos_outcome = || 42, chaos_latency = "2s")]
async fn slow_quote() -> Result<u32, PriceError> {
    Ok(5)
}

#[tokio::test(start_paused = true)]
async fn injected_latency_is_cut_by_the_timeout_and_each_kind_draws_on_its_own() {
    let start = tokio::time::Instant::now();
    let outcome = slow_quote().await;
    assert_eq!(start.elapsed(), Duration::from_secs(1));
    assert_eq!(
        injected(&outcome),
        [(AttemptKind::Primary, Some(Injection::Latency))]
    );
    assert_eq!(outcome.into_result(), Err(PriceError::TimedOut));

    STALE.set_enabled(true);
    SLOW.set_enabled(false);
    let start = tokio::time::Instant::now();
    let outcome = slow_quote().await;
    assert_eq!(start.elapsed(), Duration::ZERO);
    assert_eq!(
        injected(&outcome),
        [(AttemptKind::Primary, Some(Injection::Outcome))]
    );
    assert_eq!(outcome.into_result(), Ok(42));
}
