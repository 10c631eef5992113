use resilient::resilient;

#[resilient(retries)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
