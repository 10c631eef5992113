use resilient::resilient;

fn cached(id: &str) -> Result<u32, String> {
    Ok(id.len() as u32)
}

#[resilient(retries = 3, fallback = cached)]
fn fetch(id: u32) -> Result<u32, String> {
    Ok(id)
}

fn main() {
    let _ = fetch(1);
}
