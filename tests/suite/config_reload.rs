//! The engine reads the installed configuration (feature `config`): by
//! operation name, once per call, when the call starts. The schedule
//! changes after `install`, goes back after `clear`, a call in flight
//! keeps what it started with, and a reload under load never mixes two
//! configurations in one call.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use resilient::config::{self, Config};
use resilient::{
    Backoff, ExecutionReport, FakeClock, Operation, RetryPolicy, Retryable, SettingsSource,
};
use resilient::{TimedOut, resilient};

/// The configuration is one per process: the tests that install it take
/// turns. Every operation here has a name no other test uses.
static SLOT: Mutex<()> = Mutex::new(());

pub(super) fn slot() -> MutexGuard<'static, ()> {
    SLOT.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum Failure {
    #[error("busy")]
    Busy,
    #[error("timed out")]
    TimedOut,
}

impl From<resilient::LimitExceeded> for Failure {
    fn from(_: resilient::LimitExceeded) -> Self {
        Failure::Busy
    }
}

impl From<TimedOut> for Failure {
    fn from(_: TimedOut) -> Self {
        Failure::TimedOut
    }
}

#[resilient(retries = 1, backoff = constant("10ms"), clock = clock)]
fn cfg_blocking(clock: &FakeClock) -> Result<(), Failure> {
    Err(Failure::Busy)
}

fn deadlines(report: &ExecutionReport) -> Vec<Option<Duration>> {
    report.attempts().iter().map(|a| a.deadline()).collect()
}

#[test]
fn install_changes_the_schedule_and_clear_brings_the_attribute_back() {
    let _slot = slot();
    let clock = FakeClock::new();
    let outcome = cfg_blocking(&clock);
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(clock.slept(), [Duration::from_millis(10)]);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Attribute
    );

    let version = config::install_toml(
        "[operations.cfg_blocking]\nretries = 3\nbase_delay = \"50ms\"\nmultiplier = 2\n\
         max_delay = \"150ms\"\ntimeout = \"2s\"\nbudget = \"10s\"\n",
    )
    .unwrap();
    let clock = FakeClock::new();
    let outcome = cfg_blocking(&clock);
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 4);
    assert_eq!(
        clock.slept(),
        [
            Duration::from_millis(50),
            Duration::from_millis(100),
            Duration::from_millis(150)
        ]
    );
    assert_eq!(report.settings_source(), SettingsSource::Config { version });
    // Each attempt is granted the timeout, within what the budget left.
    assert_eq!(deadlines(report), vec![Some(Duration::from_secs(2)); 4]);

    config::clear();
    let clock = FakeClock::new();
    let outcome = cfg_blocking(&clock);
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(clock.slept(), [Duration::from_millis(10)]);
    assert_eq!(deadlines(outcome.report()), [None, None]);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Attribute
    );
}

#[resilient(retries = 2, backoff = constant("10ms"), clock = clock)]
fn cfg_other(clock: &FakeClock) -> Result<(), Failure> {
    Err(Failure::Busy)
}

#[test]
fn an_entry_for_another_operation_changes_nothing_and_a_bad_text_nothing_at_all() {
    let _slot = slot();
    let version = config::install_toml("[operations.cfg_elsewhere]\nretries = 7\n").unwrap();
    let clock = FakeClock::new();
    let outcome = cfg_other(&clock);
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Attribute
    );

    let version =
        config::install(Config::from_toml("[operations.cfg_other]\nretries = 0\n").unwrap())
            .max(version);
    let error = config::install_toml("[operations.cfg_other]\nretries = 5\ntimeout = \"0s\"\n")
        .unwrap_err();
    assert_eq!(error.path(), "operations.cfg_other.timeout");
    assert_eq!(config::version(), version, "a bad text installs nothing");
    let clock = FakeClock::new();
    let outcome = cfg_other(&clock);
    assert_eq!(outcome.report().attempt_count(), 1);
    assert!(clock.slept().is_empty());
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    config::clear();
}

static INSTALL_DURING: AtomicBool = AtomicBool::new(false);

#[resilient(retries = 1, backoff = constant("10ms"), clock = clock)]
fn cfg_in_flight(clock: &FakeClock) -> Result<(), Failure> {
    if INSTALL_DURING.swap(false, Ordering::SeqCst) {
        config::install_toml("[operations.cfg_in_flight]\nretries = 4\nbase_delay = \"1s\"\n")
            .unwrap();
    }
    Err(Failure::Busy)
}

