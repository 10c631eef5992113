use resilient::resilient;

const BUDGET_MS: u64 = 30_000;

#[resilient(budget = BUDGET_MS)]
fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
