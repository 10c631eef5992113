use resilient::resilient;

struct Counter {
    n: u32,
}

impl Counter {
    #[resilient(retries = 1, hedge = "10ms")]
    async fn bump(&mut self) -> Result<u32, String> {
        self.n += 1;
        Ok(self.n)
    }
}

fn main() {}
