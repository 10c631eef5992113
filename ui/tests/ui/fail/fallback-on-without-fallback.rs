use resilient::resilient;

#[derive(Debug, thiserror::Error)]
enum LookupError {
    #[error("unavailable")]
    Unavailable,
}

#[resilient(retries = 1, fallback_on = [Unavailable])]
fn lookup() -> Result<u32, LookupError> {
    Err(LookupError::Unavailable)
}

fn main() {
    let _ = lookup();
}
