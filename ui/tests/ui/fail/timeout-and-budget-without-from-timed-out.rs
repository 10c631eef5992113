use resilient::resilient;

#[derive(Debug)]
struct FetchError;

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fetch failed")
    }
}

// Both options need the conversion: one error, at `timeout`, in either order.
#[resilient(timeout = "1s", budget = "5s")]
async fn fetch() -> Result<u32, FetchError> {
    Ok(1)
}

#[resilient(budget = "5s", timeout = "1s")]
async fn fetch_again() -> Result<u32, FetchError> {
    Ok(2)
}

fn main() {
    let _ = (fetch(), fetch_again());
}
