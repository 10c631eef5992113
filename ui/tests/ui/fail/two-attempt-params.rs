use resilient::{Attempt, resilient};

#[resilient(retries = 3)]
fn fetch(#[attempt] first: Attempt, #[attempt] second: Attempt) -> Result<u32, String> {
    Ok(first.number() + second.number())
}

fn main() {}
