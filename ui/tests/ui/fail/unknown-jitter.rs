use resilient::resilient;

#[resilient(retries = 3, backoff = exponential(jitter = random))]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
