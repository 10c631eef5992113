use resilient::resilient;

fn cached(id: u32) -> Option<u32> {
    Some(id)
}

#[resilient(retries = 3, fallback = cached)]
fn fetch(id: u32) -> Result<u32, String> {
    Ok(id)
}

fn main() {
    let _ = fetch(1);
}
