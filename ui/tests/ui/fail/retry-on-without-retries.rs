use resilient::resilient;

#[resilient(retry_on = [Timeout])]
fn fetch() -> Result<u32, std::io::Error> {
    Ok(1)
}

fn main() {}
