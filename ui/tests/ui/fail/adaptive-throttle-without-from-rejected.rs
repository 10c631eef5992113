use resilient::resilient;
use resilient::throttle::AdaptiveThrottle;

#[derive(Debug)]
struct FetchError;

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("fetch failed")
    }
}

static BACKEND: AdaptiveThrottle = AdaptiveThrottle::new();

#[resilient(retries = 2, adaptive_throttle = &BACKEND)]
fn fetch() -> Result<u32, FetchError> {
    Ok(1)
}

fn main() {
    let _ = fetch();
}
