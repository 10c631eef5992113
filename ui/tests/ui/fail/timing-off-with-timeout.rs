use resilient::{TimedOut, resilient};

#[derive(Debug, thiserror::Error)]
#[error("late")]
struct Late;

impl From<TimedOut> for Late {
    fn from(_: TimedOut) -> Self {
        Late
    }
}

#[resilient(retries = 1, timeout = "1s", timing = false)]
async fn fetch() -> Result<u32, Late> {
    Ok(1)
}

fn main() {}
