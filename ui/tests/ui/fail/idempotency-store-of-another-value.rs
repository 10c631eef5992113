use resilient::idempotency::{IdempotencyInFlight, MemoryStore, StoreError};
use resilient::resilient;

#[derive(Debug, thiserror::Error)]
enum PayError {
    #[error("in flight")]
    InFlight(#[from] IdempotencyInFlight),
    #[error("store")]
    Store(#[from] StoreError),
}

#[derive(Clone, Debug)]
struct Receipt {
    id: u64,
}

// The store keeps `u32`s, the function returns a `Receipt`: one error, at
// the store the user wrote, not inside the expansion.
static ORDERS: MemoryStore<u32> = MemoryStore::new();

#[resilient(retries = 2, idempotency = &ORDERS, idempotency_key = format!("order-{order}"))]
async fn pay(order: u64) -> Result<Receipt, PayError> {
    Ok(Receipt { id: order })
}

fn main() {
    let _ = pay(1);
}