#[test]
fn a_call_in_flight_keeps_the_settings_it_started_with() {
    let _slot = slot();
    config::clear();
    // Started on the attribute's values: an install during its first
    // attempt leaves its retries alone.
    INSTALL_DURING.store(true, Ordering::SeqCst);
    let clock = FakeClock::new();
    let outcome = cfg_in_flight(&clock);
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(clock.slept(), [Duration::from_millis(10)]);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Attribute
    );

    // The next call starts on the new values.
    let clock = FakeClock::new();
    let outcome = cfg_in_flight(&clock);
    assert_eq!(outcome.report().attempt_count(), 5);
    assert_eq!(clock.slept(), [Duration::from_secs(1); 4]);
    let SettingsSource::Config { version } = outcome.report().settings_source() else {
        panic!("read from the configuration");
    };

    // Started on one configuration, an install of another during its
    // first attempt leaves it on the first.
    INSTALL_DURING.store(true, Ordering::SeqCst);
    let clock = FakeClock::new();
    let outcome = cfg_in_flight(&clock);
    assert_eq!(outcome.report().attempt_count(), 5);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    assert!(config::version() > version);
    config::clear();
}

#[resilient(retries = 1, backoff = constant("10ms"))]
async fn cfg_async(pause: Duration) -> Result<(), Failure> {
    tokio::time::sleep(pause).await;
    Err(Failure::Busy)
}

#[tokio::test(start_paused = true)]
// The slot orders this test among the others, each on its own thread; no
// task of this runtime takes it.
#[allow(clippy::await_holding_lock)]
async fn an_async_call_reads_the_timeout_and_cuts_its_attempts_there() {
    let _slot = slot();
    let outcome = cfg_async(Duration::from_secs(5)).await;
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(deadlines(outcome.report()), [None, None]);

    let version = config::install_toml(
        "[operations.cfg_async]\nretries = 2\ntimeout = \"1s\"\nbase_delay = \"100ms\"\n",
    )
    .unwrap();
    let started = tokio::time::Instant::now();
    let outcome = cfg_async(Duration::from_secs(5)).await;
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 3);
    assert_eq!(deadlines(report), vec![Some(Duration::from_secs(1)); 3]);
    assert_eq!(report.settings_source(), SettingsSource::Config { version });
    // Three attempts cut at 1 s, two waits of 100 ms.
    assert_eq!(started.elapsed(), Duration::from_millis(3_200));
    assert_eq!(outcome.into_result(), Err(Failure::TimedOut));

    // A call in flight when the configuration goes keeps it.
    let call = tokio::spawn(cfg_async(Duration::from_secs(5)));
    tokio::task::yield_now().await;
    config::clear();
    let outcome = call.await.unwrap();
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );

    let outcome = cfg_async(Duration::from_millis(1)).await;
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Attribute
    );
}

#[test]
fn operations_and_closures_with_a_name_read_it_too() {
    let _slot = slot();
    let version = config::install_toml(
        "[operations.\"cfg.operation\"]\nretries = 2\n[operations.\"cfg.closure\"]\nretries = 3\n",
    )
    .unwrap();
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .name("cfg.operation")
        .backoff(Backoff::constant(Duration::from_millis(5)))
        .clock(&clock)
        .run(|_| Err::<(), _>(Failure::Busy));
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(clock.slept(), [Duration::from_millis(5); 2]);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );

    let clock = FakeClock::new();
    let outcome = (|| Err::<(), _>(Failure::Busy))
        .retry(RetryPolicy::builder().build_const())
        .name("cfg.closure")
        .clock(&clock)
        .call();
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );

    // Without a name, nothing applies.
    let outcome = Operation::new()
        .max_attempts(1)
        .clock(FakeClock::new())
        .run(|_| Err::<(), _>(Failure::Busy));
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Attribute
    );
    config::clear();
}

#[resilient(retries = 0, backoff = none)]
fn cfg_load_a() -> Result<(), Failure> {
    Err(Failure::Busy)
}

#[resilient(retries = 0, backoff = none, name = "cfg.load.b")]
fn cfg_load_b() -> Result<u32, Failure> {
    Ok(1)
}

