use resilient::chaos::Chaos;
use resilient::resilient;

static CHAOS: Chaos = Chaos::new();

#[resilient(chaos = &CHAOS, chaos_fault = String::from("injected"), chaos_outcome = 7)]
fn lookup() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
