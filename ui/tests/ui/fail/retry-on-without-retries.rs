use resilient::resilient;

#[derive(Debug)]
enum FetchError {
    Timeout,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fetch failed")
    }
}

#[resilient(retry_on = [Timeout])]
fn fetch() -> Result<u32, FetchError> {
    Err(FetchError::Timeout)
}

fn main() {}
