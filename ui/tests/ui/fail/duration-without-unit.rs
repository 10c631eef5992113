use resilient::resilient;

#[resilient(budget = "10")]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
