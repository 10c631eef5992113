//! Loom models of the breaker: each runs a few threads against one breaker
//! and checks its invariant in every interleaving of their atomic
//! operations that loom explores (all of them up to a preemption bound).
//!
//! ```sh
//! RUSTFLAGS="--cfg loom" cargo test -p resilient-core --release loom
//! ```
//!
//! Under `cfg(loom)` the breaker's atomics are loom's (see `atomic.rs`).
//! Permits borrow their breaker while loom's threads must own what they
//! use, so a permit crosses into a thread as a [`Handoff`].

use std::time::{Duration, Instant};

use ::loom::sync::Arc;
use ::loom::sync::atomic::{AtomicUsize, Ordering};
use ::loom::thread;

use super::shared::{Fleet, ProbeEnd};
use super::word::{Streak, Tag, Word};
use super::{CircuitBreaker, CircuitPermit, CircuitState, Config};

/// Checks `f` in every interleaving with at most `preemptions` preemptions,
/// unless `LOOM_MAX_PREEMPTIONS` asks for another bound. Each model's bound
/// lets its races play out and keeps it to seconds.
fn model(preemptions: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = ::loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(preemptions);
    builder.check(f);
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// A breaker that one failure opens for 10 s, with `probes` slots whose
/// probes time out after `timeout_secs`.
fn breaker(probes: u32, timeout_secs: u64) -> Arc<CircuitBreaker> {
    let breaker = CircuitBreaker::builder()
        .failure_threshold(1)
        .break_duration(secs(10))
        .half_open_probes(probes)
        .probe_timeout(secs(timeout_secs))
        .build()
        .unwrap();
    Arc::new(breaker)
}

/// Opens `breaker` at `t0` and returns when its break is over.
fn open(breaker: &CircuitBreaker, t0: Instant) -> Instant {
    breaker.try_acquire(t0).unwrap().record_failure(t0);
    t0 + secs(10)
}

/// A permit on its way to another thread.
struct Handoff {
    generation: u32,
    probe: bool,
    fleet: u16,
}

impl Handoff {
    fn new(permit: CircuitPermit<'_>) -> Self {
        let handoff = Self {
            generation: permit.generation,
            probe: permit.probe,
            fleet: permit.fleet,
        };
        // The permit lives on in the thread that takes the handoff.
        std::mem::forget(permit);
        handoff
    }

    fn take(self, breaker: &CircuitBreaker) -> CircuitPermit<'_> {
        let mut permit = CircuitPermit::new(breaker, self.generation, self.probe);
        permit.fleet = self.fleet;
        permit
    }
}

