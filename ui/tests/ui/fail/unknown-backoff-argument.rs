use resilient::resilient;

#[resilient(retries = 3, backoff = exponential(jiter = full))]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
