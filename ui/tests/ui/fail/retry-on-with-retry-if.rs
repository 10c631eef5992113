use resilient::resilient;

#[resilient(retries = 3, retry_on = [std::io::ErrorKind::TimedOut], retry_if = |_e: &std::io::ErrorKind| true)]
fn fetch() -> Result<u32, std::io::ErrorKind> {
    Ok(1)
}

fn main() {}
