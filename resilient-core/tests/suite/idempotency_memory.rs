//! Idempotent calls on a `MemoryStore`: one run per key, replays, joins,
//! hand-overs after a failure, a cancellation, a panic or a lapsed lease,
//! TTL expiry and the bounded wait. Async tests run on paused tokio time, so
//! every instant asserted is exact; blocking tests use real threads.

use std::future::{Future, poll_fn};
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use std::sync::mpsc;
use std::task::Poll;
use std::thread;
use std::time::Duration;

use resilient_core::idempotency::{
    Claim, ClaimRequest, ClaimToken, IdempotencyError, IdempotencyStatus, IdempotencyStore,
    MemoryStore, StoreError, current_claim, run_idempotent, run_idempotent_blocking,
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
async fn a_slow_holder_keeps_its_claim_however_long_it_takes() {
    let (store, runs) = fixture();
    let start = Instant::now();
    let hours = secs(10 * 3600);
    let leader = tokio::spawn(Call::new(&store, &runs).takes(hours).run());
    let waiter = tokio::spawn(Call::new(&store, &runs).returns(Ok(7)).run());

    assert_eq!(waiter.await.unwrap().unwrap(), (Ok(42), Joined));
    assert_eq!(start.elapsed(), hours);
    assert_eq!(leader.await.unwrap().unwrap(), (Ok(42), Executed));
    assert_eq!(runs.load(SeqCst), 1);
}

/// A holder whose future is not polled for longer than any lease (a
/// blocking call inside its body, a starved executor) is still alive: in
/// one process its claim lasts until its guard settles it, so no second
/// run starts beside it.
#[tokio::test(start_paused = true)]
async fn a_holder_not_polled_for_a_long_while_keeps_its_claim() {
    let (store, runs) = fixture();
    let start = Instant::now();
    let mut stalled = pin!(Call::new(&store, &runs).takes(secs(10)).run());
    // One poll: the stalled call claims the key and starts its body, then
    // is neither polled nor dropped until the end.
    poll_fn(|cx| {
        assert!(stalled.as_mut().poll(cx).is_pending());
        Poll::Ready(())
    })
    .await;

    let successor = Call::new(&store, &runs).returns(Ok(7)).max_wait(secs(120));
    let refused = successor.run().await.unwrap_err();
    assert!(
        matches!(refused, IdempotencyError::InFlight(_)),
        "{refused:?}"
    );
    assert_eq!(start.elapsed(), secs(120));

    assert_eq!(stalled.await.unwrap(), (Ok(42), Executed));
    let replay = Call::new(&store, &runs).run().await;
    assert_eq!(replay.unwrap(), (Ok(42), Replayed));
    assert_eq!(runs.load(SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn with_a_ttl_of_zero_concurrent_calls_join_and_later_ones_run_again() {
    let (store, runs) = fixture();
    let start = Instant::now();
    let call = || {
        let runs = Arc::clone(&runs);
        let store = Arc::clone(&store);
        async move {
            let body = || work(runs, secs(1), Ok(5), true);
            run_idempotent(&*store, KEY, Duration::ZERO, None, &TokioClock, body).await
        }
    };
    let mut calls = JoinSet::new();
    for _ in 0..5 {
        calls.spawn(call());
    }
    let mut statuses: Vec<_> = calls
        .join_all()
        .await
        .into_iter()
        .map(|outcome| {
            let (value, status) = outcome.unwrap();
            assert_eq!(value, Ok(5));
            status
        })
        .collect();
    statuses.sort_by_key(|status| *status != Executed);
    assert_eq!(statuses, [Executed, Joined, Joined, Joined, Joined]);
    assert_eq!(start.elapsed(), secs(1));
    assert_eq!(runs.load(SeqCst), 1);

    // Nothing stored afterwards: the next call runs.
    assert_eq!(call().await.unwrap(), (Ok(5), Executed));
    assert_eq!(runs.load(SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn a_body_that_calls_its_own_key_fails_at_once_instead_of_waiting_for_itself() {
    let (store, _) = fixture();
    let start = Instant::now();
    let body = || async {
        let again = run_idempotent(&*store, KEY, TTL, None, &TokioClock, || async {
            (Ok::<u32, &str>(1), true)
        })
        .await;
        assert!(
            matches!(again, Err(IdempotencyError::InFlight(_))),
            "{again:?}"
        );
        // Another key is no re-entrance, and has a claim of its own.
        let other = run_idempotent(&*store, "other", TTL, None, &TokioClock, || async {
            let inner = current_claim().unwrap();
            (Ok::<u32, &str>(u32::from(inner.key() == "other")), true)
        })
        .await;
        assert_eq!(other.unwrap(), (Ok(1), Executed));
        let outer = current_claim().unwrap();
        assert_eq!(outer.key(), KEY);
        (Ok::<u32, &str>(2), true)
    };
    let ran = run_idempotent(&*store, KEY, TTL, None, &TokioClock, body).await;
    assert_eq!(ran.unwrap(), (Ok(2), Executed));
    assert_eq!(start.elapsed(), Duration::ZERO);
    assert!(current_claim().is_none());
}

#[test]
fn a_blocking_body_that_calls_its_own_key_fails_at_once() {
    let store = MemoryStore::new();
    let ran = run_idempotent_blocking(&store, KEY, TTL, None, &SystemClock, || {
        let again = run_idempotent_blocking(&store, KEY, TTL, None, &SystemClock, || {
            (Ok::<u32, &str>(1), true)
        });
        assert!(
            matches!(again, Err(IdempotencyError::InFlight(_))),
            "{again:?}"
        );
        (Ok::<u32, &str>(2), true)
    });
    assert_eq!(ran.unwrap(), (Ok(2), Executed));
}

#[tokio::test(start_paused = true)]
async fn every_claim_of_a_key_gets_a_larger_fencing_token() {
    let (store, _) = fixture();
    let tokens = std::sync::Mutex::new(Vec::new());
    for result in [Err("declined"), Err("declined"), Ok(1)] {
        let body = || async {
            let claim = current_claim().unwrap();
            tokens.lock().unwrap().push(claim.fencing_token());
            (result, true)
        };
        let _ = run_idempotent(&*store, KEY, TTL, None, &TokioClock, body)
            .await
            .unwrap();
    }
    let tokens = tokens.into_inner().unwrap();
    assert_eq!(tokens.len(), 3);
    assert!(tokens.is_sorted_by(|a, b| a < b), "{tokens:?}");
}

/// A store with a lease, as a shared store has: the holder renews it.
struct Leased(MemoryStore<u32>);

impl IdempotencyStore<u32> for Leased {
    fn claim(
        &self,
        key: &str,
        request: ClaimRequest,
        now: std::time::Instant,
    ) -> impl Future<Output = Result<Claim<u32>, StoreError>> + Send {
        let claim = self.0.claim(key, request, now);
        async move {
            Ok(match claim.await? {
                Claim::Acquired {
                    token,
                    fencing_token,
                    ..
                } => Claim::Acquired {
                    token,
                    lease: secs(30),
                    fencing_token,
                },
                other => other,
            })
        }
    }
    fn wait(&self, key: &str) -> impl Future<Output = Result<(), StoreError>> + Send {
        self.0.wait(key)
    }
    fn complete(
        &self,
        key: &str,
        token: ClaimToken,
        value: &u32,
        ttl: Duration,
        now: std::time::Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        self.0.complete(key, token, value, ttl, now)
    }
    fn release(
        &self,
        key: &str,
        token: ClaimToken,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'static {
        self.0.release(key, token)
    }
    fn renew(
        &self,
        key: &str,
        token: ClaimToken,
        now: std::time::Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        self.0.renew(key, token, now)
    }
}

/// Runs `test` on a thread of its own and fails if it hasn't finished
/// within `bound` of real time: a test of a hang must not hang.
fn within<R: Send + 'static>(bound: Duration, test: impl FnOnce() -> R + Send + 'static) -> R {
    let (done, finished) = mpsc::channel();
    thread::spawn(move || done.send(test()).unwrap());
    finished
        .recv_timeout(bound)
        .expect("the call hung (or the test panicked)")
}

#[test]
fn a_fake_clock_drives_an_idempotent_async_call_whose_body_is_pending() {
    let slept = within(secs(10), || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let clock = FakeClock::new();
        let store = Leased(MemoryStore::new());
        let ran = runtime.block_on(run_idempotent(&store, KEY, TTL, None, &clock, || async {
            // Pending a few times, as any body awaiting I/O is.
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
            (Ok::<u32, &str>(4), true)
        }));
        assert_eq!(ran.unwrap(), (Ok(4), Executed));
        clock.slept()
    });
    // Renewals are not the operation's sleeps.
    assert_eq!(slept, []);
}

#[test]
fn a_blocking_call_on_a_current_thread_runtime_fails_at_once_rather_than_freeze_it() {
    let outcome = within(secs(10), || {
        static STORE: MemoryStore<u32> = MemoryStore::new();
        static RUNS: AtomicU32 = AtomicU32::new(0);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (release, released) = tokio::sync::oneshot::channel::<()>();
            let holder = tokio::spawn(run_idempotent(
                &STORE,
                KEY,
                TTL,
                None,
                &TokioClock,
                || async {
                    RUNS.fetch_add(1, SeqCst);
                    released.await.unwrap();
                    (Ok::<u32, &str>(1), true)
                },
            ));
            tokio::task::yield_now().await;
            assert_eq!(RUNS.load(SeqCst), 1);
            // On the runtime's only thread, which the holder needs.
            let blocking = run_idempotent_blocking(&STORE, KEY, TTL, None, &SystemClock, || {
                RUNS.fetch_add(1, SeqCst);
                (Ok::<u32, &str>(2), true)
            });
            release.send(()).unwrap();
            assert_eq!(holder.await.unwrap().unwrap(), (Ok(1), Executed));
            (blocking, RUNS.load(SeqCst))
        })
    });
    let (blocking, runs) = outcome;
    assert!(
        matches!(blocking, Err(IdempotencyError::InFlight(_))),
        "{blocking:?}"
    );
    assert_eq!(runs, 1);
}

/// A call holding the key on a multi-thread runtime of one worker, and a
/// blocking call with the same key on that worker's thread; the holder
/// ends once the blocking call waits for it, or has returned. What the
/// blocking call returned, and how many bodies ran.
fn a_blocking_call_beside_a_holder_on_one_worker() -> (Outcome, u32) {
    static STORE: MemoryStore<u32> = MemoryStore::new();
    static RUNS: AtomicU32 = AtomicU32::new(0);
    within(secs(10), || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (release, released) = tokio::sync::oneshot::channel::<()>();
            let (claimed, has_claimed) = tokio::sync::oneshot::channel::<()>();
            let holder = tokio::spawn(run_idempotent(
                &STORE,
                KEY,
                TTL,
                None,
                &TokioClock,
                || async {
                    RUNS.fetch_add(1, SeqCst);
                    claimed.send(()).unwrap();
                    released.await.unwrap();
                    (Ok::<u32, &str>(1), true)
                },
            ));
            has_claimed.await.unwrap();
            // The one worker's thread: the holder runs elsewhere meanwhile.
            let blocking = tokio::spawn(async {
                run_idempotent_blocking(&STORE, KEY, TTL, None, &SystemClock, || {
                    RUNS.fetch_add(1, SeqCst);
                    (Ok::<u32, &str>(2), true)
                })
            });
            let returned = Arc::new(AtomicBool::new(false));
            let seen = Arc::clone(&returned);
            let releaser = thread::spawn(move || {
                spin_until("the blocking call waits or returns", || {
                    STORE.waiters(KEY) == 1 || seen.load(SeqCst)
                });
                release.send(()).unwrap();
            });
            let blocking = blocking.await.unwrap();
            returned.store(true, SeqCst);
            releaser.join().unwrap();
            assert_eq!(holder.await.unwrap().unwrap(), (Ok(1), Executed));
            (blocking, RUNS.load(SeqCst))
        })
    })
}

#[cfg(feature = "rt-multi-thread")]
#[test]
fn a_blocking_call_on_a_multi_thread_worker_waits_without_starving_the_holder() {
    let (blocking, runs) = a_blocking_call_beside_a_holder_on_one_worker();
    assert_eq!(blocking.unwrap(), (Ok(1), Joined));
    assert_eq!(runs, 1);
}

/// Without `rt-multi-thread` there is no `block_in_place` to lend the
/// worker's tasks: the call fails at once, as on a `current_thread`
/// runtime, rather than park a worker the holder may need. (`.ci/run` runs
/// this test without the crate's features.)
#[cfg(not(feature = "rt-multi-thread"))]
#[test]
fn without_rt_multi_thread_a_blocking_call_on_a_worker_fails_at_once() {
    let (blocking, runs) = a_blocking_call_beside_a_holder_on_one_worker();
    assert!(
        matches!(blocking, Err(IdempotencyError::InFlight(_))),
        "{blocking:?}"
    );
    assert_eq!(runs, 1);
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
