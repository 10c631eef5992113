use resilient::resilient;

#[resilient(retries = 3, retry_on = [])]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
