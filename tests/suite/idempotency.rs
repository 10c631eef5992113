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
