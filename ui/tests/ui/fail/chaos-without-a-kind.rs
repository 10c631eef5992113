use resilient::chaos::Chaos;
use resilient::resilient;

static CHAOS: Chaos = Chaos::new();

#[resilient(chaos = &CHAOS)]
fn lookup() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
