use resilient::resilient;

#[resilient(chaos_latency = "2s")]
async fn lookup() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
