use resilient::resilient;

fn cached() -> Result<u32, String> {
    Ok(0)
}

#[resilient(retries = 3, fallback = cached)]
fn fetch(id: u32) -> Result<u32, String> {
    Ok(id)
}

fn main() {
    let _ = fetch(1);
}
