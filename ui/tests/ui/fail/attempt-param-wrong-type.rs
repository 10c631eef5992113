use resilient::resilient;

#[resilient(retries = 3)]
fn fetch(#[attempt] attempt: u32) -> Result<u32, String> {
    Ok(attempt)
}

fn main() {
    let _ = fetch();
}
