use resilient::resilient;

#[resilient(retries = 3, max_rate_limit_retries = 2)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
