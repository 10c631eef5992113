use resilient::resilient;

#[resilient(retries = 3, backoff = exponential(multiplier = 0.5))]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
