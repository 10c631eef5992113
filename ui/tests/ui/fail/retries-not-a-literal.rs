use resilient::resilient;

const RETRIES: u32 = 3;

#[resilient(retries = RETRIES)]
fn fetch() -> Result<u32, String> {
    Ok(RETRIES)
}

fn main() {}
