use resilient::resilient;

#[resilient(min_retries = 1, max_elapsed = "10s")]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
