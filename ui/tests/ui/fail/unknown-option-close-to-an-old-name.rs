use resilient::resilient;

// Close to `rate_limit`, the old name of `retry_after`: the new name is
// suggested.
#[resilient(retries = 2, rate_limt = |_: &String| None)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
