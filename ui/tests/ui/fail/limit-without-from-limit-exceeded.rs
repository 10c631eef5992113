use resilient::limit::Bulkhead;
use resilient::resilient;

#[derive(Debug)]
struct FetchError;

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fetch failed")
    }
}

static POOL: Bulkhead = Bulkhead::new(8);

#[resilient(retries = 2, limit = &POOL)]
fn fetch() -> Result<u32, FetchError> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
