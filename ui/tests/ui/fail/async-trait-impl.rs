use resilient::resilient;

#[derive(Debug, thiserror::Error)]
#[error("busy")]
struct Busy;

#[async_trait::async_trait]
trait Prices {
    async fn price(&self, sku: u32) -> Result<u32, Busy>;
}

struct Shop;

#[async_trait::async_trait]
impl Prices for Shop {
    #[resilient(retries = 2, report = |_| ())]
    async fn price(&self, sku: u32) -> Result<u32, Busy> {
        Ok(sku)
    }
}

fn main() {}