/// What a whole configuration makes of a call that `fails` or not: its
/// attempts and each attempt's deadline. A: retries = 1, timeout = 1s;
/// B: retries = 2, timeout = 2s; the attribute: one attempt, no deadline.
fn consistent(report: &ExecutionReport, fails: bool, versions: &Mutex<Vec<(u64, bool)>>) {
    let deadlines = deadlines(report);
    let SettingsSource::Config { version } = report.settings_source() else {
        assert_eq!(deadlines, [None], "{report}");
        return;
    };
    let is_a = versions
        .lock()
        .unwrap()
        .iter()
        .find(|(v, _)| *v == version)
        .map(|(_, a)| *a)
        .expect("every version installed was noted first");
    let (attempts, timeout) = if is_a { (2, 1) } else { (3, 2) };
    let attempts = if fails { attempts } else { 1 };
    assert_eq!(
        deadlines,
        vec![Some(Duration::from_secs(timeout)); attempts],
        "version {version}: {report}"
    );
}

#[test]
fn a_reload_under_load_loses_no_call_and_never_mixes_two_configurations() {
    let _slot = slot();
    let a = Config::from_toml(
        "[operations.cfg_load_a]\nretries = 1\ntimeout = \"1s\"\n\
         [operations.\"cfg.load.b\"]\nretries = 1\ntimeout = \"1s\"\n",
    )
    .unwrap();
    let b = Config::from_toml(
        "[operations.cfg_load_a]\nretries = 2\ntimeout = \"2s\"\n\
         [operations.\"cfg.load.b\"]\nretries = 2\ntimeout = \"2s\"\n",
    )
    .unwrap();
    let versions = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicU64::new(0));
    let configured = Arc::new(AtomicU64::new(0));
    let calls_ended = Arc::new(AtomicU64::new(0));
    let callers: Vec<_> = (0..8)
        .map(|n| {
            let (versions, stop, calls, configured, calls_ended) = (
                Arc::clone(&versions),
                Arc::clone(&stop),
                Arc::clone(&calls),
                Arc::clone(&configured),
                Arc::clone(&calls_ended),
            );
            std::thread::spawn(move || {
                let mut made = 0_u64;
                while !stop.load(Ordering::Relaxed) || made < 100 {
                    let report = if n % 2 == 0 {
                        let (result, report) = cfg_load_a().into_parts();
                        assert_eq!(result, Err(Failure::Busy));
                        report
                    } else {
                        let (result, report) = cfg_load_b().into_parts();
                        assert_eq!(result, Ok(1));
                        report
                    };
                    consistent(&report, n % 2 == 0, &versions);
                    if report.settings_source() != SettingsSource::Attribute {
                        configured.fetch_add(1, Ordering::Relaxed);
                    }
                    made += 1;
                    calls_ended.fetch_add(1, Ordering::Relaxed);
                }
                calls.fetch_add(made, Ordering::Relaxed);
                made
            })
        })
        .collect();
    for round in 0..1_000 {
        let is_a = round % 2 == 0;
        let config = if is_a { a.clone() } else { b.clone() };
        // Noted before it is installed, so that every call of it finds it.
        let mut noted = versions.lock().unwrap();
        let version = config::version() + 1;
        noted.push((version, is_a));
        drop(noted);
        // Every fiftieth configuration serves calls before the next
        // replaces it, however the callers are scheduled: of nine calls
        // ended after the install, one at least started after it, as eight
        // callers have at most eight calls in flight.
        let ended = calls_ended.load(Ordering::Relaxed);
        assert_eq!(config::install(config), version);
        while round % 50 == 0 && calls_ended.load(Ordering::Relaxed) < ended + 9 {
            std::thread::yield_now();
        }
        if round % 100 == 99 {
            config::clear();
        }
    }
    stop.store(true, Ordering::Relaxed);
    let made: u64 = callers.into_iter().map(|c| c.join().unwrap()).sum();
    assert_eq!(made, calls.load(Ordering::Relaxed));
    assert!(made >= 800);
    assert!(configured.load(Ordering::Relaxed) > 0);
    config::clear();
}

