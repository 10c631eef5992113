use resilient::resilient;

#[resilient(max_attempts = 4)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
