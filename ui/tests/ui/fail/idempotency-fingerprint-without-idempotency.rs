use resilient::resilient;

#[resilient(retries = 1, idempotency_fingerprint = cents)]
fn pay(cents: u64) -> Result<u64, String> {
    Ok(cents)
}

fn main() {}
