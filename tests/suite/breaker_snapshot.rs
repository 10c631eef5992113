//! A breaker's state carried across a restart: one process opens a
//! breaker and writes its snapshot as JSON, another (this test's) reads it
//! back into a breaker of its own, which stays open until the break the
//! first one started ends on the wall clock.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use resilient::breaker::BreakerSnapshot;
use resilient::{CircuitBreaker, CircuitState};

/// Where the writing process puts its snapshot; unset in any other run.
const SNAPSHOT_TO: &str = "RESILIENT_TEST_SNAPSHOT_TO";

const BREAK: Duration = Duration::from_secs(60);

fn payments() -> CircuitBreaker {
    CircuitBreaker::builder()
        .name("payments")
        .failure_threshold(2)
        .break_duration(BREAK)
        .build()
        .unwrap()
}

/// The first process: opens `payments` and writes its snapshot where
/// `SNAPSHOT_TO` says. Run only by the test below, in a process of its own.
#[test]
#[ignore = "the writing half of a_breaker_restored_in_another_process_stays_open; run by it"]
fn writes_an_open_breakers_snapshot() {
    let to = std::env::var(SNAPSHOT_TO)
        .expect("run by a_breaker_restored_in_another_process_stays_open");
    let breaker = payments();
    let now = Instant::now();
    for _ in 0..2 {
        breaker.try_acquire(now).unwrap().record_failure(now);
    }
    assert_eq!(breaker.state(now), CircuitState::Open);
    std::fs::write(to, serde_json::to_vec(&breaker.snapshot()).unwrap()).unwrap();
}

#[test]
fn a_breaker_restored_in_another_process_stays_open() {
    let path = std::env::temp_dir().join(format!("resilient-snapshot-{}.json", std::process::id()));
    let before = SystemTime::now();
    let written = Command::new(std::env::current_exe().unwrap())
        .args([
            "breaker_snapshot::writes_an_open_breakers_snapshot",
            "--exact",
            "--ignored",
            "--quiet",
        ])
        .env(SNAPSHOT_TO, &path)
        .output()
        .unwrap();
    assert!(
        written.status.success(),
        "the writing process failed: {}",
        String::from_utf8_lossy(&written.stderr)
    );
    let after = SystemTime::now();

    let snapshot = read(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(snapshot.state(), CircuitState::Open);
    let ends = snapshot.break_ends_at().unwrap();
    assert!(
        before + BREAK <= ends + Duration::from_millis(1)
            && ends <= after + BREAK + Duration::from_millis(1)
    );

    let breaker = payments();
    let now = Instant::now();
    let wall = SystemTime::now();
    breaker.restore_at(&snapshot, now, wall).unwrap();
    let left = ends.duration_since(wall).unwrap();
    assert_eq!(breaker.state(now), CircuitState::Open);
    assert!(breaker.try_acquire(now).is_err());
    assert_eq!(
        breaker.state(now + left - Duration::from_millis(1)),
        CircuitState::Open
    );
    assert_eq!(
        breaker.state(now + left + Duration::from_millis(1)),
        CircuitState::HalfOpen
    );
}

#[test]
fn a_snapshot_of_a_later_format_is_refused() {
    let breaker = payments();
    let now = Instant::now();
    breaker.try_acquire(now).unwrap().record_failure(now);
    let mut json: serde_json::Value = serde_json::to_value(breaker.snapshot()).unwrap();
    json["format"] = 2.into();
    let later: BreakerSnapshot = serde_json::from_value(json).unwrap();
    let fresh = payments();
    let refused = fresh.restore(&later).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "a breaker snapshot in format 2, which this version can't read (it reads format 1)"
    );
    // Not applied: the failure it carried doesn't count.
    fresh.try_acquire(now).unwrap().record_failure(now);
    assert_eq!(fresh.state(now), CircuitState::Closed);
}

fn read(path: &Path) -> BreakerSnapshot {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}
