use resilient::resilient;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
#[error("429")]
struct TooMany(Duration);

#[resilient(timing = false, rate_limit = |e: &TooMany| Some(e.0))]
fn fetch() -> Result<u32, TooMany> {
    Ok(1)
}

fn main() {}
