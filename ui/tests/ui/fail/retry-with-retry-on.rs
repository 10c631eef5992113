use resilient::resilient;

#[resilient(retry = POLICY, retry_on = [std::io::ErrorKind::TimedOut])]
fn fetch() -> Result<u32, std::io::ErrorKind> {
    Ok(1)
}

fn main() {}
