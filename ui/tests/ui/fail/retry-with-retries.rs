use resilient::resilient;

#[resilient(retry = POLICY, retries = 3)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
