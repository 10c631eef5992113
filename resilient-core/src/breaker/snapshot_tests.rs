//! Snapshots taken of one breaker and restored into another, on explicit
//! instants and wall-clock times.

use std::time::{Duration, Instant, SystemTime};

use super::{BreakerSnapshot, CircuitBreaker, CircuitBreakerBuilder, CircuitState, SnapshotError};

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn wall(secs_since_epoch: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + secs(secs_since_epoch)
}

fn builder(threshold: u32) -> CircuitBreakerBuilder {
    CircuitBreaker::builder()
        .name("payments")
        .failure_threshold(threshold)
        .break_duration(secs(30))
}

fn fail(breaker: &CircuitBreaker, now: Instant) {
    breaker.try_acquire(now).unwrap().record_failure(now);
}

/// `from`'s snapshot at (`t0`, wall 1 000 s), restored into a breaker of
/// the same build at (`t1`, wall 1 000 s + `later`).
fn moved(
    from: &CircuitBreaker,
    build: impl Fn() -> CircuitBreaker,
    t0: Instant,
    t1: Instant,
    later: u64,
) -> CircuitBreaker {
    let snapshot = from.snapshot_at(t0, wall(1_000));
    let to = build();
    to.restore_at(&snapshot, t1, wall(1_000 + later)).unwrap();
    to
}

#[test]
fn a_closed_breaker_keeps_its_consecutive_failures() {
    let (t0, t1) = (Instant::now(), Instant::now() + secs(500));
    let old = builder(3).build().unwrap();
    fail(&old, t0);
    fail(&old, t0);
    let snapshot = old.snapshot_at(t0, wall(1_000));
    assert_eq!(
        (snapshot.state(), snapshot.consecutive_failures()),
        (CircuitState::Closed, 2)
    );
    assert_eq!(snapshot.break_ends_at(), None);
    let new = moved(&old, || builder(3).build().unwrap(), t0, t1, 5);
    assert_eq!(new.state(t1), CircuitState::Closed);
    fail(&new, t1);
    assert_eq!(
        new.state(t1),
        CircuitState::Open,
        "the third failure in a row opens it"
    );
}

#[test]
fn a_closed_breaker_keeps_its_window_counts() {
    let build = || {
        CircuitBreaker::builder()
            .name("payments")
            .failure_ratio(0.5)
            .minimum_throughput(4)
            .sampling_window(secs(60))
            .build()
            .unwrap()
    };
    let t0 = Instant::now();
    let old = build();
    fail(&old, t0);
    old.try_acquire(t0).unwrap().record_success(t0);
    old.try_acquire(t0).unwrap().record_success(t0);
    assert_eq!(old.snapshot_at(t0, wall(1_000)).window(), (3, 1));
    let new = moved(&old, build, t0, t0, 0);
    assert_eq!(new.snapshot_at(t0, wall(1_000)).window(), (3, 1));
    // 2 failures of 4 calls: the ratio is met with the counts carried over.
    fail(&new, t0);
    assert_eq!(new.state(t0), CircuitState::Open);
}

#[test]
fn an_open_breaker_stays_open_until_its_break_ends_on_the_wall_clock() {
    let t0 = Instant::now();
    let old = builder(1).build().unwrap();
    fail(&old, t0);
    let snapshot = old.snapshot_at(t0 + secs(10), wall(1_000));
    assert_eq!(snapshot.state(), CircuitState::Open);
    assert_eq!(snapshot.break_ends_at(), Some(wall(1_020)));
    // Restored 5 s later on the wall clock: 15 s of the break are left.
    let t1 = t0 + secs(3_600);
    let new = builder(1).build().unwrap();
    new.restore_at(&snapshot, t1, wall(1_005)).unwrap();
    assert_eq!(new.state(t1 + secs(14)), CircuitState::Open);
    assert!(new.try_acquire(t1 + secs(14)).is_err());
    assert_eq!(new.state(t1 + secs(15)), CircuitState::HalfOpen);
    let probe = new.try_acquire(t1 + secs(15)).unwrap();
    assert!(probe.is_probe());
    probe.record_success(t1 + secs(15));
    assert_eq!(new.state(t1 + secs(15)), CircuitState::Closed);
}

