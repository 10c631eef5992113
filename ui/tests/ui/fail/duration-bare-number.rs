use resilient::resilient;

#[resilient(budget = 30)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
