use resilient::resilient;

#[resilient(retries = 1, max_hedges = 2)]
async fn fetch() -> Result<u32, String> {
    Ok(1)
}

fn main() {}
