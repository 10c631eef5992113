use resilient::resilient;
use std::fmt::Display;

#[resilient(retries = 3)]
fn describe(id: u32) -> Result<impl Display, String> {
    Ok(id)
}

fn main() {
    let _ = describe(1);
}
