use resilient::resilient;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
#[error("429: retry after {0:?}")]
struct TooMany(Duration);

fn hint(error: &TooMany) -> Option<Duration> {
    Some(error.0)
}

// `rate_limit` is the old name of `retry_after`: one option, given twice,
// reported at the second.
#[resilient(retries = 2, retry_after = hint, rate_limit = hint)]
fn fetch() -> Result<u32, TooMany> {
    Ok(1)
}

fn main() {}
