use resilient::resilient;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
enum ApiError {
    #[error("rate limited")]
    RateLimited,
}

// The hint returns a `Duration`, not an `Option<Duration>`: one error, at
// the hint, and nothing about the rest of the expansion.
fn retry_after(_: &ApiError) -> Duration {
    Duration::from_secs(1)
}

#[resilient(retries = 2, rate_limit = retry_after)]
async fn call() -> Result<u32, ApiError> {
    Err(ApiError::RateLimited)
}

fn main() {
    let _ = call();
}
