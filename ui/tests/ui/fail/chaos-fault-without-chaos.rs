use resilient::resilient;

#[resilient(retries = 2, chaos_fault = String::from("injected"))]
fn lookup() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
