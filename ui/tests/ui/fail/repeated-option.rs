use resilient::resilient;

#[resilient(retries = 3, budget = "10s", retries = 5)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
