//! What an idempotent call guarantees through the attribute, option by
//! option: the report hook sees every call with its status, the budget
//! covers the wait, hedging composes, and a fingerprint refuses a key reused
//! with other parameters.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::time::Duration;

use resilient::idempotency::{
    IdempotencyConflict, IdempotencyInFlight, IdempotencyStatus, IdempotencyStored, MemoryStore,
    StoreError,
};
use resilient::{ExecutionReport, StopReason, TimedOut, resilient};
use tokio::time::{Instant, sleep};

use IdempotencyStatus::{Executed, Joined, Replayed};

#[derive(Debug, Clone, PartialEq)]
enum PayError {
    Declined,
    Busy,
    Conflict,
    TimedOut,
    Store(String),
}

impl std::fmt::Display for PayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<IdempotencyInFlight> for PayError {
    fn from(_: IdempotencyInFlight) -> Self {
        PayError::Busy
    }
}

impl From<IdempotencyConflict> for PayError {
    fn from(_: IdempotencyConflict) -> Self {
        PayError::Conflict
    }
}

impl From<StoreError> for PayError {
    fn from(error: StoreError) -> Self {
        PayError::Store(error.to_string())
    }
}

impl From<TimedOut> for PayError {
    fn from(_: TimedOut) -> Self {
        PayError::TimedOut
    }
}

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// What the hook saw of one call.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    status: Option<IdempotencyStatus>,
    stored: Option<IdempotencyStored>,
    stop: StopReason,
    elapsed: Duration,
}

static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

fn seen(report: &ExecutionReport) {
    SEEN.lock().unwrap().push(Seen {
        status: report.idempotency(),
        stored: report.idempotency_stored(),
        stop: report.stop_reason(),
        elapsed: report.elapsed(),
    });
}

static HOOKED: MemoryStore<u32> = MemoryStore::new();

#[resilient(budget = "2s", idempotency = &HOOKED, idempotency_key = key, report = seen)]
async fn hooked(key: &str, takes: u64) -> Result<u32, PayError> {
    sleep(secs(takes)).await;
    Ok(7)
}

/// Holds a key of `HOOKED` for `takes`, unobserved.
#[resilient(idempotency = &HOOKED, idempotency_key = key)]
async fn holder(key: &str, takes: u64) -> Result<u32, PayError> {
    sleep(secs(takes)).await;
    Ok(8)
}

#[tokio::test(start_paused = true)]
async fn the_hook_sees_every_call_once_with_its_status_set() {
    let (executed, joined) = tokio::join!(hooked("a", 1), hooked("a", 1));
    assert_eq!((executed.unwrap(), joined.unwrap()), (7, 7));
    assert_eq!(hooked("a", 1).await, Ok(7));
    let (held, refused) = tokio::join!(holder("b", 5), hooked("b", 0));
    assert_eq!(held.result(), &Ok(8));
    assert_eq!(refused, Err(PayError::Busy));

    let seen = |status, stored, stop, elapsed| Seen {
        status,
        stored,
        stop,
        elapsed,
    };
    assert_eq!(
        *SEEN.lock().unwrap(),
        [
            seen(
                Some(Executed),
                Some(IdempotencyStored::Stored),
                StopReason::Succeeded,
                secs(1)
            ),
            seen(Some(Joined), None, StopReason::Succeeded, secs(1)),
            seen(Some(Replayed), None, StopReason::Succeeded, secs(0)),
            seen(None, None, StopReason::BudgetExhausted, secs(2)),
        ]
    );
}

static WAITED: MemoryStore<u32> = MemoryStore::new();
static WAITED_RUNS: AtomicU32 = AtomicU32::new(0);

/// Fails after `fails_after` seconds, or succeeds after `takes`.
#[resilient(budget = "10s", idempotency = &WAITED, idempotency_key = "order-5")]
async fn within_budget(fails_after: Option<u64>, takes: u64) -> Result<u32, PayError> {
    WAITED_RUNS.fetch_add(1, SeqCst);
    if let Some(after) = fails_after {
        sleep(secs(after)).await;
        return Err(PayError::Declined);
    }
    sleep(secs(takes)).await;
    Ok(3)
}

