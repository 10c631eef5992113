use resilient::resilient;

#[resilient(retry = POLICY, backoff = none)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
