use resilient::resilient;

fn cached((a, b): (u32, u32)) -> Result<u32, String> {
    Ok(a + b)
}

#[resilient(retries = 3, fallback = cached)]
fn fetch((a, b): (u32, u32)) -> Result<u32, String> {
    Ok(a * b)
}

fn main() {}
