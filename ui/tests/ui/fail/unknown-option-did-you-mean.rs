use resilient::resilient;

#[resilient(retires = 3)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
