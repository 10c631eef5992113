use resilient::resilient;

#[resilient(crate = resilient)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
