use resilient::resilient;

#[resilient(retries = 3, nested = false)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