#[tokio::test(start_paused = true)]
async fn a_waiter_that_takes_over_has_what_is_left_of_its_budget() {
    let start = Instant::now();
    let holder = tokio::spawn(within_budget(Some(7), 0));
    tokio::task::yield_now().await;
    // Waits 7 s for the holder, which fails; then runs with the 3 s left.
    let waiter = within_budget(None, 5).await;
    assert_eq!(waiter.result(), &Err(PayError::TimedOut));
    assert_eq!(waiter.report().idempotency(), Some(Executed));
    assert_eq!(waiter.report().stop_reason(), StopReason::BudgetExhausted);
    assert_eq!(waiter.report().elapsed(), secs(10));
    assert_eq!(start.elapsed(), secs(10));
    assert_eq!(holder.await.unwrap().result(), &Err(PayError::Declined));
    assert_eq!(WAITED_RUNS.load(SeqCst), 2);
}

static HEDGED: MemoryStore<u32> = MemoryStore::new();
static HEDGED_RUNS: AtomicU32 = AtomicU32::new(0);

#[resilient(hedge = "100ms", max_hedges = 1, idempotency = &HEDGED, idempotency_key = "quote")]
async fn hedged_quote() -> Result<u32, PayError> {
    let n = HEDGED_RUNS.fetch_add(1, SeqCst) + 1;
    if n == 1 {
        sleep(secs(1)).await;
    }
    Ok(n)
}

#[tokio::test(start_paused = true)]
async fn hedging_runs_under_the_key_once() {
    let start = Instant::now();
    let first = hedged_quote().await;
    assert_eq!(first.result(), &Ok(2), "the hedge answered");
    assert_eq!(start.elapsed(), Duration::from_millis(100));
    assert_eq!(first.report().attempt_count(), 2);
    assert_eq!(first.report().idempotency(), Some(Executed));
    let again = hedged_quote().await;
    assert_eq!(again.result(), &Ok(2));
    assert_eq!(again.report().idempotency(), Some(Replayed));
    assert_eq!(HEDGED_RUNS.load(SeqCst), 2);
}

static PAYMENTS: MemoryStore<u64> = MemoryStore::new();
static PAID: AtomicU32 = AtomicU32::new(0);

#[resilient(
    idempotency = &PAYMENTS,
    idempotency_key = format!("pay-{order}"),
    idempotency_fingerprint = (order, cents)
)]
async fn pay(order: u32, cents: u64) -> Result<u64, PayError> {
    PAID.fetch_add(1, SeqCst);
    sleep(secs(1)).await;
    Ok(cents)
}

#[tokio::test(start_paused = true)]
async fn a_key_reused_with_other_parameters_conflicts_in_flight_and_stored() {
    let start = Instant::now();
    let (first, other) = tokio::join!(pay(1, 100), pay(1, 999));
    assert_eq!(first.result(), &Ok(100));
    assert_eq!(other.result(), &Err(PayError::Conflict));
    assert_eq!(other.report().idempotency(), None);
    assert_eq!(other.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(start.elapsed(), secs(1));

    let replay = pay(1, 100).await;
    assert_eq!(replay.result(), &Ok(100));
    assert_eq!(replay.report().idempotency(), Some(Replayed));
    assert_eq!(pay(1, 999).await.result(), &Err(PayError::Conflict));
    assert_eq!(PAID.load(SeqCst), 1);
}

static HANDED: MemoryStore<u32> = MemoryStore::new();
static HANDED_RUNS: AtomicU32 = AtomicU32::new(0);

#[resilient(idempotency = &HANDED, idempotency_key = "mail", idempotency_ttl = "0s")]
async fn send_mail() -> Result<u32, PayError> {
    let n = HANDED_RUNS.fetch_add(1, SeqCst) + 1;
    sleep(secs(1)).await;
    Ok(n)
}

#[tokio::test(start_paused = true)]
async fn a_ttl_of_zero_joins_the_call_in_flight_and_stores_nothing() {
    let calls: Vec<_> = (0..5).map(|_| tokio::spawn(send_mail())).collect();
    let mut statuses = Vec::new();
    for call in calls {
        let outcome = call.await.unwrap();
        assert_eq!(outcome.result(), &Ok(1));
        statuses.push((
            outcome.report().idempotency(),
            outcome.report().idempotency_stored(),
        ));
    }
    assert_eq!(
        statuses[0],
        (Some(Executed), Some(IdempotencyStored::TtlZero))
    );
    assert!(
        statuses[1..].iter().all(|s| *s == (Some(Joined), None)),
        "{statuses:?}"
    );
    assert_eq!(send_mail().await.result(), &Ok(2), "nothing was stored");
}
