use resilient::resilient;

struct FetchError;

#[resilient(retries = 2)]
fn fetch() -> Result<u32, FetchError> {
    Err(FetchError)
}

fn main() {
    let _ = fetch();
}