#[test]
fn a_named_breaker_reads_its_entry_and_keeps_its_state_across_reloads() {
    use resilient::{CircuitBreaker, CircuitState};
    use std::time::Instant;

    let _slot = slot();
    let breaker = CircuitBreaker::builder()
        .name("cfg.breaker")
        .failure_threshold(3)
        .break_duration(Duration::from_secs(10))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let fail = |at: Instant| breaker.try_acquire(at).unwrap().record_failure(at);

    // Two failures of the builder's three; a reload to five keeps them.
    fail(t0);
    fail(t0);
    config::install_toml("[breakers.\"cfg.breaker\"]\nfailure_threshold = 5\n").unwrap();
    fail(t0);
    fail(t0);
    assert_eq!(breaker.state(t0), CircuitState::Closed, "4 of 5");
    // Down to four: the next failure is the fifth in a row.
    config::install_toml(
        "[breakers.\"cfg.breaker\"]\nfailure_threshold = 4\nbreak_duration = \"2s\"\n",
    )
    .unwrap();
    fail(t0);
    assert_eq!(breaker.state(t0), CircuitState::Open);
    let t2 = t0 + Duration::from_secs(2);
    assert_eq!(
        breaker.state(t2 - Duration::from_millis(1)),
        CircuitState::Open
    );
    assert_eq!(
        breaker.state(t2),
        CircuitState::HalfOpen,
        "the configured break"
    );

    // A reload while it is open leaves it open, for the break it began.
    let probe = breaker.try_acquire(t2).unwrap();
    assert!(probe.is_probe());
    probe.record_failure(t2);
    config::install_toml(
        "[breakers.\"cfg.breaker\"]\nfailure_threshold = 1\nbreak_duration = \"4s\"\n",
    )
    .unwrap();
    assert!(breaker.try_acquire(t2).is_err(), "still open");
    let t4 = t2 + Duration::from_secs(2);
    let probe = breaker.try_acquire(t4).unwrap();
    probe.record_success(t4);
    assert_eq!(breaker.state(t4), CircuitState::Closed);

    // The new threshold and break from the next open period on.
    fail(t4);
    assert_eq!(breaker.state(t4), CircuitState::Open, "threshold 1");
    assert_eq!(
        breaker.state(t4 + Duration::from_secs(3)),
        CircuitState::Open,
        "a break of 4 s"
    );
    let t8 = t4 + Duration::from_secs(4);
    breaker.try_acquire(t8).unwrap().record_success(t8);

    // A bad text changes nothing; clearing brings the builder's back.
    assert!(config::install_toml("[breakers.\"cfg.breaker\"]\nfailure_threshold = 0\n").is_err());
    fail(t8);
    assert_eq!(breaker.state(t8), CircuitState::Open, "still threshold 1");
    let t12 = t8 + Duration::from_secs(4);
    breaker.try_acquire(t12).unwrap().record_success(t12);
    config::clear();
    fail(t12);
    fail(t12);
    assert_eq!(
        breaker.state(t12),
        CircuitState::Closed,
        "2 of the builder's 3"
    );
    fail(t12);
    assert_eq!(breaker.state(t12), CircuitState::Open);
    assert_eq!(
        breaker.state(t12 + Duration::from_secs(9)),
        CircuitState::Open,
        "the builder's break of 10 s"
    );
}

/// A call that holds the retries of the calls inside it
/// (`nested = "no_retry"`) tells them so by the attempts the installed
/// configuration gives it: with its retries set to 0 there, it can retry
/// nothing, and the call inside retries on its own.
#[test]
fn a_configured_call_holds_the_retries_inside_it_by_its_configured_attempts() {
    let _slot = slot();
    let clock = FakeClock::new();
    let inner_attempts = || {
        let mut attempts = Vec::new();
        let _ = Operation::new()
            .name("cfg.nested.outer")
            .clock(&clock)
            .max_attempts(3)
            .backoff(Backoff::constant(Duration::from_millis(100)))
            .nested(resilient::deadline::Nested::NoRetry)
            .run(|_| {
                let inner = Operation::new()
                    .clock(&clock)
                    .max_attempts(3)
                    .backoff(Backoff::constant(Duration::from_millis(10)))
                    .run(|_| Err::<(), _>(Failure::Busy));
                attempts.push(inner.report().attempt_count());
                inner.into_result()
            });
        attempts
    };
    assert_eq!(
        inner_attempts(),
        [1, 1, 1],
        "the builder's three attempts, each holding the retry"
    );
    config::install_toml("[operations.\"cfg.nested.outer\"]\nretries = 0\n").unwrap();
    let configured = inner_attempts();
    config::clear();
    assert_eq!(configured, [3], "one attempt, which holds nothing");
}

