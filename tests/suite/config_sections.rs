//! The sections for named primitives (feature `config`): `[limits.NAME]`
//! sets a rate limiter's rate, period and burst, `[throttles.NAME]` a
//! retry throttle's tokens, `[chaos.NAME]` a chaos switch, each read by
//! the live object of that name from its next use. What the object holds
//! (a limiter's arrival time, a throttle's tokens, a switch flipped by
//! hand) survives a reload; a bad value names its path and line and
//! changes nothing; `clear` gives back the built values.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use resilient::chaos::Chaos;
use resilient::config::{self, ConfigFileError};
use resilient::limit::RateLimiter;
use resilient::{ConfigError, FakeClock, Operation, RetryBudget, RetryThrottle};

use super::config_reload::slot;

const MS: Duration = Duration::from_millis(1);

/// An install that must fail, and must leave the generation as it was.
fn refused(text: &str) -> ConfigFileError {
    let before = config::version();
    let error = config::install_toml(text).unwrap_err();
    assert_eq!(config::version(), before, "a bad text installs nothing");
    error
}

#[test]
fn a_rate_limiter_takes_its_entry_and_keeps_its_arrival_time() {
    // 2 a second: a cell weighs 500 ms, a burst of 2.
    static LIMITER: RateLimiter = RateLimiter::per_second(2).named("cfg_rate");
    let _slot = slot();
    let t0 = Instant::now();
    assert_eq!(LIMITER.check_at(t0), Ok(()));
    assert_eq!(LIMITER.check_at(t0), Ok(()));
    assert_eq!(LIMITER.check_at(t0), Err(MS * 500));

    // 10 a second over the limiter's own second, its own burst of 2: the
    // two cells taken still count (the arrival time is t0 + 1 s), so the
    // next conforms 100 ms before it, where a new limiter would admit now.
    config::install_toml("[limits.cfg_rate]\nrate = 10\n").unwrap();
    assert_eq!(LIMITER.check_at(t0), Err(MS * 900));
    assert_eq!(LIMITER.check_at(t0 + MS * 900), Ok(()));
    assert_eq!(LIMITER.check_at(t0 + MS * 900), Err(MS * 100));

    // One a minute in bursts of 3: two more cells at once, then 200 ms to
    // wait (the arrival time runs 2 min ahead: 1.1 s + 2 × 60 s).
    config::install_toml("[limits.cfg_rate]\nrate = 1\nper = \"1m\"\nburst = 3\n").unwrap();
    let t = t0 + MS * 900;
    assert_eq!(LIMITER.check_at(t), Ok(()));
    assert_eq!(LIMITER.check_at(t), Ok(()));
    assert_eq!(LIMITER.check_at(t), Err(MS * 200));

    // A rate or a burst of 0, or a period of 0, is refused by path and
    // line; the limiter goes on by the entry installed.
    let error = refused("[operations.cfg_x]\nretries = 1\n[limits.cfg_rate]\nrate = 0\n");
    assert_eq!(error.path(), "limits.cfg_rate.rate");
    assert_eq!(error.line(), Some(4));
    assert!(error.reason().contains("admits nothing"), "{error}");
    let error = refused("[limits.cfg_rate]\nrate = 5\nburst = 0\n");
    assert_eq!(
        (error.path(), error.line()),
        ("limits.cfg_rate.burst", Some(3))
    );
    let error = refused("[limits.cfg_rate]\nper = \"0ms\"\n");
    assert_eq!(
        (error.path(), error.line()),
        ("limits.cfg_rate.per", Some(2))
    );
    assert_eq!(LIMITER.check_at(t), Err(MS * 200));

    // Back to 2 a second, the arrival time still 121.1 s on: 120.6 s to
    // wait.
    config::clear();
    assert_eq!(LIMITER.check_at(t), Err(MS * 119_700));
}

