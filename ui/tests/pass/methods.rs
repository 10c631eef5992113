#![deny(warnings)]

use resilient::{Outcome, TimedOut, resilient};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("unavailable")]
struct Unavailable;

impl From<TimedOut> for Unavailable {
    fn from(_: TimedOut) -> Self {
        Unavailable
    }
}

struct Client {
    budget: Duration,
    calls: AtomicU32,
    count: u32,
}

impl Client {
    #[resilient(retries = 2, backoff = none, budget = self.budget)]
    fn get(&self, id: u32) -> Result<u32, Unavailable> {
        if self.calls.fetch_add(1, Ordering::SeqCst) < 1 {
            Err(Unavailable)
        } else {
            Ok(id)
        }
    }

    #[resilient(retries = 2, backoff = none)]
    fn bump(&mut self) -> Result<u32, Unavailable> {
        self.count += 1;
        if self.count < 2 {
            Err(Unavailable)
        } else {
            Ok(self.count)
        }
    }

    #[resilient(retries = 1, budget = self.budget)]
    async fn get_async(&self, id: u32) -> Result<u32, Unavailable> {
        tokio::task::yield_now().await;
        Ok(id + self.count)
    }

    #[resilient(retries = 2)]
    async fn bump_async(&mut self) -> Result<u32, Unavailable> {
        self.count += 1;
        if self.count % 2 == 1 {
            Err(Unavailable)
        } else {
            Ok(self.count)
        }
    }

    #[resilient(retries = 1, fallback = Self::cached)]
    async fn shared(self: Arc<Self>, id: u32) -> Result<u32, Unavailable> {
        let _ = id;
        Err(Unavailable)
    }

    async fn cached(self: Arc<Self>, id: u32) -> Result<u32, Unavailable> {
        Ok(id * 10 + self.count)
    }

    #[resilient(retries = 1, backoff = none, fallback = Self::reset)]
    fn take(&mut self, reason: impl AsRef<str>) -> Result<u32, Unavailable> {
        let _ = reason.as_ref();
        Err(Unavailable)
    }

    fn reset(&mut self, reason: impl AsRef<str>) -> Result<u32, Unavailable> {
        self.count = 0;
        Ok(reason.as_ref().len() as u32)
    }

    #[resilient]
    fn new() -> Result<Self, Unavailable> {
        Ok(Client {
            budget: Duration::from_secs(30),
            calls: AtomicU32::new(0),
            count: 0,
        })
    }
}

trait Service {
    fn call(&self, id: u32) -> Outcome<u32, Unavailable>;
}

impl Service for Client {
    #[resilient(retries = 1, backoff = none)]
    fn call(&self, id: u32) -> Result<u32, Unavailable> {
        Ok(id)
    }
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let mut client = Client::new().into_result().unwrap();

    let outcome = client.get(7);
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(outcome.into_result(), Ok(7));

    assert_eq!(client.bump().into_result(), Ok(2));
    assert_eq!(client.get_async(1).await.into_result(), Ok(3));
    assert_eq!(client.bump_async().await.into_result(), Ok(4));
    assert_eq!(client.call(5).into_result(), Ok(5));
    assert_eq!(client.take("gone").into_result(), Ok(4));
    assert_eq!(client.count, 0);
    client.count = 4;

    let client = Arc::new(client);
    let outcome = client.shared(4).await;
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.into_result(), Ok(44));
}
