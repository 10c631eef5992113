use resilient::{Outcome, resilient};

// Takes the whole outcome, not `&ExecutionReport`.
fn log(outcome: &Outcome<u32, String>) {
    let _ = outcome;
}

#[resilient(retries = 1, report = log)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