#[test]
fn a_period_alone_keeps_the_rate_and_an_unnamed_limiter_reads_nothing() {
    static SLOW: RateLimiter = RateLimiter::per_second(4).burst(1).named("cfg_rate_per");
    static OTHER: RateLimiter = RateLimiter::per_second(4).burst(1);
    let _slot = slot();
    config::install_toml("[limits.cfg_rate_per]\nper = \"2s\"\n[limits.other]\nrate = 1\n")
        .unwrap();
    let t0 = Instant::now();
    // Four in two seconds: 500 ms a cell.
    assert_eq!(SLOW.check_at(t0), Ok(()));
    assert_eq!(SLOW.check_at(t0), Err(MS * 500));
    assert_eq!(OTHER.check_at(t0), Ok(()));
    assert_eq!(OTHER.check_at(t0), Err(MS * 250));
    config::clear();
    assert_eq!(
        SLOW.check_at(t0 + MS * 250),
        Err(MS * 250),
        "250 ms a cell again"
    );
}

#[test]
fn a_throttle_keeps_its_tokens_and_obeys_its_entry() {
    static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.1).named("cfg_throttle");
    static UNNAMED: RetryThrottle = RetryThrottle::new(10, 0.1);
    let _slot = slot();
    for _ in 0..3 {
        THROTTLE.record_failure();
    }
    assert_eq!(THROTTLE.tokens(), 7.0);

    // Four tokens at most: the seven left are cut to four, which is above
    // half of four; a success earns half a token.
    config::install_toml(
        "[throttles.cfg_throttle]\nmax_tokens = 4\ntoken_ratio = 0.5\n\
         [throttles.unnamed]\nmax_tokens = 2\n",
    )
    .unwrap();
    assert_eq!(THROTTLE.tokens(), 4.0);
    assert_eq!(RetryBudget::level(&THROTTLE), Some((4.0, 4.0)));
    assert!(THROTTLE.allows_retry());
    THROTTLE.record_failure();
    THROTTLE.record_failure();
    assert_eq!(THROTTLE.tokens(), 2.0);
    assert!(!THROTTLE.allows_retry(), "2 is not above 4 / 2");
    THROTTLE.record_success();
    assert_eq!(THROTTLE.tokens(), 2.5);
    assert!(THROTTLE.allows_retry());
    for _ in 0..4 {
        THROTTLE.record_success();
    }
    assert_eq!(THROTTLE.tokens(), 4.0, "capped at the entry's four");

    // Twenty at most, the builder's ratio: the four tokens stay, below
    // half of twenty.
    config::install_toml("[throttles.cfg_throttle]\nmax_tokens = 20\n").unwrap();
    assert_eq!(THROTTLE.tokens(), 4.0);
    assert!(!THROTTLE.allows_retry());
    THROTTLE.record_success();
    assert_eq!(THROTTLE.tokens(), 4.1);
    assert_eq!(
        format!("{THROTTLE:?}"),
        "RetryThrottle { name: \"cfg_throttle\", tokens: 4.1, max_tokens: 20, token_ratio: 0.1 }"
    );

    // A6's rules, by path and line, and nothing applied.
    let error = refused("[throttles.cfg_throttle]\nmax_tokens = 4\n\ntoken_ratio = 0\n");
    assert_eq!(error.path(), "throttles.cfg_throttle.token_ratio");
    assert_eq!(error.line(), Some(4));
    assert_eq!(error.rule(), Some(&ConfigError::InvalidTokenRatio(0.0)));
    let error = refused("[throttles.cfg_throttle]\nmax_tokens = 1001\n");
    assert_eq!(error.path(), "throttles.cfg_throttle.max_tokens");
    assert_eq!(error.rule(), Some(&ConfigError::InvalidMaxTokens(1001)));
    assert_eq!(RetryBudget::level(&THROTTLE), Some((4.1, 20.0)));

    // Back to the builder's ten: the tokens stay.
    config::clear();
    assert_eq!(RetryBudget::level(&THROTTLE), Some((4.1, 10.0)));
    assert!(!THROTTLE.allows_retry());
    THROTTLE.record_success();
    assert_eq!(THROTTLE.tokens(), 4.2);
    assert_eq!(THROTTLE.max_tokens(), 10, "the built value");

    // A throttle without a name reads no entry, whatever its Debug says.
    assert_eq!(RetryBudget::level(&UNNAMED), Some((10.0, 10.0)));
}

