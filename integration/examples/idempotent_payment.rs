//! A simulated payment with an idempotency key: the card is charged once
//! per order, however many times (and from however many processes) the
//! call is made.
//!
//! Runs on the in-memory store; with `REDIS_URL` set (for example
//! `REDIS_URL=redis://127.0.0.1:6379`), on Redis, shared by every process
//! that runs it:
//!
//! ```text
//! cargo run -p resilient-integration --example idempotent_payment
//! ```

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::idempotency::{
    IdempotencyInFlight, IdempotencyStore, MemoryStore, RedisStore, StoreError,
};
use resilient::{TimedOut, resilient};

/// What a payment can fail with.
#[derive(Debug, thiserror::Error)]
enum PaymentError {
    #[error("the payment provider timed out")]
    Timeout,
    #[error("another payment for this order is still running")]
    InFlight,
    #[error("idempotency store: {0}")]
    Store(StoreError),
}

impl From<TimedOut> for PaymentError {
    fn from(_: TimedOut) -> Self {
        PaymentError::Timeout
    }
}

impl From<IdempotencyInFlight> for PaymentError {
    fn from(_: IdempotencyInFlight) -> Self {
        PaymentError::InFlight
    }
}

impl From<StoreError> for PaymentError {
    fn from(error: StoreError) -> Self {
        PaymentError::Store(error)
    }
}

/// Charges made by this process: the side effect to run once per order.
static CHARGES: AtomicU32 = AtomicU32::new(0);

/// The payment provider, simulated: the first charge times out once, then
/// goes through.
async fn provider_charge(order: &str, cents: u64) -> Result<String, PaymentError> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    if CHARGES.fetch_add(1, Ordering::SeqCst) == 0 {
        return Err(PaymentError::Timeout);
    }
    Ok(format!("receipt for {order}: {cents} cents charged"))
}

/// Charges `cents` for `order`, retrying timeouts, once per order.
#[resilient(
    retries = 2,
    retry_on = [Timeout],
    backoff = constant("50ms"),
    timeout = "2s",
    idempotency = store,
    idempotency_key = format!("payment:{order}"),
)]
async fn pay<S: IdempotencyStore<String>>(
    store: &S,
    order: &str,
    cents: u64,
) -> Result<String, PaymentError> {
    provider_charge(order, cents).await
}

async fn three_payments<S: IdempotencyStore<String>>(store: &S) {
    for _ in 0..3 {
        let outcome = pay(store, "order-1042", 2_599).await;
        match outcome.result() {
            Ok(receipt) => println!("{receipt}"),
            Err(error) => println!("failed: {error}"),
        }
        println!("{}\n", outcome.report());
    }
    println!(
        "charges made by this process: {}",
        CHARGES.load(Ordering::SeqCst)
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    match std::env::var("REDIS_URL") {
        Ok(url) => match RedisStore::new(url.as_str()).await {
            Ok(store) => {
                println!("store: Redis at {url}\n");
                three_payments(&store).await;
            }
            Err(error) => println!("can't reach Redis at {url}: {error}"),
        },
        Err(_) => {
            println!("store: in memory (set REDIS_URL to share it across processes)\n");
            three_payments(&MemoryStore::new()).await;
        }
    }
}
