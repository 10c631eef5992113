use resilient::idempotency::{IdempotencyInFlight, MemoryStore, StoreError};
use resilient::resilient;

#[derive(Debug)]
struct PayError;

impl std::fmt::Display for PayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("payment failed")
    }
}

impl From<IdempotencyInFlight> for PayError {
    fn from(_: IdempotencyInFlight) -> Self {
        PayError
    }
}

impl From<StoreError> for PayError {
    fn from(_: StoreError) -> Self {
        PayError
    }
}

static PAYMENTS: MemoryStore<u64> = MemoryStore::new();

#[resilient(idempotency = &PAYMENTS, idempotency_key = format!("order-{order}"), idempotency_fingerprint = cents)]
fn pay(order: u32, cents: u64) -> Result<u64, PayError> {
    Ok(cents)
}

fn main() {
    let _ = pay(7, 4200);
}
