use resilient::resilient;

// A struct, not an enum: `retry_on` has no variant to name. The attribute
// can't tell from the name alone, so this is the compiler's own error.
#[derive(Debug)]
struct FetchError {
    transient: bool,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fetch failed (transient: {})", self.transient)
    }
}

#[resilient(retries = 3, retry_on = [Transient])]
fn fetch() -> Result<u32, FetchError> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
