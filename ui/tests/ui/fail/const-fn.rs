use resilient::resilient;

#[resilient(retries = 3)]
const fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
