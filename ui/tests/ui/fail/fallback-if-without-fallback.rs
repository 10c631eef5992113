use resilient::resilient;

#[derive(Debug, thiserror::Error)]
enum LookupError {
    #[error("unavailable")]
    Unavailable,
}

fn is_outage(error: &LookupError) -> bool {
    matches!(error, LookupError::Unavailable)
}

#[resilient(retries = 1, fallback_if = is_outage)]
async fn lookup() -> Result<u32, LookupError> {
    Err(LookupError::Unavailable)
}

fn main() {
    let _ = lookup();
}
