//! Idempotent calls through the attribute, on the in-memory store: one
//! run per key, replays that run nothing, failures and fallbacks that are
//! not stored, and a report that says which happened.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::idempotency::{IdempotencyInFlight, IdempotencyStatus, MemoryStore, StoreError};
use resilient::{StopReason, resilient};

#[derive(Debug, Clone, PartialEq)]
enum PaymentError {
    Declined,
    Busy,
    Store(String),
}

impl std::fmt::Display for PaymentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<IdempotencyInFlight> for PaymentError {
    fn from(_: IdempotencyInFlight) -> Self {
        PaymentError::Busy
    }
}

impl From<StoreError> for PaymentError {
    fn from(error: StoreError) -> Self {
        PaymentError::Store(error.to_string())
    }
}

static CHARGES: AtomicU32 = AtomicU32::new(0);
static PAYMENTS: MemoryStore<String> = MemoryStore::new();

/// Charges an order once per key, however often it is called.
#[resilient(retries = 2, backoff = none, idempotency = &PAYMENTS, idempotency_key = format!("order-{order}"))]
async fn charge(order: u32, cents: u64) -> Result<String, PaymentError> {
    let n = CHARGES.fetch_add(1, Ordering::SeqCst) + 1;
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(format!("charge #{n}: {cents} cents for order {order}"))
}

#[tokio::test(start_paused = true)]
async fn ten_concurrent_calls_with_one_key_run_the_body_once() {
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..10 {
        calls.spawn(charge(1, 999));
    }
    let outcomes = calls.join_all().await;
    assert_eq!(CHARGES.load(Ordering::SeqCst), 1);
    let statuses: Vec<_> = outcomes
        .iter()
        .map(|o| {
            assert_eq!(
                o.result(),
                &Ok("charge #1: 999 cents for order 1".to_owned())
            );
            o.report().idempotency()
        })
        .collect();
    let executed = statuses
        .iter()
        .filter(|s| **s == Some(IdempotencyStatus::Executed))
        .count();
    let joined = statuses
        .iter()
        .filter(|s| **s == Some(IdempotencyStatus::Joined))
        .count();
    assert_eq!((executed, joined), (1, 9));
    let replay = charge(1, 999).await;
    assert_eq!(
        replay.report().idempotency(),
        Some(IdempotencyStatus::Replayed)
    );
    assert_eq!(replay.report().attempt_count(), 0);
    assert_eq!(replay.report().name(), "charge");
    assert_eq!(CHARGES.load(Ordering::SeqCst), 1, "a replay runs nothing");
    assert!(replay.report().to_string().ends_with(", replayed"));
}

static ORDERS: MemoryStore<u32> = MemoryStore::new();
static PLACED: AtomicU32 = AtomicU32::new(0);

/// Declined twice, then placed; a fallback answers when declined.
#[resilient(retries = 0, idempotency = &ORDERS, idempotency_key = key, fallback = queued)]
fn place(key: &str, decline: bool) -> Result<u32, PaymentError> {
    let n = PLACED.fetch_add(1, Ordering::SeqCst) + 1;
    if decline {
        Err(PaymentError::Declined)
    } else {
        Ok(n)
    }
}

fn queued(_: &str, _: bool) -> Result<u32, PaymentError> {
    Ok(0)
}

#[test]
fn a_fallback_value_is_returned_but_not_stored_and_a_success_is() {
    let declined = place("order-7", true);
    assert_eq!(declined.result(), &Ok(0), "the fallback answered");
    assert!(declined.report().fallback_used());
    assert_eq!(
        declined.report().idempotency(),
        Some(IdempotencyStatus::Executed)
    );
    assert_eq!(
        declined.report().stop_reason(),
        StopReason::AttemptsExhausted
    );

    let placed = place("order-7", false);
    assert_eq!(
        placed.result(),
        &Ok(2),
        "nothing was stored: the body ran again"
    );
    let replayed = place("order-7", true);
    assert_eq!(replayed.result(), &Ok(2));
    assert_eq!(
        replayed.report().idempotency(),
        Some(IdempotencyStatus::Replayed)
    );
    assert_eq!(PLACED.load(Ordering::SeqCst), 2);
}

static FAILING: MemoryStore<u32> = MemoryStore::new();
static TRIED: AtomicU32 = AtomicU32::new(0);

#[resilient(idempotency = &FAILING, idempotency_key = "once", idempotency_ttl = "1h")]
async fn flaky() -> Result<u32, PaymentError> {
    match TRIED.fetch_add(1, Ordering::SeqCst) {
        0 => Err(PaymentError::Declined),
        n => Ok(n),
    }
}

