#![deny(unused_mut)]

use resilient::resilient;

#[resilient(retries = 2, backoff = none)]
fn lookup(mut id: u32, region: &str) -> Result<u32, String> {
    Ok(id + region.len() as u32)
}

fn main() {
    let _ = lookup(1, "eu");
}
