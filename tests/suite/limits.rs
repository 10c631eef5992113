//! Limits through the attribute, on tokio's paused clock: bulkheads that
//! refuse or queue, permits freed while a call backs off, an adaptive
//! limit that follows the dependency's latency, and an adaptive rate that
//! engages in a storm of 429s and recovers after it.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::limit::{AdaptiveLimit, AdaptiveRate, Bulkhead};
use resilient::{LimitExceeded, StopReason, resilient};
use tokio::time::{Instant, sleep};

const MS: Duration = Duration::from_millis(1);

#[derive(Debug, PartialEq, thiserror::Error)]
enum Error {
    #[error("refused by {}", .0.limiter())]
    Busy(LimitExceeded),
    #[error("overloaded")]
    Overloaded,
    #[error("too many requests")]
    TooMany,
}

impl From<LimitExceeded> for Error {
    fn from(refusal: LimitExceeded) -> Self {
        Error::Busy(refusal)
    }
}

/// Attempts inside the dependency now, and the most there ever were.
struct Gauge {
    inside: AtomicU32,
    peak: AtomicU32,
}

impl Gauge {
    const fn new() -> Self {
        Gauge {
            inside: AtomicU32::new(0),
            peak: AtomicU32::new(0),
        }
    }

    /// Runs for `latency` inside the dependency.
    async fn visit(&self, latency: Duration) {
        let inside = self.inside.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(inside, Ordering::SeqCst);
        sleep(latency).await;
        self.inside.fetch_sub(1, Ordering::SeqCst);
    }
}

static REFUSING: Bulkhead = Bulkhead::new(2).named("refusing");
static REFUSING_GAUGE: Gauge = Gauge::new();

#[resilient(limit = &REFUSING)]
async fn refused_beyond_two() -> Result<(), Error> {
    REFUSING_GAUGE.visit(MS * 100).await;
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn a_bulkhead_of_two_runs_two_of_five_calls_and_refuses_three() {
    let calls = futures_join5(
        refused_beyond_two(),
        refused_beyond_two(),
        refused_beyond_two(),
        refused_beyond_two(),
        refused_beyond_two(),
    )
    .await;
    let refused: Vec<_> = calls.iter().filter(|o| o.result().is_err()).collect();
    assert_eq!(refused.len(), 3);
    for outcome in refused {
        assert_eq!(
            outcome.result(),
            &Err(Error::Busy(LimitExceeded::new("refusing", None)))
        );
        assert_eq!(outcome.report().stop_reason(), StopReason::LimitExceeded);
        assert_eq!(outcome.report().attempt_count(), 1);
    }
    assert_eq!(REFUSING_GAUGE.peak.load(Ordering::SeqCst), 2);
    assert_eq!(REFUSING.available(), 2);
}

static QUEUEING: Bulkhead = Bulkhead::new(2).named("queueing");
static QUEUEING_GAUGE: Gauge = Gauge::new();

#[resilient(limit = &QUEUEING, limit_wait = "1s")]
async fn queued_behind_two() -> Result<(), Error> {
    QUEUEING_GAUGE.visit(MS * 100).await;
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn with_limit_wait_all_five_run_never_more_than_two_at_once() {
    let start = Instant::now();
    let calls = futures_join5(
        queued_behind_two(),
        queued_behind_two(),
        queued_behind_two(),
        queued_behind_two(),
        queued_behind_two(),
    )
    .await;
    assert!(calls.iter().all(|o| o.result().is_ok()));
    assert_eq!(QUEUEING_GAUGE.peak.load(Ordering::SeqCst), 2);
    // Two rounds of 100 ms behind the first two: the fifth ends at 300 ms.
    assert_eq!(start.elapsed(), MS * 300);
    let mut queued: Vec<_> = calls
        .iter()
        .map(|o| o.report().attempts()[0].queued())
        .collect();
    queued.sort();
    assert_eq!(
        queued,
        [Duration::ZERO, Duration::ZERO, MS * 100, MS * 100, MS * 200]
    );
}

static ONE: Bulkhead = Bulkhead::new(1);
static RETRIED: AtomicU32 = AtomicU32::new(0);

#[resilient(retries = 1, backoff = constant("100ms"), limit = &ONE)]
async fn fails_once_then_backs_off() -> Result<&'static str, Error> {
    if RETRIED.fetch_add(1, Ordering::SeqCst) == 0 {
        return Err(Error::Overloaded);
    }
    sleep(MS * 10).await;
    Ok("retried")
}

#[resilient(limit = &ONE)]
async fn runs_meanwhile() -> Result<&'static str, Error> {
    sleep(MS * 50).await;
    Ok("meanwhile")
}

