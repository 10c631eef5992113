use resilient::resilient;

#[resilient(retries = 1, timing = true)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
