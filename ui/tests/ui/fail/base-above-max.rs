use resilient::resilient;

#[resilient(retries = 3, backoff = exponential(base = "2s", max = "1s"))]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
