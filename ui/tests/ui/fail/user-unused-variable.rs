#![deny(unused_variables)]

use resilient::resilient;

#[resilient(retries = 2, backoff = none)]
fn lookup(id: u32, region: &str) -> Result<u32, String> {
    Ok(id)
}

fn main() {
    let _ = lookup(1, "eu");
}