#[tokio::test(start_paused = true)]
async fn a_failure_caches_nothing_and_a_success_expires_with_its_ttl() {
    assert_eq!(flaky().await.result(), &Err(PaymentError::Declined));
    let success = flaky().await;
    assert_eq!(success.result(), &Ok(1));
    assert_eq!(
        success.report().idempotency(),
        Some(IdempotencyStatus::Executed)
    );
    assert_eq!(flaky().await.result(), &Ok(1), "replayed within the hour");
    tokio::time::advance(Duration::from_secs(3600)).await;
    assert_eq!(flaky().await.result(), &Ok(2), "run again once expired");
    assert_eq!(TRIED.load(Ordering::SeqCst), 3);
}

static INJECTING: resilient::chaos::Chaos = resilient::chaos::Chaos::new()
    .enabled(true)
    .injection_rate(1.0);
static REFUNDS: MemoryStore<u32> = MemoryStore::new();
static REFUNDED: AtomicU32 = AtomicU32::new(0);

/// A refund under an idempotency key, with an injected outcome while the
/// chaos switch is on.
#[resilient(retries = 0, idempotency = &REFUNDS, idempotency_key = key, chaos = &INJECTING, chaos_outcome = || 7)]
async fn refund(key: &str) -> Result<u32, PaymentError> {
    Ok(REFUNDED.fetch_add(1, Ordering::SeqCst) + 100)
}

/// An injected outcome is returned but never stored: once chaos is off, the
/// same key runs the body, whose value is stored and then replayed.
#[tokio::test(start_paused = true)]
async fn an_injected_outcome_is_returned_but_not_stored() {
    use resilient::idempotency::IdempotencyStored;
    INJECTING.set_enabled(true);
    let injected = refund("refund-1").await;
    assert_eq!(injected.result(), &Ok(7));
    assert_eq!(
        injected.report().idempotency_stored(),
        Some(IdempotencyStored::Injected)
    );
    assert_eq!(
        injected.report().idempotency(),
        Some(IdempotencyStatus::Executed)
    );
    assert_eq!(REFUNDED.load(Ordering::SeqCst), 0, "the body never ran");

    INJECTING.set_enabled(false);
    let real = refund("refund-1").await;
    assert_eq!(real.result(), &Ok(100));
    assert_eq!(
        real.report().idempotency(),
        Some(IdempotencyStatus::Executed)
    );
    assert_eq!(
        real.report().idempotency_stored(),
        Some(IdempotencyStored::Stored)
    );
    let replayed = refund("refund-1").await;
    assert_eq!(replayed.result(), &Ok(100));
    assert_eq!(
        replayed.report().idempotency(),
        Some(IdempotencyStatus::Replayed)
    );
    assert_eq!(REFUNDED.load(Ordering::SeqCst), 1);
}

static DELAYING: resilient::chaos::Chaos = resilient::chaos::Chaos::new()
    .enabled(true)
    .injection_rate(1.0)
    .latency(Duration::from_millis(50));
static FAILING_CHAOS: resilient::chaos::Chaos = resilient::chaos::Chaos::new()
    .enabled(true)
    .injection_rate(1.0);
static SHIPMENTS: MemoryStore<u32> = MemoryStore::new();
static SHIPPED: AtomicU32 = AtomicU32::new(0);

#[resilient(retries = 0, idempotency = &SHIPMENTS, idempotency_key = key, chaos = &DELAYING, chaos_latency = "50ms")]
async fn ship_late(key: &str) -> Result<u32, PaymentError> {
    Ok(SHIPPED.fetch_add(1, Ordering::SeqCst) + 1)
}

#[resilient(retries = 0, idempotency = &SHIPMENTS, idempotency_key = key, chaos = &FAILING_CHAOS, chaos_fault = PaymentError::Declined)]
async fn ship_faulty(key: &str) -> Result<u32, PaymentError> {
    Ok(SHIPPED.fetch_add(1, Ordering::SeqCst) + 1)
}

/// Injected latency delays the body, which runs: its value is stored. An
/// injected fault is a failure: nothing is stored, and the key is free.
#[tokio::test(start_paused = true)]
async fn injected_latency_stores_the_bodys_value_and_an_injected_fault_stores_nothing() {
    use resilient::idempotency::IdempotencyStored;
    let late = ship_late("ship-1").await;
    assert_eq!(late.result(), &Ok(1));
    assert_eq!(
        late.report().idempotency_stored(),
        Some(IdempotencyStored::Stored)
    );
    assert_eq!(
        late.report().attempts()[0].injected(),
        Some(resilient::chaos::Injection::Latency)
    );

    let faulty = ship_faulty("ship-2").await;
    assert_eq!(faulty.result(), &Err(PaymentError::Declined));
    assert_eq!(
        faulty.report().idempotency_stored(),
        Some(IdempotencyStored::Failure)
    );
    FAILING_CHAOS.set_enabled(false);
    let after = ship_faulty("ship-2").await;
    assert_eq!(after.result(), &Ok(2));
    assert_eq!(
        after.report().idempotency(),
        Some(IdempotencyStatus::Executed)
    );
    assert_eq!(SHIPPED.load(Ordering::SeqCst), 2);
}