#[tokio::test(start_paused = true)]
async fn a_call_backing_off_holds_no_permit() {
    let start = Instant::now();
    let (backing_off, meanwhile) = tokio::join!(fails_once_then_backs_off(), async {
        sleep(MS * 10).await;
        runs_meanwhile().await
    });
    assert_eq!(meanwhile.into_result(), Ok("meanwhile"));
    assert_eq!(backing_off.report().delays(), [MS * 100]);
    assert_eq!(backing_off.into_result(), Ok("retried"));
    assert_eq!(start.elapsed(), MS * 110);
    assert_eq!(ONE.available(), 1);
}

static UPSTREAM: AdaptiveLimit = AdaptiveLimit::gradient2().initial(10).min(2).max(40);
static UPSTREAM_GAUGE: Gauge = Gauge::new();
/// The dependency's latency in ms per attempt in flight beyond 4; 0: flat.
static QUEUEING_MS: AtomicU32 = AtomicU32::new(0);

#[resilient(limit = &UPSTREAM)]
async fn upstream() -> Result<(), Error> {
    let crowd = UPSTREAM_GAUGE
        .inside
        .load(Ordering::SeqCst)
        .saturating_sub(4);
    let latency = MS * (10 + crowd * QUEUEING_MS.load(Ordering::SeqCst));
    UPSTREAM_GAUGE.visit(latency).await;
    Ok(())
}

/// 30 callers hammer `upstream` for `length`; a refused one tries again
/// 1 ms later.
async fn load(length: Duration) {
    let end = Instant::now() + length;
    let caller = || async move {
        while Instant::now() < end {
            if upstream().await.into_result().is_err() {
                sleep(MS).await;
            }
        }
    };
    let callers: Vec<_> = (0..30).map(|_| tokio::spawn(caller())).collect();
    for caller in callers {
        caller.await.unwrap();
    }
}

#[tokio::test(start_paused = true)]
async fn an_adaptive_limit_shrinks_when_latency_rises_under_load_and_grows_back() {
    load(Duration::from_secs(2)).await;
    let fast = UPSTREAM.limit();
    assert_eq!(fast, 40, "flat latency: the limit grows to its max");

    // Every attempt beyond 4 in flight adds 20 ms: the queue shows.
    QUEUEING_MS.store(20, Ordering::SeqCst);
    load(Duration::from_secs(2)).await;
    let slow = UPSTREAM.limit();
    assert!(slow < fast / 2, "the limit shrank to {slow}");

    QUEUEING_MS.store(0, Ordering::SeqCst);
    load(Duration::from_secs(2)).await;
    assert_eq!(UPSTREAM.limit(), 40, "grown back");
}

static PROVIDER: AdaptiveRate = AdaptiveRate::new().named("provider");
/// While set, the provider answers every request with a 429.
static STORM: AtomicU32 = AtomicU32::new(0);

#[resilient(limit = &PROVIDER, rate_limit = |e: &Error| (*e == Error::TooMany).then_some(MS))]
async fn provider() -> Result<(), Error> {
    if STORM.load(Ordering::SeqCst) == 1 {
        return Err(Error::TooMany);
    }
    Ok(())
}

/// Calls `provider` every 10 ms for a second; how many were sent.
async fn one_second_of_calls() -> u32 {
    let mut sent = 0;
    for _ in 0..100 {
        if !matches!(provider().await.into_result(), Err(Error::Busy(_))) {
            sent += 1;
        }
        sleep(MS * 10).await;
    }
    sent
}

#[tokio::test(start_paused = true)]
async fn a_429_storm_engages_the_adaptive_rate_and_the_send_rate_recovers() {
    assert_eq!(one_second_of_calls().await, 100);
    assert_eq!(PROVIDER.rate(), None, "off until throttled");

    STORM.store(1, Ordering::SeqCst);
    let during: Vec<u32> = vec![one_second_of_calls().await, one_second_of_calls().await];
    assert!(PROVIDER.rate().is_some(), "engaged by the first 429");
    assert!(
        during[1] < 20,
        "the storm's second second sent {}",
        during[1]
    );

    STORM.store(0, Ordering::SeqCst);
    let mut after = Vec::new();
    for _ in 0..8 {
        after.push(one_second_of_calls().await);
    }
    assert!(
        after.last() > after.first() && *after.last().unwrap() >= 90,
        "the send rate after the storm: {after:?}"
    );
}

/// Five futures run to completion together, in order.
async fn futures_join5<F: std::future::Future>(a: F, b: F, c: F, d: F, e: F) -> [F::Output; 5] {
    let (a, b, c, d, e) = tokio::join!(a, b, c, d, e);
    [a, b, c, d, e]
}
