//! `coalesce = key`: concurrent calls of a function with the same key share
//! one execution (its retries included), and each caller gets a clone of
//! its outcome, marked coalesced with how long it waited; other keys, and
//! calls that come once it ended, run their own. On tokio's paused clock.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::{StopReason, resilient};
use tokio::time::Instant;

const fn millis(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum FetchError {
    #[error("busy")]
    Busy,
}

static RUNS: AtomicU32 = AtomicU32::new(0);

/// Fails its first attempt with `Busy` after 100 ms, then answers after
/// another 100 ms: one execution of a key takes 100 + 50 (the backoff) +
/// 100 ms.
#[resilient(retries = 2, backoff = constant("50ms"), coalesce = format!("user-{id}"))]
async fn profile(id: u32) -> Result<String, FetchError> {
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    tokio::time::sleep(millis(100)).await;
    if run.is_multiple_of(2) {
        return Err(FetchError::Busy);
    }
    Ok(format!("profile {id}"))
}

#[tokio::test(start_paused = true)]
async fn concurrent_calls_of_one_key_share_its_retried_execution() {
    let started = Instant::now();
    let first = tokio::spawn(profile(7));
    tokio::time::sleep(millis(30)).await;
    let (second, third) = tokio::join!(profile(7), async {
        tokio::time::sleep(millis(40)).await;
        profile(7).await
    });
    let first = first.await.unwrap();
    assert_eq!(
        RUNS.load(Ordering::Relaxed),
        2,
        "one execution: two attempts"
    );
    assert_eq!(started.elapsed(), millis(250));
    for outcome in [&first, &second, &third] {
        assert_eq!(outcome.result(), &Ok("profile 7".to_owned()));
        assert_eq!(outcome.report().attempt_count(), 2);
        assert_eq!(outcome.report().stop_reason(), StopReason::Succeeded);
    }
    assert_eq!(first.report().coalesced(), None, "the first caller ran it");
    assert_eq!(second.report().coalesced(), Some(millis(220)));
    assert_eq!(third.report().coalesced(), Some(millis(180)));

    // Ended, the key is not joined again: the next call runs afresh, and a
    // call of another key beside it runs its own.
    let (again, other) = tokio::join!(profile(7), profile(8));
    assert_eq!(RUNS.load(Ordering::Relaxed), 6);
    assert_eq!(again.report().coalesced(), None);
    assert_eq!(other.report().coalesced(), None);
    assert_eq!(other.into_result(), Ok("profile 8".to_owned()));
}

static LOOKUPS: AtomicU32 = AtomicU32::new(0);
static REPORTS: AtomicU32 = AtomicU32::new(0);

fn heard(_: &resilient::ExecutionReport) {
    REPORTS.fetch_add(1, Ordering::Relaxed);
}

/// Without retries, an error is shared like a value; `report = hook`
/// keeps the `Result` as the return type.
#[resilient(coalesce = name.clone(), report = heard)]
async fn lookup(name: String) -> Result<u32, FetchError> {
    LOOKUPS.fetch_add(1, Ordering::Relaxed);
    tokio::time::sleep(millis(10)).await;
    Err(FetchError::Busy)
}

#[tokio::test(start_paused = true)]
async fn an_error_is_handed_to_every_caller_of_the_key() {
    let (a, b) = tokio::join!(lookup("a".to_owned()), lookup("a".to_owned()));
    assert_eq!((a, b), (Err(FetchError::Busy), Err(FetchError::Busy)));
    assert_eq!(LOOKUPS.load(Ordering::Relaxed), 1);
    assert_eq!(
        REPORTS.load(Ordering::Relaxed),
        1,
        "the execution's report, once"
    );
}

/// A client shared by an `Arc`: the method owns its receiver, so its
/// calls coalesce like a function's.
struct Client {
    calls: AtomicU32,
}

impl Client {
    #[resilient(coalesce = id.to_string())]
    async fn fetch(self: std::sync::Arc<Self>, id: u32) -> Result<u32, FetchError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(millis(10)).await;
        Ok(id * 2)
    }
}

#[tokio::test(start_paused = true)]
async fn a_method_on_an_arc_coalesces_its_calls() {
    let client = std::sync::Arc::new(Client {
        calls: AtomicU32::new(0),
    });
    let (a, b) = tokio::join!(client.clone().fetch(4), client.clone().fetch(4));
    assert_eq!((a.into_result(), b.into_result()), (Ok(8), Ok(8)));
    assert_eq!(client.calls.load(Ordering::Relaxed), 1);
}
