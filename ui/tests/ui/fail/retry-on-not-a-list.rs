use resilient::resilient;

#[resilient(retries = 3, retry_on = std::io::ErrorKind::TimedOut)]
fn fetch() -> Result<u32, std::io::ErrorKind> {
    Ok(1)
}

fn main() {}
