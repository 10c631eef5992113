use resilient::resilient;

#[resilient(retry_if = |_e: &String| true)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
