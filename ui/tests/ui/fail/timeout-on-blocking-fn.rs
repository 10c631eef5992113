use resilient::resilient;

#[resilient(timeout = "1s")]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