static FAST_CALLS: AtomicU64 = AtomicU64::new(0);

/// Fails `FAST_FAILS` times, then succeeds; installs `FAST_INSTALL` (if
/// any) during its first attempt.
static FAST_FAILS: AtomicU64 = AtomicU64::new(0);
static FAST_INSTALL: Mutex<Option<&'static str>> = Mutex::new(None);
/// How many times `FAST_A` is installed before `FAST_INSTALL`.
static FAST_REPEAT: AtomicU64 = AtomicU64::new(0);

fn fast_body() -> Result<u64, Failure> {
    if let Some(text) = FAST_INSTALL.lock().unwrap().take() {
        for _ in 0..FAST_REPEAT.swap(0, Ordering::SeqCst) {
            config::install_toml(FAST_A).unwrap();
        }
        config::install_toml(text).unwrap();
    }
    let call = FAST_CALLS.fetch_add(1, Ordering::SeqCst);
    if call < FAST_FAILS.load(Ordering::SeqCst) {
        Err(Failure::Busy)
    } else {
        Ok(call)
    }
}

#[resilient(retries = 1, backoff = constant("10ms"), clock = clock)]
fn cfg_fast(clock: &FakeClock) -> Result<u64, Failure> {
    fast_body()
}

#[resilient(retries = 1, backoff = constant("10ms"))]
async fn cfg_fast_async() -> Result<u64, Failure> {
    tokio::task::yield_now().await;
    fast_body()
}

fn fast_reset(fails: u64, install: Option<&'static str>) {
    FAST_CALLS.store(0, Ordering::SeqCst);
    FAST_FAILS.store(fails, Ordering::SeqCst);
    *FAST_INSTALL.lock().unwrap() = install;
}

const FAST_A: &str = "[operations.cfg_fast]\nretries = 3\nbase_delay = \"1s\"\n\
                      [operations.cfg_fast_async]\nretries = 3\nbase_delay = \"1s\"\n";
const FAST_B: &str = "[operations.cfg_fast]\nretries = 5\nbase_delay = \"2s\"\n\
                      [operations.cfg_fast_async]\nretries = 5\nbase_delay = \"2s\"\n";

#[test]
fn an_entry_that_leaves_the_first_attempt_alone_keeps_it_on_the_fast_path() {
    let _slot = slot();
    // A first success under an entry (no timeout, no budget in it) says
    // which configuration it ran on, at every generation.
    for _ in 0..3 {
        let version = config::install_toml(FAST_A).unwrap();
        fast_reset(0, None);
        let clock = FakeClock::new();
        let outcome = cfg_fast(&clock);
        assert_eq!(outcome.report().attempt_count(), 1);
        assert_eq!(deadlines(outcome.report()), [None]);
        assert_eq!(
            outcome.report().settings_source(),
            SettingsSource::Config { version }
        );
    }
    // A failure goes on by the entry: 3 retries, 1 s apart.
    let version = config::version();
    fast_reset(10, None);
    let clock = FakeClock::new();
    let outcome = cfg_fast(&clock);
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(clock.slept(), [Duration::from_secs(1); 3]);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    // A reload during the first attempt: the retries keep the entry the
    // attempt read, not the one installed meanwhile.
    fast_reset(10, Some(FAST_B));
    let clock = FakeClock::new();
    let outcome = cfg_fast(&clock);
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(clock.slept(), [Duration::from_secs(1); 3]);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    assert!(config::version() > version);
    // The next call reads the new one.
    fast_reset(10, None);
    let clock = FakeClock::new();
    let outcome = cfg_fast(&clock);
    assert_eq!(outcome.report().attempt_count(), 6);
    assert_eq!(clock.slept(), [Duration::from_secs(2); 5]);
    config::clear();
    fast_reset(0, None);
    let outcome = cfg_fast(&FakeClock::new());
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Attribute
    );
}

