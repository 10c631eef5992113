use resilient::resilient;

#[resilient(retries = 1, hedge = "200ms")]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
