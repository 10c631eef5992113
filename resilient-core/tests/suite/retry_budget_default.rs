//! The tower layer's default retry budget (Finagle's: 20 % of the last
//! 10 s's successes, plus a reserve of 10 a second), on tokio's paused
//! clock: in a brownout, a failing backend receives its callers' first
//! attempts and at most the budget's retries on top; `no_retry_budget`
//! lifts it. The reqwest middleware shares the layer's `Shared`, and so
//! its default.
#![cfg(feature = "tower")]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient_core::tower::ResilientLayer;
use resilient_core::{Backoff, ExecutionReport, StopReason};
use tower::{BoxError, Layer, Service, ServiceExt, service_fn};

/// What one brownout saw: requests the backend received, and calls that
/// stopped because a retry was refused.
#[derive(Debug, PartialEq)]
struct Seen {
    received: u32,
    throttled: u32,
}

/// A client of a backend that answers `ok(n)` to its n-th request (from
/// 1, counted over the client's whole life), with 3 retries and no
/// backoff.
struct Client<S> {
    service: S,
    received: Arc<AtomicU32>,
    throttled: Arc<AtomicU32>,
}

fn client(
    no_budget: bool,
    ok: fn(u32) -> bool,
) -> Client<impl Service<(), Response = u32, Error = BoxError>> {
    let received = Arc::new(AtomicU32::new(0));
    let throttled = Arc::new(AtomicU32::new(0));
    let seen = Arc::clone(&received);
    let backend = service_fn(move |()| {
        let n = seen.fetch_add(1, Ordering::Relaxed) + 1;
        async move {
            if ok(n) {
                Ok::<_, BoxError>(n)
            } else {
                Err(BoxError::from("503"))
            }
        }
    });
    let refused = Arc::clone(&throttled);
    let layer = ResilientLayer::new()
        .retries(3)
        .backoff(Backoff::none())
        .on_report(move |report: &ExecutionReport| {
            if report.stop_reason() == StopReason::Throttled {
                refused.fetch_add(1, Ordering::Relaxed);
            }
        });
    let layer = if no_budget {
        layer.no_retry_budget()
    } else {
        layer
    };
    Client {
        service: layer.layer(backend),
        received,
        throttled,
    }
}

impl<S: Service<(), Response = u32, Error = BoxError>> Client<S> {
    /// Sends `calls` requests one after another; what the backend saw of them.
    async fn send(&mut self, calls: u32) -> Seen {
        let (received, throttled) = (
            self.received.load(Ordering::Relaxed),
            self.throttled.load(Ordering::Relaxed),
        );
        for _ in 0..calls {
            let _ = self.service.ready().await.unwrap().call(()).await;
        }
        Seen {
            received: self.received.load(Ordering::Relaxed) - received,
            throttled: self.throttled.load(Ordering::Relaxed) - throttled,
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_failing_backend_receives_at_most_the_budgets_retries_beyond_first_attempts() {
    let mut budgeted = client(false, |_| false);
    // 1 000 calls, each with 3 retries: the reserve grants 100 retries
    // (33 calls' 3, and 1 of the 34th), then every call is its first attempt.
    assert_eq!(
        budgeted.send(1_000).await,
        Seen {
            received: 1_100,
            throttled: 1_000 - 33
        }
    );
    // Without the budget, every retry goes out.
    let mut unbudgeted = client(true, |_| false);
    assert_eq!(
        unbudgeted.send(1_000).await,
        Seen {
            received: 4_000,
            throttled: 0
        }
    );
}

#[tokio::test(start_paused = true)]
async fn the_reserve_comes_back_after_ten_seconds_and_successes_earn_a_fifth_of_a_retry() {
    let mut budgeted = client(false, |n| n <= 500);
    // 500 successes earn 100 retries beside the reserve's 100.
    assert_eq!(
        budgeted.send(500).await,
        Seen {
            received: 500,
            throttled: 0
        }
    );
    assert_eq!(
        budgeted.send(100).await,
        Seen {
            received: 300,
            throttled: 100 - 66
        }
    );
    // Over ten seconds on, the successes and the retries drawn have
    // expired: the reserve alone again.
    tokio::time::sleep(Duration::from_secs(11)).await;
    assert_eq!(
        budgeted.send(100).await,
        Seen {
            received: 200,
            throttled: 100 - 33
        }
    );
}
