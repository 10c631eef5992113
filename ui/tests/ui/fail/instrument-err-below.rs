use resilient::resilient;

#[derive(Debug, thiserror::Error)]
#[error("busy")]
struct Busy;

#[resilient(retries = 2)]
#[tracing::instrument(err)]
async fn price(sku: u32) -> Result<u32, Busy> {
    Ok(sku)
}

fn main() {
    let _ = price(7);
}
