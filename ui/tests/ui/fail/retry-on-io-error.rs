use resilient::resilient;

#[resilient(retries = 3, retry_on = [TimedOut])]
fn read() -> Result<Vec<u8>, std::io::Error> {
    Ok(Vec::new())
}

fn main() {
    let _ = read();
}
