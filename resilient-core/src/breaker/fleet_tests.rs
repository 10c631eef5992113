//! A shared breaker's local side, with the fleet's verdicts written by the
//! test as the publisher would write them: what a call may do in each
//! verdict, the fleet's probe slot from its grant to its settlement, and
//! the slot a call gives back when it is cut at an await.

use std::cell::Cell;
use std::sync::{Arc, LazyLock};
use std::thread;
use std::time::{Duration, Instant};

use super::shared::{Fleet, ProbeEnd};
use super::{CircuitBreaker, CircuitOpen, CircuitState, Config, FleetState};

/// The fleet's clock in these tests: a start, moved on by each test
/// thread on its own, so that no test sleeps.
static START: LazyLock<Instant> = LazyLock::new(Instant::now);

thread_local! {
    static OFFSET: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

fn fleet_now() -> Instant {
    *START + OFFSET.with(Cell::get)
}

fn advance(by: Duration) {
    OFFSET.with(|offset| offset.set(offset.get() + by));
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// A breaker that 3 consecutive failures open for 10 s, shared with a
/// fleet whose publisher is the test.
fn shared() -> (CircuitBreaker, Arc<Fleet>) {
    let anchor = Instant::now();
    let fleet = Arc::new(Fleet::new(anchor, fleet_now));
    let config = Config {
        failure_threshold: Some(3),
        break_nanos: super::saturating_nanos(secs(10)),
        ..Config::default()
    };
    let breaker = CircuitBreaker::with_config(config, anchor, Some(Arc::clone(&fleet)));
    (breaker, fleet)
}

/// The fleet's verdict: open for `left` in `epoch`, trusted for 5 s.
fn open_for(fleet: &Fleet, epoch: u64, left: Duration) {
    fleet.joined(epoch, Some(left), secs(5));
}

#[test]
fn a_closed_fleet_leaves_every_call_to_the_local_breaker_and_hears_every_outcome() {
    let (breaker, fleet) = shared();
    assert_eq!(breaker.fleet_state(), Some(FleetState::Alone));
    assert!(fleet.joined(1, None, secs(5)), "it was alone before");
    assert_eq!(
        breaker.fleet_state(),
        Some(FleetState::Joined(CircuitState::Closed))
    );
    let now = Instant::now();
    breaker.try_acquire(now).unwrap().record_success(now);
    breaker.try_acquire(now).unwrap().record_failure(now);
    drop(breaker.try_acquire(now).unwrap());
    assert_eq!(
        fleet.take_outcomes(),
        (2, 1),
        "a dropped call is no outcome"
    );
    assert_eq!(fleet.take_outcomes(), (0, 0));
    // The local rule still opens the local breaker alone: two more
    // failures make three in a row.
    for _ in 0..2 {
        breaker.try_acquire(now).unwrap().record_failure(now);
    }
    assert_eq!(breaker.try_acquire(now).unwrap_err(), CircuitOpen);
    assert_eq!(breaker.state(now), CircuitState::Open);
    assert_eq!(
        breaker.fleet_state(),
        Some(FleetState::Joined(CircuitState::Closed))
    );
}

#[test]
fn an_open_fleet_rejects_calls_a_closed_local_breaker_would_run() {
    let (breaker, fleet) = shared();
    open_for(&fleet, 1, secs(2));
    let now = Instant::now();
    assert_eq!(breaker.local_state(now), CircuitState::Closed);
    assert_eq!(breaker.state(now), CircuitState::Open);
    assert_eq!(breaker.try_acquire(now).unwrap_err(), CircuitOpen);
    assert_eq!(fleet.take_outcomes(), (0, 0), "a rejected call never ran");
    assert!(
        !fleet.probe_wanted(),
        "no probe is asked for during the break"
    );

    advance(secs(2));
    assert_eq!(breaker.state(now), CircuitState::HalfOpen);
    assert_eq!(breaker.try_acquire(now).unwrap_err(), CircuitOpen);
    assert!(
        fleet.probe_wanted(),
        "a call asked the publisher for a slot"
    );
    assert!(!fleet.probe_wanted(), "asked once");
}

#[test]
fn the_fleets_slot_admits_one_probe_whose_outcome_is_settled_once() {
    let (breaker, fleet) = shared();
    open_for(&fleet, 4, Duration::ZERO);
    fleet.granted(4);
    let now = Instant::now();
    let probe = breaker.try_acquire(now).unwrap();
    assert!(probe.is_probe());
    assert_eq!(
        breaker.try_acquire(now).unwrap_err(),
        CircuitOpen,
        "one slot"
    );
    assert_eq!(fleet.settlement(), None, "still running");
    probe.record_success(now);
    let (word, epoch, how) = fleet.settlement().unwrap();
    assert_eq!((epoch, how), (4, ProbeEnd::Succeeded));
    fleet.free(word);
    assert!(fleet.slot_free());
    assert_eq!(breaker.try_acquire(now).unwrap_err(), CircuitOpen);
}

#[test]
fn a_probe_of_an_older_epoch_settles_nothing() {
    let (breaker, fleet) = shared();
    open_for(&fleet, 4, Duration::ZERO);
    fleet.granted(4);
    let now = Instant::now();
    let late = breaker.try_acquire(now).unwrap();
    // Another instance's probe failed: a new break, a new epoch.
    open_for(&fleet, 5, Duration::ZERO);
    fleet.granted(5);
    late.record_failure(now);
    assert_eq!(
        fleet.settlement(),
        None,
        "the new epoch's slot is untouched"
    );
    let probe = breaker.try_acquire(now).unwrap();
    drop(probe);
    assert_eq!(
        fleet.settlement().map(|(_, e, how)| (e, how)),
        Some((5, ProbeEnd::Released))
    );
}

#[test]
fn a_local_probe_waits_for_the_fleet_while_it_holds_the_breaker_open() {
    let (breaker, fleet) = shared();
    let t0 = Instant::now();
    for _ in 0..3 {
        breaker.try_acquire(t0).unwrap().record_failure(t0);
    }
    open_for(&fleet, 1, secs(60));
    let t10 = t0 + secs(10);
    assert_eq!(breaker.local_state(t10), CircuitState::HalfOpen);
    assert_eq!(breaker.try_acquire(t10).unwrap_err(), CircuitOpen);
    assert_eq!(
        breaker.probes_in_flight(),
        0,
        "the local probe slot taken went back"
    );
    // The fleet closed: the local breaker probes on its own again.
    fleet.joined(2, None, secs(5));
    let probe = breaker.try_acquire(t10).unwrap();
    assert!(probe.is_probe());
    probe.record_success(t10);
    assert_eq!(breaker.state(t10), CircuitState::Closed);
}

#[test]
fn a_verdict_that_went_stale_leaves_calls_to_the_local_breaker() {
    let (breaker, fleet) = shared();
    open_for(&fleet, 1, secs(60));
    let now = Instant::now();
    assert!(breaker.try_acquire(now).is_err());
    advance(secs(5));
    assert_eq!(breaker.fleet_state(), Some(FleetState::Alone));
    assert!(
        breaker.try_acquire(now).is_ok(),
        "no word from the fleet for 5 s"
    );
}

#[test]
fn alone_drops_the_verdict_and_the_slot() {
    let (breaker, fleet) = shared();
    assert!(!fleet.alone(), "never joined");
    open_for(&fleet, 3, Duration::ZERO);
    fleet.granted(3);
    assert!(fleet.alone(), "it had joined");
    assert!(fleet.slot_free());
    assert_eq!(breaker.fleet_state(), Some(FleetState::Alone));
    assert!(breaker.try_acquire(Instant::now()).is_ok());
}

#[tokio::test(start_paused = true)]
async fn a_probe_cut_at_an_await_gives_the_fleets_slot_back() {
    #[derive(Debug)]
    struct Open;
    impl From<CircuitOpen> for Open {
        fn from(_: CircuitOpen) -> Self {
            Open
        }
    }
    impl std::fmt::Display for Open {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("open")
        }
    }
    let (breaker, fleet) = shared();
    open_for(&fleet, 7, Duration::ZERO);
    fleet.granted(7);
    let call = crate::Operation::new()
        .circuit_breaker(&breaker)
        .run_async(async |_| {
            std::future::pending::<()>().await;
            Ok::<(), Open>(())
        });
    // The caller gives up while the probe awaits its dependency.
    assert!(
        tokio::time::timeout(Duration::from_millis(10), call)
            .await
            .is_err()
    );
    let (_, epoch, how) = fleet.settlement().expect("the slot was settled");
    assert_eq!((epoch, how), (7, ProbeEnd::Released));
}

#[test]
fn outcomes_counted_from_many_threads_are_all_taken_once() {
    const THREADS: u32 = 4;
    const CALLS: u32 = 20_000;
    let (breaker, fleet) = shared();
    fleet.joined(1, None, secs(5));
    let breaker = Arc::new(breaker);
    let (mut calls, mut failures) = (0, 0);
    thread::scope(|scope| {
        for worker in 0..THREADS {
            let breaker = Arc::clone(&breaker);
            scope.spawn(move || {
                let now = Instant::now();
                for i in 0..CALLS {
                    let permit = breaker.try_acquire(now).unwrap();
                    // One failure in four: the threshold of 3 is never met.
                    if (i + worker) % 4 == 0 {
                        permit.record_failure(now);
                    } else {
                        permit.record_success(now);
                    }
                }
            });
        }
        // The publisher takes the counts while they are being added.
        for _ in 0..1_000 {
            let (c, f) = fleet.take_outcomes();
            calls += c;
            failures += f;
            thread::yield_now();
        }
    });
    let (c, f) = fleet.take_outcomes();
    assert_eq!(
        (calls + c, failures + f),
        (THREADS * CALLS, THREADS * CALLS / 4)
    );
}

#[test]
fn threads_racing_for_one_slot_run_one_probe() {
    for _ in 0..200 {
        let (breaker, fleet) = shared();
        open_for(&fleet, 2, Duration::ZERO);
        fleet.granted(2);
        let admitted: u32 = thread::scope(|scope| {
            let racers: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        OFFSET.with(|offset| offset.set(Duration::ZERO));
                        let now = Instant::now();
                        match breaker.try_acquire(now) {
                            Ok(permit) => {
                                std::mem::forget(permit);
                                1
                            }
                            Err(_) => 0,
                        }
                    })
                })
                .collect();
            racers.into_iter().map(|racer| racer.join().unwrap()).sum()
        });
        assert_eq!(admitted, 1);
    }
}

#[test]
fn isolation_is_local_and_the_fleets_verdict_never_lifts_it() {
    let (breaker, fleet) = shared();
    assert!(fleet.joined(1, None, secs(5)));
    breaker.isolate();
    // The fleet is closed, yet this instance rejects, and tells it nothing.
    let now = fleet_now();
    assert_eq!(breaker.state(now), CircuitState::Isolated);
    assert_eq!(breaker.try_acquire(now).unwrap_err(), CircuitOpen);
    // The fleet opens: still isolated, not open.
    open_for(&fleet, 2, secs(10));
    assert_eq!(breaker.state(now), CircuitState::Isolated);
    breaker.reset();
    // Reset hands the call back to the fleet's verdict, which is open.
    assert_eq!(breaker.state(now), CircuitState::Open);
    assert_eq!(breaker.try_acquire(now).unwrap_err(), CircuitOpen);
}
