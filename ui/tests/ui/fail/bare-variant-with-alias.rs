use resilient::resilient;
use std::io;

#[resilient(retries = 3, retry_on = [Interrupted])]
fn fetch() -> io::Result<u32> {
    Ok(1)
}

fn main() {}
