use resilient::resilient;

#[resilient(chaos_outcome = 7)]
fn lookup() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
