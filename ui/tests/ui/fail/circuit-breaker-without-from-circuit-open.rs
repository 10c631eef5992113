use resilient::{CircuitBreaker, resilient};
use std::sync::LazyLock;

#[derive(Debug)]
struct FetchError;

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fetch failed")
    }
}

static BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(CircuitBreaker::default);

#[resilient(retries = 2, circuit_breaker = &BREAKER)]
fn fetch() -> Result<u32, FetchError> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
