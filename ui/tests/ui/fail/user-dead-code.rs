#![deny(dead_code)]

// The library part of the crate: `main` below plays the role of its users.
mod store {
    use resilient::{Outcome, resilient};

    pub fn get(key: &str) -> Outcome<String, String> {
        fetch(key)
    }

    #[resilient(retries = 2, backoff = none)]
    fn fetch(key: &str) -> Result<String, String> {
        Ok(key.to_owned())
    }

    #[resilient(retries = 2, backoff = none)]
    fn fetch_uncached(key: &str) -> Result<String, String> {
        Ok(key.to_owned())
    }
}

fn main() {
    let _ = store::get("key");
}
