use resilient::chaos::Chaos;
use resilient::resilient;

static FAULTS: Chaos = Chaos::new();
static SLOW: Chaos = Chaos::new();

#[resilient(chaos = [&FAULTS, &SLOW], chaos_latency = "2s")]
async fn lookup() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
