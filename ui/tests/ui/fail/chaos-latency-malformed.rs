use resilient::chaos::Chaos;
use resilient::resilient;

static CHAOS: Chaos = Chaos::new();

#[resilient(chaos = &CHAOS, chaos_latency = "2 parsecs")]
fn lookup() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