#[test]
fn a_break_that_ended_meanwhile_restores_half_open_and_a_failed_probe_breaks_in_full() {
    let t0 = Instant::now();
    let old = builder(1).build().unwrap();
    fail(&old, t0);
    let t1 = t0 + secs(7);
    let new = moved(&old, || builder(1).build().unwrap(), t0, t1, 31);
    assert_eq!(new.state(t1), CircuitState::HalfOpen);
    let probe = new.try_acquire(t1).unwrap();
    assert!(probe.is_probe());
    probe.record_failure(t1);
    assert_eq!(new.state(t1 + secs(29)), CircuitState::Open);
    assert_eq!(new.state(t1 + secs(30)), CircuitState::HalfOpen);
}

#[test]
fn a_half_open_breaker_restores_ready_for_a_probe() {
    let t0 = Instant::now();
    let old = builder(1).build().unwrap();
    fail(&old, t0);
    let _probe = old.try_acquire(t0 + secs(30)).unwrap();
    let snapshot = old.snapshot_at(t0 + secs(31), wall(1_000));
    assert_eq!(
        (snapshot.state(), snapshot.break_ends_at()),
        (CircuitState::HalfOpen, None)
    );
    let new = builder(1).build().unwrap();
    new.restore_at(&snapshot, t0, wall(1_000)).unwrap();
    assert_eq!(new.state(t0), CircuitState::HalfOpen);
    assert!(new.try_acquire(t0).unwrap().is_probe());
}

#[test]
fn an_isolated_breaker_stays_isolated() {
    let t0 = Instant::now();
    let old = builder(1).build().unwrap();
    old.isolate();
    let new = moved(&old, || builder(1).build().unwrap(), t0, t0, 0);
    assert_eq!(new.state(t0 + secs(86_400)), CircuitState::Isolated);
}

#[test]
fn a_growing_break_goes_on_growing_after_a_restore() {
    let build = || {
        CircuitBreaker::builder()
            .name("payments")
            .failure_threshold(1)
            .break_duration_with(|n| secs(10) * n)
            .build()
            .unwrap()
    };
    let t0 = Instant::now();
    let old = build();
    fail(&old, t0); // first break: 10 s
    let probe_at = t0 + secs(10);
    old.try_acquire(probe_at).unwrap().record_failure(probe_at); // second: 20 s
    let new = moved(&old, build, probe_at, probe_at, 0);
    assert_eq!(new.state(probe_at + secs(19)), CircuitState::Open);
    let third_at = probe_at + secs(20);
    new.try_acquire(third_at).unwrap().record_failure(third_at); // third: 30 s
    assert_eq!(new.state(third_at + secs(29)), CircuitState::Open);
    assert_eq!(new.state(third_at + secs(30)), CircuitState::HalfOpen);
}

#[test]
fn a_snapshot_of_another_format_or_breaker_is_refused_and_changes_nothing() {
    let t0 = Instant::now();
    let old = builder(1).build().unwrap();
    fail(&old, t0);
    let mut snapshot = old.snapshot_at(t0, wall(1_000));
    let new = builder(1).build().unwrap();
    snapshot.format = 2;
    assert_eq!(
        new.restore_at(&snapshot, t0, wall(1_000)),
        Err(SnapshotError::Format {
            found: 2,
            expected: BreakerSnapshot::FORMAT
        })
    );
    snapshot.format = BreakerSnapshot::FORMAT;
    let other = CircuitBreaker::builder().name("search").build().unwrap();
    assert_eq!(
        other.restore_at(&snapshot, t0, wall(1_000)),
        Err(SnapshotError::Name {
            snapshot: "payments".into(),
            breaker: "search".into()
        })
    );
    assert_eq!(new.state(t0), CircuitState::Closed);
    assert_eq!(other.state(t0), CircuitState::Closed);
}

#[cfg(feature = "serde")]
#[test]
fn a_snapshot_is_json_and_reads_back() {
    let t0 = Instant::now();
    let old = builder(1).build().unwrap();
    fail(&old, t0);
    let snapshot = old.snapshot_at(t0 + secs(10), wall(1_000));
    let json = serde_json::to_string(&snapshot).unwrap();
    assert_eq!(
        json,
        r#"{"format":1,"name":"payments","state":"open","consecutive_failures":0,"window_calls":0,"window_failures":0,"openings":0,"break_ms":30000,"break_ends_at_ms":1020000}"#
    );
    assert_eq!(
        serde_json::from_str::<BreakerSnapshot>(&json).unwrap(),
        snapshot
    );
}
