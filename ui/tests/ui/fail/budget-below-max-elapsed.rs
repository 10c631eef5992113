use resilient::resilient;

#[resilient(retries = 3, budget = "5s", max_elapsed = "10s")]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
