use resilient::resilient;

#[derive(Debug, thiserror::Error)]
enum FetchError {
    #[error("busy")]
    Busy,
}

// A test of another error type: one error, at the test's name.
fn is_transient(_: &std::io::Error) -> bool {
    true
}

#[resilient(retries = 2, retry_if = is_transient)]
fn fetch() -> Result<u32, FetchError> {
    Err(FetchError::Busy)
}

fn main() {
    let _ = fetch();
}
