//! An entry that sets the first attempt's bounds (`timeout`, `budget`):
//! the first attempt is granted them on its fast path, a reload during it
//! leaves its retries on the entry it read, and an async attempt is cut
//! at the entry's deadline.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::config::{self, Config};
use resilient::{ExecutionReport, FakeClock, SettingsSource, resilient};

use super::config_reload::{Failure, slot};

fn deadlines(report: &ExecutionReport) -> Vec<Option<Duration>> {
    report.attempts().iter().map(|a| a.deadline()).collect()
}

/// Fails this many more times.
static FAILS: AtomicU32 = AtomicU32::new(0);
/// Installed during the next attempt, if set.
static DURING: std::sync::Mutex<Option<&'static str>> = std::sync::Mutex::new(None);

fn body(clock: &FakeClock) -> Result<u32, Failure> {
    if let Some(text) = DURING.lock().unwrap().take() {
        config::install_toml(text).unwrap();
    }
    clock.advance(Duration::from_millis(300));
    match FAILS.load(Ordering::SeqCst) {
        0 => Ok(7),
        n => {
            FAILS.store(n - 1, Ordering::SeqCst);
            Err(Failure::Busy)
        }
    }
}

#[resilient(retries = 2, backoff = constant("100ms"), clock = clock)]
fn bounds_untimed(clock: &FakeClock) -> Result<u32, Failure> {
    body(clock)
}

#[resilient(retries = 2, budget = "10s", backoff = constant("100ms"), clock = clock)]
fn bounds_timed(clock: &FakeClock) -> Result<u32, Failure> {
    body(clock)
}

const ONE: &str = "[operations.bounds_untimed]\ntimeout = \"2s\"\nbudget = \"1s\"\n\
                   [operations.bounds_timed]\ntimeout = \"500ms\"\n";
const TWO: &str = "[operations.bounds_untimed]\ntimeout = \"4s\"\n\
                   [operations.bounds_timed]\nbudget = \"3s\"\n";

#[test]
fn a_first_success_is_granted_the_bounds_of_its_entry() {
    let _slot = slot();
    FAILS.store(0, Ordering::SeqCst);
    let version = config::install_toml(ONE).unwrap();
    // Twice: the second call reads the bounds from the function's static.
    for _ in 0..2 {
        let outcome = bounds_untimed(&FakeClock::new());
        // min(timeout 2s, budget 1s), where the attribute grants none.
        assert_eq!(deadlines(outcome.report()), [Some(Duration::from_secs(1))]);
        assert_eq!(
            outcome.report().settings_source(),
            SettingsSource::Config { version }
        );
        let outcome = bounds_timed(&FakeClock::new());
        // The entry's timeout within the attribute's budget of 10 s.
        assert_eq!(
            deadlines(outcome.report()),
            [Some(Duration::from_millis(500))]
        );
    }
    let version = config::install_toml(TWO).unwrap();
    let outcome = bounds_untimed(&FakeClock::new());
    assert_eq!(deadlines(outcome.report()), [Some(Duration::from_secs(4))]);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    // The entry's budget replaces the attribute's.
    let outcome = bounds_timed(&FakeClock::new());
    assert_eq!(deadlines(outcome.report()), [Some(Duration::from_secs(3))]);
    config::clear();
    let outcome = bounds_timed(&FakeClock::new());
    assert_eq!(deadlines(outcome.report()), [Some(Duration::from_secs(10))]);
    let outcome = bounds_untimed(&FakeClock::new());
    assert_eq!(deadlines(outcome.report()), [None]);
}

#[test]
fn a_call_after_a_reload_is_granted_the_new_bounds_less_what_has_passed() {
    let _slot = slot();
    config::install_toml(ONE).unwrap();
    FAILS.store(0, Ordering::SeqCst);
    let _warm = bounds_timed(&FakeClock::new());
    config::install_toml(TWO).unwrap();
    FAILS.store(1, Ordering::SeqCst);
    let clock = FakeClock::new();
    let outcome = bounds_timed(&clock);
    // TWO's budget of 3 s; the retry starts after 300 ms of body and
    // 100 ms of backoff.
    assert_eq!(
        deadlines(outcome.report()),
        [
            Some(Duration::from_secs(3)),
            Some(Duration::from_millis(2600))
        ]
    );
    assert_eq!(clock.slept(), [Duration::from_millis(100)]);
    config::clear();
}

#[test]
fn the_retries_after_a_first_attempt_keep_the_bounds_it_read() {
    let _slot = slot();
    FAILS.store(0, Ordering::SeqCst);
    config::install_toml(ONE).unwrap();
    let _warm = bounds_timed(&FakeClock::new());
    FAILS.store(2, Ordering::SeqCst);
    // TWO is installed during the first attempt: its retries keep ONE's
    // 500 ms, not TWO's budget.
    *DURING.lock().unwrap() = Some(TWO);
    let outcome = bounds_timed(&FakeClock::new());
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(
        deadlines(outcome.report()),
        [Some(Duration::from_millis(500)); 3]
    );
    config::clear();
}

static ASYNC_CALLS: AtomicU32 = AtomicU32::new(0);

#[resilient(retries = 1, timeout = "10s", backoff = constant("100ms"))]
async fn bounds_async() -> Result<u32, Failure> {
    if ASYNC_CALLS.fetch_add(1, Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
    Ok(1)
}

#[tokio::test(start_paused = true)]
// The slot orders this test among the others, each on its own thread; no
// task of this runtime takes it.
#[allow(clippy::await_holding_lock)]
async fn an_async_first_attempt_is_cut_at_the_deadline_its_entry_grants() {
    let _slot = slot();
    let config = Config::from_toml("[operations.bounds_async]\ntimeout = \"2s\"\n").unwrap();
    let version = config::install(config);
    ASYNC_CALLS.store(0, Ordering::SeqCst);
    let started = tokio::time::Instant::now();
    let outcome = bounds_async().await;
    // Cut at 2 s (not the attribute's 10 s, nor the body's 5 s), 100 ms
    // of backoff, then a second attempt that answers at once.
    assert_eq!(started.elapsed(), Duration::from_millis(2100));
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(
        deadlines(outcome.report()),
        [Some(Duration::from_secs(2)); 2]
    );
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    assert_eq!(outcome.into_result(), Ok(1));
    config::clear();
}