#[tokio::test(start_paused = true)]
// The slot orders this test among the others, each on its own thread; no
// task of this runtime takes it.
#[allow(clippy::await_holding_lock)]
async fn an_async_first_attempt_under_an_entry_runs_on_the_fast_path_and_its_retries_keep_it() {
    let _slot = slot();
    let version = config::install_toml(FAST_A).unwrap();
    fast_reset(0, None);
    let outcome = cfg_fast_async().await;
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    // Installed during the first attempt: the retries keep FAST_A's
    // three waits of 1 s.
    fast_reset(10, Some(FAST_B));
    let started = tokio::time::Instant::now();
    let outcome = cfg_fast_async().await;
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(started.elapsed(), Duration::from_secs(3));
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    config::clear();
}

/// More reloads during one first attempt than are remembered: the retries
/// read the configuration installed by then.
#[test]
fn a_first_attempt_outlived_by_many_reloads_retries_on_the_latest() {
    let _slot = slot();
    config::install_toml(FAST_A).unwrap();
    // Twenty installs during the first attempt, the last one B.
    fast_reset(10, Some(FAST_B));
    FAST_REPEAT.store(19, Ordering::SeqCst);
    let clock = FakeClock::new();
    let outcome = cfg_fast(&clock);
    *FAST_INSTALL.lock().unwrap() = None;
    assert_eq!(outcome.report().attempt_count(), 6);
    assert_eq!(clock.slept(), [Duration::from_secs(2); 5]);
    config::clear();
}

#[resilient(retries = 1, backoff = constant("10ms"), clock = clock)]
fn cfg_shown(clock: &FakeClock) -> Result<u32, Failure> {
    Ok(7)
}

#[test]
fn the_report_shows_where_its_settings_came_from() {
    let _slot = slot();
    config::clear();
    let outcome = cfg_shown(&FakeClock::new());
    let table = outcome.report().to_string();
    assert!(table.ends_with("stopped: succeeded"), "{table}");
    #[cfg(feature = "serde")]
    {
        let value = serde_json::to_value(outcome.report()).unwrap();
        assert_eq!(value["settings_source"], "attribute");
        assert_eq!(value["config_version"], serde_json::Value::Null);
        assert_eq!(value["config_origin"], serde_json::Value::Null);
    }

    let version = config::install_toml("[operations.cfg_shown]\nretries = 2\n").unwrap();
    let outcome = cfg_shown(&FakeClock::new());
    let table = outcome.report().to_string();
    assert!(
        table.ends_with(&format!(
            "stopped: succeeded, settings: configuration {version} (code)"
        )),
        "{table}"
    );
    #[cfg(feature = "serde")]
    {
        let value = serde_json::to_value(outcome.report()).unwrap();
        assert_eq!(value["settings_source"], "config");
        assert_eq!(value["config_version"], version);
        assert_eq!(value["config_origin"], "code");
    }

    // A file's version says which file.
    let file = std::path::PathBuf::from("/etc/app/resilient.toml");
    let from_file = Config::from_toml("[operations.cfg_shown]\nretries = 3\n")
        .unwrap()
        .from_origin(config::Origin::File(file.clone()));
    let version = config::install(from_file);
    let outcome = cfg_shown(&FakeClock::new());
    assert_eq!(
        outcome.report().settings_source().origin(),
        Some(config::Origin::File(file))
    );
    let table = outcome.report().to_string();
    assert!(
        table.ends_with(&format!(
            "settings: configuration {version} (file /etc/app/resilient.toml)"
        )),
        "{table}"
    );
    config::clear();
}

