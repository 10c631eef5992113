use resilient::resilient;

#[resilient(retries = 2.5)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
