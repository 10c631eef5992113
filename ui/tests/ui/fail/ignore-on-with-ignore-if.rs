use resilient::resilient;

#[derive(Debug, thiserror::Error)]
enum FetchError {
    #[error("not found")]
    NotFound,
}

fn is_missing(error: &FetchError) -> bool {
    matches!(error, FetchError::NotFound)
}

#[resilient(retries = 2, ignore_on = [NotFound], ignore_if = is_missing)]
fn fetch() -> Result<u32, FetchError> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