#[test]
fn a_breaker_is_isolated_and_reset_by_its_name() {
    use resilient::{CircuitBreaker, CircuitOpen, CircuitState};
    use std::time::Instant;

    let make = || {
        CircuitBreaker::builder()
            .name("cfg.orders")
            .failure_threshold(2)
            .build()
            .unwrap()
    };
    let (first, second) = (make(), make());
    let other = CircuitBreaker::builder()
        .name("cfg.orders.other")
        .build()
        .unwrap();
    let now = Instant::now();
    first.try_acquire(now).unwrap().record_failure(now);

    assert!(config::isolate("cfg.orders"));
    // Every breaker of the name, at its next call or state read.
    assert_eq!(first.try_acquire(now).unwrap_err(), CircuitOpen);
    assert_eq!(second.state(now), CircuitState::Isolated);
    assert_eq!(other.state(now), CircuitState::Closed);
    let much_later = now + Duration::from_secs(3_600);
    assert_eq!(first.state(much_later), CircuitState::Isolated);

    assert!(config::reset("cfg.orders"));
    assert_eq!(first.state(much_later), CircuitState::Closed);
    assert_eq!(second.state(much_later), CircuitState::Closed);
    // The reset cleared the failure counted before: one more doesn't
    // open it, a second does.
    first
        .try_acquire(much_later)
        .unwrap()
        .record_failure(much_later);
    assert_eq!(first.state(much_later), CircuitState::Closed);
    first
        .try_acquire(much_later)
        .unwrap()
        .record_failure(much_later);
    assert_eq!(first.state(much_later), CircuitState::Open);

    // Orders are obeyed in turn: the latest wins.
    assert!(config::isolate("cfg.orders"));
    assert!(config::reset("cfg.orders"));
    assert!(config::isolate("cfg.orders"));
    assert_eq!(second.state(much_later), CircuitState::Isolated);
    assert!(config::reset("cfg.orders"));
    assert_eq!(second.state(much_later), CircuitState::Closed);

    // No live breaker of the name: nothing to obey, and `false`.
    assert!(!config::isolate("cfg.orders.nobody"));
    drop((first, second));
    assert!(!config::reset("cfg.orders"));
    assert!(config::reset("cfg.orders.other"));
}

#[resilient(hedge = "1s")]
async fn cfg_hedged(#[attempt] attempt: resilient::Attempt) -> Result<u32, Failure> {
    // The first attempt is stuck for 10 s; a hedge answers in 0.5 s.
    let took = if attempt.number() == 1 {
        Duration::from_secs(10)
    } else {
        Duration::from_millis(500)
    };
    tokio::time::sleep(took).await;
    Ok(attempt.number())
}

#[tokio::test(start_paused = true)]
// The slot orders this test among the others, each on its own thread; no
// task of this runtime takes it.
#[allow(clippy::await_holding_lock)]
async fn the_hedge_delay_of_an_entry_starts_the_hedge() {
    use resilient::AttemptKind;

    let _slot = slot();
    let starts = |report: &ExecutionReport| -> Vec<(AttemptKind, Duration)> {
        report
            .attempts()
            .iter()
            .map(|r| (r.kind(), r.started_at()))
            .collect()
    };
    config::clear();
    let outcome = cfg_hedged().await;
    assert_eq!(
        starts(outcome.report()),
        [
            (AttemptKind::Primary, Duration::ZERO),
            (AttemptKind::Hedge, Duration::from_secs(1))
        ]
    );

    let version =
        config::install_toml("[operations.cfg_hedged]\nhedge_delay = \"200ms\"\n").unwrap();
    let started = tokio::time::Instant::now();
    let outcome = cfg_hedged().await;
    assert_eq!(started.elapsed(), Duration::from_millis(700));
    assert_eq!(
        starts(outcome.report()),
        [
            (AttemptKind::Primary, Duration::ZERO),
            (AttemptKind::Hedge, Duration::from_millis(200))
        ]
    );
    assert_eq!(
        outcome.report().settings_source(),
        SettingsSource::Config { version }
    );
    config::clear();
}

/// `[limits.NAME] max_concurrent` resizes a running bulkhead of that name:
/// the permits out across the reload stay valid, and a size below them
/// takes effect as they come back; `clear` gives back the built size.
#[test]
fn a_bulkhead_is_resized_live_and_keeps_its_permits() {
    use resilient::limit::{Bulkhead, Completion, Limiter};
    use std::time::Instant;

    static POOL: Bulkhead = Bulkhead::new(3).named("cfg_reload_pool");
    let _turn = slot();
    let now = Instant::now();
    let done = || POOL.release(now, Duration::ZERO, Completion::Succeeded);
    assert!(POOL.try_acquire(now).is_ok());
    assert!(POOL.try_acquire(now).is_ok());

    config::install_toml("[limits.cfg_reload_pool]\nmax_concurrent = 1\n").unwrap();
    assert_eq!(POOL.current_limit(), Some(1));
    assert_eq!(POOL.in_flight(), Some(2), "the permits out stay out");
    assert_eq!(POOL.available(), 0);
    assert!(POOL.try_acquire(now).is_err(), "two out, size one");
    done();
    assert!(POOL.try_acquire(now).is_err(), "one out, size one");
    done();
    assert!(POOL.try_acquire(now).is_ok(), "none out: one admitted");
    assert!(POOL.try_acquire(now).is_err());

    // A size of 0 fails its rule by path and line, and changes nothing.
    let error = config::install_toml(
        "[operations.cfg_x]\nretries = 1\n[limits.cfg_reload_pool]\nmax_concurrent = 0\n",
    )
    .unwrap_err();
    assert_eq!(error.path(), "limits.cfg_reload_pool.max_concurrent");
    assert_eq!(error.line(), Some(4));
    assert_eq!(POOL.current_limit(), Some(1));
    let error = config::install_toml("[limits.cfg_reload_pool]\nmax_concurent = 2\n").unwrap_err();
    assert_eq!(error.path(), "limits.cfg_reload_pool.max_concurent");
    assert_eq!(error.line(), Some(2));

    config::clear();
    assert_eq!(POOL.current_limit(), Some(3));
    assert!(POOL.try_acquire(now).is_ok());
    assert!(POOL.try_acquire(now).is_ok());
    assert!(POOL.try_acquire(now).is_err());
    done();
    done();
    done();
    assert_eq!(POOL.available(), 3);
}

