use resilient::resilient;

#[resilient(budget = "0s")]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
