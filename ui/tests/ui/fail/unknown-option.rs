use resilient::resilient;

#[resilient(colour = "blue")]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