static GROWN_ASYNC: resilient::limit::Bulkhead =
    resilient::limit::Bulkhead::new(1).named("cfg_grown_async");

#[resilient(limit = &GROWN_ASYNC, limit_wait = "3s")]
async fn cfg_grown_async() -> Result<u32, Failure> {
    Ok(7)
}

/// An install that grows a bulkhead admits the callers waiting on it at
/// once: they don't sleep out their `limit_wait` while permits are free.
#[tokio::test(start_paused = true)]
#[allow(clippy::await_holding_lock)]
async fn a_bulkhead_grown_by_an_install_admits_its_async_waiters_at_once() {
    use resilient::limit::{Completion, Limiter};
    use std::time::Instant;

    let _turn = slot();
    let start = tokio::time::Instant::now();
    GROWN_ASYNC.try_acquire(Instant::now()).unwrap();
    let waiting = tokio::spawn(cfg_grown_async());
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!waiting.is_finished());
    let waiters = GROWN_ASYNC.waiters().unwrap();
    assert_eq!(waiters.waiting(), 1);

    config::install_toml("[limits.cfg_grown_async]\nmax_concurrent = 2\n").unwrap();
    let outcome = waiting.await.unwrap();
    assert_eq!(outcome.result(), &Ok(7));
    assert_eq!(
        start.elapsed(),
        Duration::from_secs(1),
        "admitted at the install"
    );
    assert_eq!(
        outcome.report().attempts()[0].queued(),
        Duration::from_secs(1)
    );
    assert_eq!(waiters.waiting(), 0);

    config::clear();
    GROWN_ASYNC.release(Instant::now(), Duration::ZERO, Completion::Succeeded);
    assert_eq!(GROWN_ASYNC.available(), 1);
}

static GROWN_BLOCKING: resilient::limit::Bulkhead =
    resilient::limit::Bulkhead::new(1).named("cfg_grown_blocking");

#[resilient(limit = &GROWN_BLOCKING, limit_wait = "20s")]
fn cfg_grown_blocking() -> Result<u32, Failure> {
    Ok(8)
}

/// The same for a blocking caller, which waits on the bulkhead's
/// condition variable: without the wake it would block its whole 20 s.
#[test]
fn a_bulkhead_grown_by_an_install_admits_its_blocking_waiters_at_once() {
    use resilient::limit::{Completion, Limiter};
    use std::time::Instant;

    let _turn = slot();
    GROWN_BLOCKING.try_acquire(Instant::now()).unwrap();
    let started = Instant::now();
    let waiting = std::thread::spawn(cfg_grown_blocking);
    let waiters = GROWN_BLOCKING.waiters().unwrap();
    while waiters.waiting() == 0 {
        std::thread::yield_now();
    }
    config::install_toml("[limits.cfg_grown_blocking]\nmax_concurrent = 2\n").unwrap();
    let outcome = waiting.join().unwrap();
    assert_eq!(outcome.result(), &Ok(8));
    assert!(started.elapsed() < Duration::from_secs(20));
    config::clear();
    GROWN_BLOCKING.release(Instant::now(), Duration::ZERO, Completion::Succeeded);
}