/// (a) However admissions and releases interleave, no more probes run at
/// once than the breaker has slots.
#[test]
fn loom_half_open_never_runs_more_probes_than_its_slots() {
    // Three threads: two preemptions already catch an admission that checks
    // a slot and takes it in two steps; three take minutes.
    model(2, || {
        let b = breaker(2, 3600);
        let t10 = open(&b, Instant::now());
        let running = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let (b, running) = (b.clone(), running.clone());
                thread::spawn(move || {
                    let Ok(permit) = b.try_acquire(t10) else {
                        return;
                    };
                    assert!(permit.is_probe());
                    let now_running = running.fetch_add(1, Ordering::SeqCst) + 1;
                    assert!(now_running <= 2, "{now_running} probes ran at once");
                    // Finished before the slot is freed: once it is, it may go
                    // to another thread.
                    running.fetch_sub(1, Ordering::SeqCst);
                    drop(permit);
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(b.word.load().tag, Tag::HalfOpen);
        assert_eq!(b.probes_in_flight(), 0);
    });
}

/// (b) Probes dropped while others are admitted and dropped leave no slot
/// taken.
#[test]
fn loom_concurrent_drops_and_admissions_leak_no_probe_slot() {
    model(3, || {
        let b = breaker(2, 3600);
        let t10 = open(&b, Instant::now());
        let first = Handoff::new(b.try_acquire(t10).unwrap());
        let second = Handoff::new(b.try_acquire(t10).unwrap());
        let generation = b.word.load().generation;
        let droppers: Vec<_> = [first, second]
            .into_iter()
            .map(|handoff| {
                let b = b.clone();
                thread::spawn(move || drop(handoff.take(&b)))
            })
            .collect();
        let b2 = b.clone();
        let newcomer = thread::spawn(move || drop(b2.try_acquire(t10)));
        for thread in droppers.into_iter().chain([newcomer]) {
            thread.join().unwrap();
        }
        assert_eq!(b.word.load(), Word::new(Tag::HalfOpen, 0, generation));
    });
}

/// (c) A failure of a call admitted in the first closed period, reported
/// while the breaker opens, probes and closes again, counts in the first
/// period or nowhere: the next period starts from zero under both rules.
#[test]
fn loom_late_failure_never_counts_in_the_next_closed_period() {
    model(3, || {
        let b = Arc::new(
            CircuitBreaker::builder()
                .failure_threshold(2)
                .failure_ratio(1.0)
                .minimum_throughput(2)
                .sampling_window(secs(1000))
                .break_duration(secs(10))
                .build()
                .unwrap(),
        );
        let t0 = Instant::now();
        let t10 = t0 + secs(10);
        let late = Handoff::new(b.try_acquire(t0).unwrap());
        let b1 = b.clone();
        // Reported at `t0`: if it is the failure that opens the breaker,
        // the break it starts must end at `t10` too.
        let reporter = thread::spawn(move || late.take(&b1).record_failure(t0));
        let b2 = b.clone();
        let cycler = thread::spawn(move || {
            while let Ok(permit) = b2.try_acquire(t0) {
                permit.record_failure(t0);
            }
            // The reporter may be the one opening it, and not be done yet.
            let probe = loop {
                match b2.try_acquire(t10) {
                    Ok(probe) => break probe,
                    Err(_) => thread::yield_now(),
                }
            };
            assert!(probe.is_probe());
            probe.record_success(t10);
        });
        reporter.join().unwrap();
        cycler.join().unwrap();
        let closed = b.word.load();
        assert_eq!(closed.tag, Tag::Closed);
        assert_eq!(b.streak.load(), Streak::new(closed.generation));
        b.try_acquire(t10).unwrap().record_failure(t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
        b.try_acquire(t10).unwrap().record_failure(t10);
        assert_eq!(b.state(t10), CircuitState::Open);
    });
}

/// (d) A probe's success and another's failure, reported at once, leave
/// the breaker closed or open, never half-open with no probe in flight.
#[test]
fn loom_racing_probe_outcomes_settle_the_breaker() {
    model(3, || {
        let b = breaker(2, 3600);
        let t10 = open(&b, Instant::now());
        let succeeding = Handoff::new(b.try_acquire(t10).unwrap());
        let failing = Handoff::new(b.try_acquire(t10).unwrap());
        let b1 = b.clone();
        let success = thread::spawn(move || succeeding.take(&b1).record_success(t10));
        let b2 = b.clone();
        let failure = thread::spawn(move || failing.take(&b2).record_failure(t10));
        success.join().unwrap();
        failure.join().unwrap();
        let word = b.word.load();
        assert_eq!(word.probes, 0);
        match word.tag {
            Tag::Closed => {
                assert_eq!(b.streak.load(), Streak::new(word.generation));
                assert!(!b.try_acquire(t10).unwrap().is_probe());
            }
            Tag::Open => {
                // The failure started a new break at `t10`.
                assert_eq!(
                    b.state(t10 + secs(10) - Duration::from_nanos(1)),
                    CircuitState::Open
                );
                assert!(b.try_acquire(t10 + secs(10)).unwrap().is_probe());
            }
            other => panic!("left {other:?}"),
        }
    });
}

/// (e) A silent probe reporting while its timed-out slot is being given to
/// a new probe: if the new probe got it, the old success can't close the
/// breaker under it.
#[test]
fn loom_timed_out_probe_cannot_decide_for_its_successor() {
    model(3, || {
        let b = breaker(1, 5);
        let t10 = open(&b, Instant::now());
        let t15 = t10 + secs(5);
        let silent = Handoff::new(b.try_acquire(t10).unwrap());
        let b1 = b.clone();
        let late = thread::spawn(move || silent.take(&b1).record_success(t15));
        let b2 = b.clone();
        let successor = thread::spawn(move || match b2.try_acquire(t15) {
            Ok(permit) => {
                let probe = permit.is_probe();
                permit.record_failure(t15);
                probe
            }
            Err(_) => false,
        });
        late.join().unwrap();
        let probed = successor.join().unwrap();
        let word = b.word.load();
        assert_eq!(word.probes, 0);
        if probed {
            // Its failure decided, whenever the late success arrived.
            assert_eq!(word.tag, Tag::Open);
        } else {
            assert!(matches!(word.tag, Tag::Open | Tag::Closed), "{word:?}");
        }
    });
}

/// A closed breaker shared with a fleet that is half-open in `epoch` and
/// granted this instance its probe slot.
fn granted_fleet(epoch: u64) -> (Arc<CircuitBreaker>, std::sync::Arc<Fleet>) {
    let anchor = Instant::now();
    let fleet = std::sync::Arc::new(Fleet::new(anchor, Instant::now));
    fleet.joined(epoch, Some(Duration::ZERO), secs(3600));
    fleet.granted(epoch);
    let breaker = CircuitBreaker::with_config(
        Config::default(),
        anchor,
        Some(std::sync::Arc::clone(&fleet)),
    );
    (Arc::new(breaker), fleet)
}

/// (f) Calls racing for the fleet's one probe slot: one runs as the
/// probe, and its drop gives the slot back to the fleet once.
#[test]
fn loom_the_fleets_slot_admits_one_probe() {
    model(3, || {
        let (b, fleet) = granted_fleet(1);
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let b = b.clone();
                thread::spawn(move || match b.try_acquire(Instant::now()) {
                    Ok(permit) => {
                        assert!(permit.is_probe());
                        drop(permit);
                        1
                    }
                    Err(_) => 0,
                })
            })
            .collect();
        let admitted: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(admitted, 1);
        let (_, epoch, how) = fleet.settlement().expect("the probe's drop settled it");
        assert_eq!((epoch, how), (1, ProbeEnd::Released));
    });
}

/// (g) A fleet probe that ends while the publisher moves to a new epoch
/// and is granted its slot: the old probe never settles the new slot.
#[test]
fn loom_a_probe_of_an_old_epoch_never_settles_the_new_slot() {
    model(3, || {
        let (b, fleet) = granted_fleet(1);
        let probe = Handoff::new(b.try_acquire(Instant::now()).unwrap());
        let b1 = b.clone();
        let late = thread::spawn(move || probe.take(&b1).record_failure(Instant::now()));
        let publisher = {
            let fleet = std::sync::Arc::clone(&fleet);
            thread::spawn(move || {
                fleet.joined(2, Some(Duration::ZERO), secs(3600));
                fleet.granted(2);
            })
        };
        late.join().unwrap();
        publisher.join().unwrap();
        // Whichever came first, the new epoch's slot is ready, untouched.
        assert_eq!(fleet.settlement(), None);
        let probe = b.try_acquire(Instant::now()).unwrap();
        assert!(probe.is_probe());
        probe.record_success(Instant::now());
        let (_, epoch, how) = fleet.settlement().unwrap();
        assert_eq!((epoch, how), (2, ProbeEnd::Succeeded));
    });
}

/// (h) An operator's isolation racing a probe's success: however they
/// interleave, the breaker ends isolated, with no probe in flight.
#[test]
fn loom_isolation_racing_a_probe_outcome_stays_isolated() {
    model(3, || {
        let b = breaker(1, 3600);
        let t10 = open(&b, Instant::now());
        let probe = Handoff::new(b.try_acquire(t10).unwrap());
        let b1 = b.clone();
        let reporter = thread::spawn(move || probe.take(&b1).record_success(t10));
        let b2 = b.clone();
        let operator = thread::spawn(move || b2.isolate());
        reporter.join().unwrap();
        operator.join().unwrap();
        let word = b.word.load();
        assert_eq!(word.tag, Tag::Isolated);
        assert_eq!(word.probes, 0);
        assert!(b.try_acquire(t10 + secs(3600)).is_err());
    });
}

/// (i) A reset racing the failure that opens the breaker: the reset waits
/// out the opening thread's `Opening`, so it never leaves counts of an
/// older generation behind. The breaker always ends closed with fresh
/// counts: a failure after the reset is of an older generation.
#[test]
fn loom_reset_racing_an_opening_failure_leaves_fresh_counts() {
    model(3, || {
        let b = breaker(1, 3600);
        let t0 = Instant::now();
        let failing = Handoff::new(b.try_acquire(t0).unwrap());
        let b1 = b.clone();
        let reporter = thread::spawn(move || failing.take(&b1).record_failure(t0));
        let b2 = b.clone();
        let operator = thread::spawn(move || b2.reset());
        reporter.join().unwrap();
        operator.join().unwrap();
        let word = b.word.load();
        assert_eq!(word.tag, Tag::Closed);
        assert_eq!(b.streak.load(), Streak::new(word.generation));
        b.try_acquire(t0).unwrap().record_failure(t0);
        assert_eq!(b.state(t0), CircuitState::Open);
    });
}
