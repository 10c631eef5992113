use resilient::resilient;

#[resilient(retries = true)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
