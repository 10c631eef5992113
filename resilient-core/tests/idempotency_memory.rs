//! Idempotent calls on a `MemoryStore`: one run per key, replays, joins,
//! hand-overs after a failure, a cancellation, a panic or a lapsed lease,
//! TTL expiry and the bounded wait. Async tests run on paused tokio time, so
//! every instant asserted is exact; blocking tests use real threads.

use std::future::{Future, poll_fn};
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::sync::mpsc;
use std::task::Poll;
use std::thread;
use std::time::Duration;

use resilient_core::idempotency::{
    IdempotencyError, IdempotencyStatus, MemoryStore, run_idempotent, run_idempotent_blocking,
};
use resilient_core::{Clock, FakeClock, SystemClock, TokioClock};
use tokio::task::JoinSet;
use tokio::time::{Instant, sleep};

use IdempotencyStatus::{Executed, Joined, Replayed};

const KEY: &str = "order-1";
const TTL: Duration = Duration::from_secs(60);

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

type Outcome = Result<(Result<u32, &'static str>, IdempotencyStatus), IdempotencyError>;

/// The body of every async call: counts itself, takes `takes`, then ends
/// with `result`, storable or not.
async fn work(
    runs: Arc<AtomicU32>,
    takes: Duration,
    result: Result<u32, &'static str>,
    storable: bool,
) -> (Result<u32, &'static str>, bool) {
    runs.fetch_add(1, SeqCst);
    sleep(takes).await;
    (result, storable)
}

/// A call to run on paused time: the store, its run counter, and what the
/// body does.
#[derive(Clone)]
struct Call {
    store: Arc<MemoryStore<u32>>,
    runs: Arc<AtomicU32>,
    max_wait: Option<Duration>,
    takes: Duration,
    result: Result<u32, &'static str>,
    storable: bool,
}

impl Call {
    fn new(store: &Arc<MemoryStore<u32>>, runs: &Arc<AtomicU32>) -> Call {
        Call {
            store: Arc::clone(store),
            runs: Arc::clone(runs),
            max_wait: None,
            takes: secs(1),
            result: Ok(42),
            storable: true,
        }
    }

    fn takes(mut self, takes: Duration) -> Call {
        self.takes = takes;
        self
    }

    fn returns(mut self, result: Result<u32, &'static str>) -> Call {
        self.result = result;
        self
    }

    fn max_wait(mut self, max_wait: Duration) -> Call {
        self.max_wait = Some(max_wait);
        self
    }

    fn unstorable(mut self) -> Call {
        self.storable = false;
        self
    }

    async fn run(self) -> Outcome {
        let Call {
            store,
            runs,
            max_wait,
            takes,
            result,
            storable,
        } = self;
        let body = || work(runs, takes, result, storable);
        run_idempotent(&*store, KEY, TTL, max_wait, &TokioClock, body).await
    }
}

fn fixture() -> (Arc<MemoryStore<u32>>, Arc<AtomicU32>) {
    (Arc::new(MemoryStore::new()), Arc::new(AtomicU32::new(0)))
}

#[tokio::test(start_paused = true)]
async fn ten_concurrent_calls_with_one_key_run_the_body_once() {
    let (store, runs) = fixture();
    let start = Instant::now();
    let mut calls = JoinSet::new();
    for _ in 0..10 {
        calls.spawn(Call::new(&store, &runs).run());
    }
    let mut statuses = Vec::new();
    while let Some(outcome) = calls.join_next().await {
        let (result, status) = outcome.unwrap().unwrap();
        assert_eq!(result, Ok(42));
        statuses.push(status);
        assert_eq!(start.elapsed(), secs(1));
    }
    let count = |wanted| statuses.iter().filter(|&&status| status == wanted).count();
    assert_eq!((count(Executed), count(Joined), count(Replayed)), (1, 9, 0));
    assert_eq!(runs.load(SeqCst), 1);
    assert_eq!(store.waiters(KEY), 0);
}

#[tokio::test(start_paused = true)]
async fn a_stored_success_is_replayed_without_running_anything() {
    let (store, runs) = fixture();
    assert_eq!(
        Call::new(&store, &runs).run().await.unwrap(),
        (Ok(42), Executed)
    );
    sleep(secs(5)).await;

    let replay_started = Instant::now();
    let replay = Call::new(&store, &runs).returns(Ok(7)).run().await;
    assert_eq!(replay.unwrap(), (Ok(42), Replayed));
    assert_eq!(replay_started.elapsed(), Duration::ZERO);
    assert_eq!(runs.load(SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn a_failure_stores_nothing_and_the_next_call_runs() {
    let (store, runs) = fixture();
    let failed = Call::new(&store, &runs).returns(Err("card declined")).run();
    assert_eq!(failed.await.unwrap(), (Err("card declined"), Executed));

    let retried = Call::new(&store, &runs).returns(Ok(7)).run().await;
    assert_eq!(retried.unwrap(), (Ok(7), Executed));
    assert_eq!(runs.load(SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn a_value_marked_unstorable_is_returned_but_not_replayed() {
    let (store, runs) = fixture();
    let fallback = Call::new(&store, &runs).returns(Ok(0)).unstorable().run();
    assert_eq!(fallback.await.unwrap(), (Ok(0), Executed));

    assert_eq!(
        Call::new(&store, &runs).run().await.unwrap(),
        (Ok(42), Executed)
    );
    assert_eq!(runs.load(SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn a_waiter_runs_itself_when_the_call_it_joined_fails() {
    let (store, runs) = fixture();
    let start = Instant::now();
    let leader = tokio::spawn(Call::new(&store, &runs).returns(Err("timeout")).run());
    let waiter = tokio::spawn(Call::new(&store, &runs).takes(secs(2)).returns(Ok(7)).run());

    assert_eq!(leader.await.unwrap().unwrap(), (Err("timeout"), Executed));
    assert_eq!(start.elapsed(), secs(1));
    assert_eq!(waiter.await.unwrap().unwrap(), (Ok(7), Executed));
    assert_eq!(start.elapsed(), secs(3));
    assert_eq!(runs.load(SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_leader_frees_the_key_for_its_waiter_at_once() {
    let (store, runs) = fixture();
    let start = Instant::now();
    let leader = tokio::spawn(Call::new(&store, &runs).takes(secs(10)).run());
    let waiter = tokio::spawn(Call::new(&store, &runs).takes(secs(2)).returns(Ok(7)).run());

    sleep(secs(1)).await;
    assert_eq!(store.waiters(KEY), 1);
    leader.abort();
    assert!(leader.await.unwrap_err().is_cancelled());

    assert_eq!(waiter.await.unwrap().unwrap(), (Ok(7), Executed));
    assert_eq!(start.elapsed(), secs(3));
    assert_eq!(runs.load(SeqCst), 2);
    let replay = Call::new(&store, &runs).run().await;
    assert_eq!(replay.unwrap(), (Ok(7), Replayed));
}

#[tokio::test(start_paused = true)]
async fn a_panicking_leader_frees_the_key_for_its_waiter_at_once() {
    let (store, runs) = fixture();
    let start = Instant::now();
    let panicking = {
        let store = Arc::clone(&store);
        async move {
            let body = || async {
                sleep(secs(1)).await;
                panic!("the body panicked");
            };
            let outcome: Outcome = run_idempotent(&*store, KEY, TTL, None, &TokioClock, body).await;
            outcome
        }
    };
    let leader = tokio::spawn(panicking);
    let waiter = tokio::spawn(Call::new(&store, &runs).takes(secs(2)).returns(Ok(7)).run());

    assert!(leader.await.unwrap_err().is_panic());
    assert_eq!(waiter.await.unwrap().unwrap(), (Ok(7), Executed));
    assert_eq!(start.elapsed(), secs(3));
}

#[tokio::test(start_paused = true)]
async fn a_success_expires_after_its_ttl_and_the_next_call_runs_again() {
    let (store, runs) = fixture();
    let start = Instant::now();
    assert_eq!(
        Call::new(&store, &runs).run().await.unwrap(),
        (Ok(42), Executed)
    );
    let stored_at = Instant::now();
    assert_eq!(stored_at - start, secs(1));

    sleep(TTL - Duration::from_millis(1)).await;
    let replay = Call::new(&store, &runs).returns(Ok(7)).run().await;
    assert_eq!(replay.unwrap(), (Ok(42), Replayed));

    sleep(Duration::from_millis(1)).await;
    assert_eq!(stored_at.elapsed(), TTL);
    let fresh = Call::new(&store, &runs).returns(Ok(7)).run().await;
    assert_eq!(fresh.unwrap(), (Ok(7), Executed));
    assert_eq!(runs.load(SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn the_wait_fails_with_in_flight_at_exactly_its_bound() {
    let (store, runs) = fixture();
    let start = Instant::now();
    let leader = tokio::spawn(Call::new(&store, &runs).takes(secs(10)).run());
    let impatient = tokio::spawn(Call::new(&store, &runs).max_wait(secs(3)).run());

    let refused = impatient.await.unwrap().unwrap_err();
    assert!(
        matches!(refused, IdempotencyError::InFlight(_)),
        "{refused:?}"
    );
    assert_eq!(start.elapsed(), secs(3));
    assert_eq!(runs.load(SeqCst), 1);

    assert_eq!(leader.await.unwrap().unwrap(), (Ok(42), Executed));
    assert_eq!(start.elapsed(), secs(10));
}

#[tokio::test(start_paused = true)]
async fn renewals_keep_a_call_longer_than_its_lease_the_only_one() {
    let store = Arc::new(MemoryStore::new().with_lease(secs(4)));
    let runs = Arc::new(AtomicU32::new(0));
    let start = Instant::now();
    let leader = tokio::spawn(Call::new(&store, &runs).takes(secs(10)).run());
    let waiter = tokio::spawn(Call::new(&store, &runs).returns(Ok(7)).run());

    assert_eq!(waiter.await.unwrap().unwrap(), (Ok(42), Joined));
    assert_eq!(start.elapsed(), secs(10));
    assert_eq!(leader.await.unwrap().unwrap(), (Ok(42), Executed));
    assert_eq!(runs.load(SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn a_call_no_one_polls_loses_its_claim_when_its_lease_runs_out() {
    let store = Arc::new(MemoryStore::new().with_lease(secs(4)));
    let runs = Arc::new(AtomicU32::new(0));
    let start = Instant::now();
    let mut stalled = pin!(Call::new(&store, &runs).takes(secs(10)).run());
    // One poll: the stalled call claims the key and starts its body, then
    // is neither polled nor dropped until the end.
    poll_fn(|cx| {
        assert!(stalled.as_mut().poll(cx).is_pending());
        Poll::Ready(())
    })
    .await;

    // Bounded, so that a store that never frees the key fails the test
    // rather than hanging it.
    let successor = Call::new(&store, &runs).returns(Ok(7)).max_wait(secs(20));
    let successor = successor.run().await;
    assert_eq!(successor.unwrap(), (Ok(7), Executed));
    assert_eq!(start.elapsed(), secs(4) + secs(1));

    // The stalled call's value is its own, and can't replace the
    // successor's: its claim is gone.
    assert_eq!(stalled.await.unwrap(), (Ok(42), Executed));
    assert_eq!(start.elapsed(), secs(10));
    let replay = Call::new(&store, &runs).run().await;
    assert_eq!(replay.unwrap(), (Ok(7), Replayed));
    assert_eq!(runs.load(SeqCst), 2);
}

/// Fails the test instead of hanging it if `done` never becomes true.
fn spin_until(what: &str, done: impl Fn() -> bool) {
    let clock = SystemClock;
    let give_up = clock.now() + secs(10);
    while !done() {
        assert!(clock.now() < give_up, "gave up waiting until {what}");
        thread::yield_now();
    }
}

#[test]
fn blocking_calls_on_eight_threads_run_the_body_once() {
    static STORE: MemoryStore<u32> = MemoryStore::new();
    static RUNS: AtomicU32 = AtomicU32::new(0);
    // A real-time bound that only a broken store reaches: the test then
    // fails instead of hanging.
    let call = || {
        run_idempotent_blocking(&STORE, KEY, TTL, Some(secs(10)), &SystemClock, || {
            RUNS.fetch_add(1, SeqCst);
            // Holds the key until every other thread waits on it.
            spin_until("seven threads wait", || STORE.waiters(KEY) == 7);
            (Ok::<u32, &str>(7), true)
        })
    };

    let started = std::time::Instant::now();
    let leader = thread::spawn(call);
    spin_until("the leader runs", || RUNS.load(SeqCst) == 1);
    let waiters: Vec<_> = (0..7).map(|_| thread::spawn(call)).collect();

    assert_eq!(leader.join().unwrap().unwrap(), (Ok(7), Executed));
    for waiter in waiters {
        assert_eq!(waiter.join().unwrap().unwrap(), (Ok(7), Joined));
    }
    assert_eq!(RUNS.load(SeqCst), 1);
    assert_eq!(STORE.waiters(KEY), 0);
    // Woken by the leader's completion, long before their own bound.
    assert!(started.elapsed() < secs(5), "took {:?}", started.elapsed());
}

#[test]
fn a_blocking_call_with_no_time_to_wait_fails_at_once_without_running() {
    let store = &MemoryStore::new();
    let (finish, finished) = mpsc::channel::<()>();
    let (started, has_started) = mpsc::channel();
    thread::scope(|scope| {
        let leader = scope.spawn(move || {
            run_idempotent_blocking(store, KEY, TTL, None, &SystemClock, || {
                started.send(()).unwrap();
                finished.recv().unwrap();
                (Ok::<u32, &str>(1), true)
            })
        });
        has_started.recv().unwrap();

        let refused: Outcome =
            run_idempotent_blocking(store, KEY, TTL, Some(Duration::ZERO), &SystemClock, || {
                panic!("a refused call must not run")
            });
        assert!(
            matches!(refused, Err(IdempotencyError::InFlight(_))),
            "{refused:?}"
        );

        finish.send(()).unwrap();
        assert_eq!(leader.join().unwrap().unwrap(), (Ok(1), Executed));
    });
}

#[test]
fn a_blocking_body_that_panics_releases_the_key() {
    let store = MemoryStore::new();
    let panicked = panic::catch_unwind(AssertUnwindSafe(|| {
        run_idempotent_blocking(
            &store,
            KEY,
            TTL,
            None,
            &SystemClock,
            || -> (Result<u32, &str>, bool) { panic!("the body panicked") },
        )
    }));
    assert!(panicked.is_err());

    let next =
        run_idempotent_blocking(&store, KEY, TTL, Some(Duration::ZERO), &SystemClock, || {
            (Ok::<u32, &str>(3), true)
        });
    assert_eq!(next.unwrap(), (Ok(3), Executed));
}

#[test]
fn blocking_calls_read_ttls_from_their_clock() {
    let store = MemoryStore::new();
    let clock = FakeClock::new();
    let runs = AtomicU32::new(0);
    let call = |value: u32| {
        run_idempotent_blocking(&store, KEY, TTL, None, &clock, || {
            runs.fetch_add(1, SeqCst);
            (Ok::<u32, &str>(value), true)
        })
        .unwrap()
    };

    assert_eq!(call(1), (Ok(1), Executed));
    clock.advance(TTL - Duration::from_millis(1));
    assert_eq!(call(2), (Ok(1), Replayed));
    clock.advance(Duration::from_millis(1));
    assert_eq!(call(3), (Ok(3), Executed));
    assert_eq!(runs.load(SeqCst), 2);
    assert_eq!(clock.slept(), []);
}
