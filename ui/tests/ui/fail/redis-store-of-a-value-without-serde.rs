use resilient::idempotency::{IdempotencyInFlight, RedisStore, StoreError};
use resilient::resilient;

#[derive(Debug, thiserror::Error)]
enum PayError {
    #[error("in flight")]
    InFlight(#[from] IdempotencyInFlight),
    #[error("store")]
    Store(#[from] StoreError),
}

// No serde: a `RedisStore` can't keep it. One error, at the store.
#[derive(Clone, Debug)]
struct Receipt {
    id: u64,
}

fn payments() -> &'static RedisStore {
    unimplemented!()
}

#[resilient(retries = 2, idempotency = payments(), idempotency_key = format!("order-{order}"))]
async fn pay(order: u64) -> Result<Receipt, PayError> {
    Ok(Receipt { id: order })
}

fn main() {
    let _ = pay(1);
}
