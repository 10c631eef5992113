use resilient::resilient;

#[derive(Debug)]
struct FetchError;

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fetch failed")
    }
}

fn positive(value: &u32) -> bool {
    *value > 0
}

#[resilient(retries = 2, validate = positive)]
fn fetch() -> Result<u32, FetchError> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
