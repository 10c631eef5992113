use resilient::resilient;

// A listener of the outcome, not of `&RetryEvent`: one error, at the
// listener's name.
fn listen(_: &resilient::Outcome<u32, String>) {}

#[resilient(retries = 1, on_retry = listen)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