/// A call through a named throttle: the entry's maximum decides whether
/// its retry may start.
#[test]
fn a_call_retries_by_its_throttles_entry() {
    static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.1).named("cfg_throttle_call");
    let _slot = slot();
    let attempts = || {
        Operation::new()
            .max_attempts(2)
            .clock(FakeClock::new())
            .throttle(&THROTTLE)
            .run(|_| Err::<(), _>("busy"))
            .report()
            .attempt_count()
    };
    // Ten tokens: the first failure leaves nine, above five; the retry
    // runs and its failure leaves eight.
    assert_eq!(attempts(), 2);
    // Sixteen at most: eight tokens are not above eight.
    config::install_toml("[throttles.cfg_throttle_call]\nmax_tokens = 16\n").unwrap();
    assert_eq!(attempts(), 1);
    config::clear();
    // Seven tokens above five again.
    assert_eq!(attempts(), 2);
}

#[test]
fn a_chaos_switch_follows_its_entry_and_comes_back_after_clear() {
    static CHAOS: Chaos = Chaos::new()
        .injection_rate(0.5)
        .randomizer(|| 0.25)
        .named("cfg.chaos");
    static UNNAMED: Chaos = Chaos::new().injection_rate(0.5).randomizer(|| 0.25);
    let _slot = slot();
    assert!(!CHAOS.should_inject());

    config::install_toml(
        "[chaos.\"cfg.chaos\"]\nenabled = true\n[chaos.unnamed]\nenabled = true\n",
    )
    .unwrap();
    assert!(CHAOS.should_inject(), "0.25 < 0.5");
    assert!(!UNNAMED.should_inject(), "no name, no entry");
    config::install_toml("[chaos.\"cfg.chaos\"]\nenabled = true\ninjection_rate = 0.2\n").unwrap();
    assert!(CHAOS.is_enabled());
    assert_eq!(CHAOS.rate(), 0.2);
    assert!(!CHAOS.should_inject(), "0.25 is not below 0.2");

    // Switched off by hand (as the dashboard does): it holds across a
    // reload that leaves `enabled` as it was, and a new rate applies.
    CHAOS.set_enabled(false);
    config::install_toml(
        "[operations.cfg_elsewhere]\nretries = 1\n\
         [chaos.\"cfg.chaos\"]\nenabled = true\ninjection_rate = 0.3\n",
    )
    .unwrap();
    assert!(!CHAOS.is_enabled());
    assert_eq!(CHAOS.rate(), 0.3);

    // A bad value is refused by path and line and changes nothing.
    let error = refused("[chaos.\"cfg.chaos\"]\nenabled = false\ninjection_rate = 5\n");
    assert_eq!(error.path(), "chaos.\"cfg.chaos\".injection_rate");
    assert_eq!(error.line(), Some(3));
    let error = refused("[chaos.\"cfg.chaos\"]\nenabled = \"on\"\n");
    assert_eq!(error.path(), "chaos.\"cfg.chaos\".enabled");
    assert_eq!((CHAOS.is_enabled(), CHAOS.rate()), (false, 0.3));

    // Cleared: the switch's own values, off at 0.5.
    config::clear();
    assert_eq!((CHAOS.is_enabled(), CHAOS.rate()), (false, 0.5));

    // Switched on by hand with no entry, it is its own value: an entry
    // turns it off, and clear turns it back on.
    CHAOS.set_enabled(true);
    assert!(CHAOS.should_inject());
    config::install_toml("[chaos.\"cfg.chaos\"]\nenabled = false\n").unwrap();
    assert!(!CHAOS.should_inject());
    config::clear();
    assert!(CHAOS.should_inject());
    CHAOS.set_enabled(false);
}

/// A call consults a named switch once per attempt: an entry turns its
/// faults on, and clear turns them off.
#[test]
fn a_call_is_injected_by_its_switchs_entry() {
    static FAULTS: Chaos = Chaos::new().injection_rate(1.0).named("cfg.chaos.call");
    let _slot = slot();
    let call = || {
        Operation::new()
            .max_attempts(1)
            .clock(FakeClock::new())
            .chaos(&FAULTS)
            .chaos_fault(|| "injected")
            .run(|_| Ok::<_, &str>(7))
            .into_result()
    };
    assert_eq!(call(), Ok(7));
    config::install_toml("[chaos.\"cfg.chaos.call\"]\nenabled = true\n").unwrap();
    assert_eq!(call(), Err("injected"));
    config::clear();
    assert_eq!(call(), Ok(7));
}

