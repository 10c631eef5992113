use resilient::resilient;

#[resilient(retries = 2, min_retries = 3, max_elapsed = "10s")]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
