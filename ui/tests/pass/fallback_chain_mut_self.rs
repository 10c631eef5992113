//! A fallback chain on a `&mut self` method: each candidate borrows the
//! receiver in turn.

use resilient::resilient;

#[derive(Debug, PartialEq)]
struct Down;

impl std::fmt::Display for Down {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("down")
    }
}

struct Cache {
    tried: Vec<&'static str>,
}

impl Cache {
    #[resilient(retries = 1, backoff = none, fallback = [Self::replica, Self::stale])]
    fn get(&mut self, id: &mut u32) -> Result<u32, Down> {
        self.tried.push("primary");
        *id += 1;
        Err(Down)
    }

    fn replica(&mut self, _: &mut u32) -> Result<u32, Down> {
        self.tried.push("replica");
        Err(Down)
    }

    fn stale(&mut self, id: &mut u32) -> Result<u32, Down> {
        self.tried.push("stale");
        Ok(*id)
    }
}

#[test]
fn runs() {
    let mut cache = Cache { tried: Vec::new() };
    let mut id = 40;
    assert_eq!(cache.get(&mut id).into_result(), Ok(42));
    assert_eq!(cache.tried, ["primary", "primary", "replica", "stale"]);
}