/// Threads use one named throttle and one named limiter while their
/// entries are reloaded: no update is lost to a reload, and the count
/// never exceeds the maximum in force.
#[test]
fn named_primitives_under_reloads_keep_their_bounds() {
    static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.5).named("cfg_load_throttle");
    static LIMITER: RateLimiter = RateLimiter::per_second(1000).named("cfg_load_rate");
    let _slot = slot();
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..4)
        .map(|n| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let now = Instant::now();
                let mut admitted = 0_u64;
                while !stop.load(Ordering::Relaxed) {
                    if n % 2 == 0 {
                        THROTTLE.record_failure();
                    } else {
                        THROTTLE.record_success();
                    }
                    let (tokens, max) = RetryBudget::level(&THROTTLE).unwrap();
                    assert!((0.0..=max).contains(&tokens), "{tokens} of {max}");
                    if LIMITER.check_at(now).is_ok() {
                        admitted += 1;
                    }
                }
                (now, admitted)
            })
        })
        .collect();
    for round in 0..200 {
        let text = if round % 2 == 0 {
            "[throttles.cfg_load_throttle]\nmax_tokens = 2\n[limits.cfg_load_rate]\nburst = 5\n"
        } else {
            "[throttles.cfg_load_throttle]\nmax_tokens = 50\n[limits.cfg_load_rate]\nburst = 20\n"
        };
        config::install_toml(text).unwrap();
        std::thread::yield_now();
    }
    stop.store(true, Ordering::Relaxed);
    let ran: Vec<(Instant, u64)> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    let admitted: u64 = ran.iter().map(|(_, admitted)| admitted).sum();
    // Each thread asks at one instant of its own. Whichever rule is in
    // force (the builder's until the first install, then the entries'),
    // the cells granted by then are at most the largest burst, the
    // builder's 1000, plus one a millisecond between the first thread's
    // instant and the last's.
    let first = ran.iter().map(|(now, _)| *now).min().unwrap();
    let last = ran.iter().map(|(now, _)| *now).max().unwrap();
    let spread = u64::try_from(last.duration_since(first).as_millis()).unwrap();
    assert!(
        (1..=1000 + spread + 1).contains(&admitted),
        "{admitted} over {spread} ms"
    );
    config::clear();
    let (tokens, max) = RetryBudget::level(&THROTTLE).unwrap();
    assert_eq!(max, 10.0);
    assert!(tokens <= 10.0, "{tokens}");
}

#[test]
fn an_adaptive_throttle_follows_its_entry_and_keeps_its_window() {
    use resilient::throttle::{AdaptiveThrottle, Rejected};

    #[derive(Debug, PartialEq)]
    enum Error {
        Down,
        Shed,
    }
    impl From<Rejected> for Error {
        fn from(_: Rejected) -> Self {
            Error::Shed
        }
    }
    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{self:?}")
        }
    }

    static BACKEND: AdaptiveThrottle = AdaptiveThrottle::new().seed(17).named("cfg_adaptive");
    let _slot = slot();
    let clock = FakeClock::new();
    let call = || {
        Operation::new()
            .adaptive_throttle(&BACKEND)
            .clock(clock.clone())
            .run(|_| Err::<u32, _>(Error::Down))
    };
    let shed = |calls: usize| {
        (0..calls)
            .filter(|_| call().into_result() == Err(Error::Shed))
            .count()
    };

    // The entry's cap of 0 refuses nothing, through a whole brownout.
    config::install_toml("[adaptive_throttles.cfg_adaptive]\nmax_rejection = 0.0\n").unwrap();
    assert_eq!(shed(40), 0);
    assert_eq!(BACKEND.rejection_probability(), 0.0);
    assert_eq!(BACKEND.requests(), 40, "the window counts all the while");

    // A bad value names its path and line and changes nothing.
    let error =
        refused("[adaptive_throttles.cfg_adaptive]\nmax_rejection = 0.0\nmultiplier = 0.5\n");
    assert_eq!(error.path(), "adaptive_throttles.cfg_adaptive.multiplier");
    assert_eq!(error.line(), Some(3));
    assert_eq!(shed(10), 0);

    // Cleared, the builder's cap of 0.9 holds, over the window kept.
    config::clear();
    assert!(shed(40) > 20);
    assert_eq!(BACKEND.rejection_probability(), 0.9);
}
