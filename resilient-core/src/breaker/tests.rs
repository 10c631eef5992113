//! Unit tests of the breaker, on explicit instants.

use super::window::{Counts, MAX_WINDOW_CALLS};
use super::word::{MAX_PROBES, Pack, Streak};
use super::*;
use crate::error::ConfigError;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn breaker(threshold: u32, break_secs: u64) -> CircuitBreaker {
    CircuitBreaker::builder()
        .failure_threshold(threshold)
        .break_duration(secs(break_secs))
        .build()
        .unwrap()
}

fn fail(breaker: &CircuitBreaker, now: Instant) {
    breaker.try_acquire(now).unwrap().record_failure(now);
}

fn succeed(breaker: &CircuitBreaker, now: Instant) {
    breaker.try_acquire(now).unwrap().record_success(now);
}

/// A breaker with the failure-ratio rule (and a 10 s break).
fn ratio(failure_ratio: f64, minimum_throughput: u32, window_secs: u64) -> CircuitBreakerBuilder {
    CircuitBreaker::builder()
        .failure_ratio(failure_ratio)
        .minimum_throughput(minimum_throughput)
        .sampling_window(secs(window_secs))
        .break_duration(secs(10))
}

/// Opens `breaker` (threshold 1) at `now`.
fn open_at(breaker: &CircuitBreaker, now: Instant) {
    fail(breaker, now);
    assert_eq!(breaker.state(now), CircuitState::Open);
}

#[test]
fn breaker_and_permit_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CircuitBreaker>();
    assert_send_sync::<CircuitPermit<'static>>();
    assert_send_sync::<CircuitBreakerBuilder>();
}

#[test]
fn opens_exactly_at_the_threshold() {
    let b = breaker(3, 30);
    let t0 = Instant::now();
    fail(&b, t0);
    fail(&b, t0);
    assert_eq!(b.state(t0), CircuitState::Closed);
    assert!(b.try_acquire(t0).is_ok());
    fail(&b, t0);
    assert_eq!(b.state(t0), CircuitState::Open);
}

#[test]
fn default_threshold_is_five_consecutive_failures() {
    let b = CircuitBreaker::default();
    let t0 = Instant::now();
    for _ in 0..4 {
        fail(&b, t0);
    }
    assert_eq!(b.state(t0), CircuitState::Closed);
    fail(&b, t0);
    assert_eq!(b.state(t0), CircuitState::Open);
    assert_eq!(b.state(t0 + secs(29)), CircuitState::Open);
    assert_eq!(b.state(t0 + secs(30)), CircuitState::HalfOpen);
}

#[test]
fn success_resets_the_consecutive_count() {
    let b = breaker(2, 30);
    let t0 = Instant::now();
    fail(&b, t0);
    succeed(&b, t0);
    fail(&b, t0);
    assert_eq!(b.state(t0), CircuitState::Closed);
    fail(&b, t0);
    assert_eq!(b.state(t0), CircuitState::Open);
}

#[test]
fn rejects_while_open() {
    let b = breaker(1, 10);
    let t0 = Instant::now();
    open_at(&b, t0);
    for n in [0, 1, 5, 9] {
        assert_eq!(b.try_acquire(t0 + secs(n)).unwrap_err(), CircuitOpen);
    }
    let just_before = t0 + secs(10) - Duration::from_nanos(1);
    assert!(b.try_acquire(just_before).is_err());
    assert_eq!(b.state(just_before), CircuitState::Open);
}

#[test]
fn half_opens_once_the_break_has_elapsed() {
    let b = breaker(1, 10);
    let t0 = Instant::now();
    open_at(&b, t0);
    let t10 = t0 + secs(10);
    assert_eq!(b.state(t10), CircuitState::HalfOpen);
    let probe = b.try_acquire(t10).unwrap();
    assert!(probe.is_probe());
    assert_eq!(b.state(t10), CircuitState::HalfOpen);
    drop(probe);
}

#[test]
fn successful_probe_closes_with_fresh_counts() {
    let b = breaker(2, 10);
    let t0 = Instant::now();
    fail(&b, t0);
    fail(&b, t0);
    let t10 = t0 + secs(10);
    let probe = b.try_acquire(t10).unwrap();
    probe.record_success(t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
    let permit = b.try_acquire(t10).unwrap();
    assert!(!permit.is_probe());
    permit.record_failure(t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
    fail(&b, t10);
    assert_eq!(b.state(t10), CircuitState::Open);
}

#[test]
fn failed_probe_reopens_and_restarts_the_break() {
    let b = breaker(1, 10);
    let t0 = Instant::now();
    open_at(&b, t0);
    let t15 = t0 + secs(15);
    b.try_acquire(t15).unwrap().record_failure(t15);
    assert_eq!(b.state(t15), CircuitState::Open);
    // The new break runs from 15 s, not from 0 s.
    assert!(b.try_acquire(t0 + secs(20)).is_err());
    assert!(
        b.try_acquire(t0 + secs(25) - Duration::from_nanos(1))
            .is_err()
    );
    assert_eq!(b.state(t0 + secs(25)), CircuitState::HalfOpen);
    assert!(b.try_acquire(t0 + secs(25)).unwrap().is_probe());
}

#[test]
fn half_open_admits_at_most_the_probe_limit() {
    let b = probing(2, 10);
    let t0 = Instant::now();
    open_at(&b, t0);
    let t10 = t0 + secs(10);
    let first = b.try_acquire(t10).unwrap();
    let second = b.try_acquire(t10).unwrap();
    assert!(first.is_probe() && second.is_probe());
    assert_eq!(b.try_acquire(t10).unwrap_err(), CircuitOpen);
    let until_timeout = t10 + secs(10) - Duration::from_nanos(1);
    assert_eq!(b.try_acquire(until_timeout).unwrap_err(), CircuitOpen);
    assert_eq!(b.probes_in_flight(), 2);
    // The first probe to report decides; the other becomes stale.
    first.record_success(t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
    second.record_failure(t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
}

#[test]
fn cancelled_probe_frees_its_slot() {
    let b = breaker(1, 10);
    let t0 = Instant::now();
    open_at(&b, t0);
    let t10 = t0 + secs(10);
    let probe = b.try_acquire(t10).unwrap();
    assert!(b.try_acquire(t10).is_err());
    drop(probe);
    assert_eq!(b.probes_in_flight(), 0);
    assert_eq!(b.state(t10), CircuitState::HalfOpen);
    let again = b.try_acquire(t10).unwrap();
    assert!(again.is_probe());
    again.record_success(t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
}

#[test]
fn cancelled_call_counts_as_neither_success_nor_failure() {
    let b = breaker(2, 10);
    let t0 = Instant::now();
    fail(&b, t0);
    // A success would reset the count; a failure would open the breaker.
    drop(b.try_acquire(t0).unwrap());
    assert_eq!(b.state(t0), CircuitState::Closed);
    fail(&b, t0);
    assert_eq!(b.state(t0), CircuitState::Open);
}

#[test]
fn outcome_of_a_call_admitted_before_opening_is_ignored() {
    let b = breaker(1, 10);
    let t0 = Instant::now();
    let slow = b.try_acquire(t0).unwrap();
    open_at(&b, t0);
    let t10 = t0 + secs(10);
    let probe = b.try_acquire(t10).unwrap();
    // The old call's success must not close the breaker under the probe.
    slow.record_success(t10);
    assert_eq!(b.state(t10), CircuitState::HalfOpen);
    assert!(b.try_acquire(t10).is_err());
    probe.record_failure(t10);
    assert_eq!(b.state(t10), CircuitState::Open);
}

#[test]
fn stale_probe_cannot_free_a_slot_of_the_next_half_open_period() {
    let b = probing(2, 10);
    let t0 = Instant::now();
    open_at(&b, t0);
    let t10 = t0 + secs(10);
    let stale = b.try_acquire(t10).unwrap();
    b.try_acquire(t10).unwrap().record_failure(t10);
    let t20 = t0 + secs(20);
    let a = b.try_acquire(t20).unwrap();
    let c = b.try_acquire(t20).unwrap();
    drop(stale);
    assert_eq!(b.probes_in_flight(), 2);
    assert!(b.try_acquire(t20).is_err());
    drop((a, c));
    assert_eq!(b.probes_in_flight(), 0);
}

/// A breaker that one failure opens for 10 s, with `probes` slots and a
/// probe timeout of `timeout_secs`.
fn probing(probes: u32, timeout_secs: u64) -> CircuitBreaker {
    CircuitBreaker::builder()
        .failure_threshold(1)
        .break_duration(secs(10))
        .half_open_probes(probes)
        .probe_timeout(secs(timeout_secs))
        .build()
        .unwrap()
}

#[test]
fn leaked_probe_holds_its_slot_until_exactly_the_probe_timeout() {
    let b = probing(1, 5);
    let t0 = Instant::now();
    open_at(&b, t0);
    let t10 = t0 + secs(10);
    std::mem::forget(b.try_acquire(t10).unwrap());
    let just_before = t0 + secs(15) - Duration::from_nanos(1);
    assert_eq!(b.try_acquire(just_before).unwrap_err(), CircuitOpen);
    assert_eq!(b.state(just_before), CircuitState::HalfOpen);
    let t15 = t0 + secs(15);
    let probe = b.try_acquire(t15).unwrap();
    assert!(probe.is_probe());
    assert_eq!(b.probes_in_flight(), 1);
    assert_eq!(b.try_acquire(t15).unwrap_err(), CircuitOpen);
    probe.record_success(t15);
    assert_eq!(b.state(t15), CircuitState::Closed);
}

#[test]
fn probe_timeout_defaults_to_the_break_duration() {
    let b = breaker(1, 10);
    let t0 = Instant::now();
    open_at(&b, t0);
    std::mem::forget(b.try_acquire(t0 + secs(10)).unwrap());
    assert!(
        b.try_acquire(t0 + secs(20) - Duration::from_nanos(1))
            .is_err()
    );
    assert!(b.try_acquire(t0 + secs(20)).unwrap().is_probe());
}

#[test]
fn silent_probe_reporting_after_its_timeout_changes_nothing() {
    let b = probing(1, 5);
    let t0 = Instant::now();
    open_at(&b, t0);
    let t10 = t0 + secs(10);
    let failing = b.try_acquire(t10).unwrap();
    let t15 = t0 + secs(15);
    let succeeding = b.try_acquire(t15).unwrap();
    let probe = b.try_acquire(t0 + secs(20)).unwrap();
    // Each expired in turn: neither can close, open, or free the live slot.
    let t21 = t0 + secs(21);
    failing.record_failure(t21);
    succeeding.record_success(t21);
    assert_eq!(b.state(t21), CircuitState::HalfOpen);
    assert_eq!(b.probes_in_flight(), 1);
    assert_eq!(b.try_acquire(t21).unwrap_err(), CircuitOpen);
    probe.record_failure(t21);
    assert_eq!(b.state(t21), CircuitState::Open);
    assert!(b.try_acquire(t0 + secs(31)).unwrap().is_probe());
}

#[test]
fn dropping_an_expired_probe_frees_no_slot_of_the_new_period() {
    let b = probing(1, 5);
    let t0 = Instant::now();
    open_at(&b, t0);
    let expired = b.try_acquire(t0 + secs(10)).unwrap();
    let t15 = t0 + secs(15);
    let probe = b.try_acquire(t15).unwrap();
    drop(expired);
    assert_eq!(b.probes_in_flight(), 1);
    assert_eq!(b.try_acquire(t15).unwrap_err(), CircuitOpen);
    drop(probe);
    assert_eq!(b.probes_in_flight(), 0);
}

#[test]
fn probe_timeout_counts_from_the_latest_admission() {
    let b = probing(2, 5);
    let t0 = Instant::now();
    open_at(&b, t0);
    std::mem::forget(b.try_acquire(t0 + secs(10)).unwrap());
    std::mem::forget(b.try_acquire(t0 + secs(12)).unwrap());
    // The first has been silent for 5 s, but the second only for 3 s.
    assert!(b.try_acquire(t0 + secs(15)).is_err());
    assert!(
        b.try_acquire(t0 + secs(17) - Duration::from_nanos(1))
            .is_err()
    );
    let t17 = t0 + secs(17);
    let first = b.try_acquire(t17).unwrap();
    let second = b.try_acquire(t17).unwrap();
    assert!(first.is_probe() && second.is_probe());
    assert_eq!(b.try_acquire(t17).unwrap_err(), CircuitOpen);
}

#[test]
fn free_slots_are_not_taken_back() {
    let b = probing(2, 5);
    let t0 = Instant::now();
    open_at(&b, t0);
    let t10 = t0 + secs(10);
    let slow = b.try_acquire(t10).unwrap();
    // Long after the timeout, but a slot is still free: the slow probe
    // keeps its own.
    let t30 = t0 + secs(30);
    let other = b.try_acquire(t30).unwrap();
    assert_eq!(b.probes_in_flight(), 2);
    drop(other);
    slow.record_success(t30);
    assert_eq!(b.state(t30), CircuitState::Closed);
}

#[test]
fn ratio_opens_once_minimum_throughput_is_reached() {
    let b = ratio(0.5, 4, 60).build().unwrap();
    let t0 = Instant::now();
    fail(&b, t0);
    fail(&b, t0);
    fail(&b, t0);
    // 3 of 3 failed, but only 3 calls: below the minimum throughput.
    assert_eq!(b.state(t0), CircuitState::Closed);
    // 3 of 4 failed, but a success never opens the breaker.
    succeed(&b, t0);
    assert_eq!(b.state(t0), CircuitState::Closed);
    succeed(&b, t0);
    succeed(&b, t0);
    succeed(&b, t0);
    // 4 of 8 failed: 0.5 >= 0.5.
    fail(&b, t0 + secs(1));
    assert_eq!(b.state(t0 + secs(1)), CircuitState::Open);
}

#[test]
fn ratio_below_threshold_stays_closed() {
    let b = ratio(0.5, 4, 30).build().unwrap();
    let t0 = Instant::now();
    for _ in 0..10 {
        succeed(&b, t0);
        succeed(&b, t0);
        fail(&b, t0);
    }
    assert_eq!(b.state(t0), CircuitState::Closed);
}

#[test]
fn ratio_windows_reset() {
    let b = ratio(0.5, 4, 10).build().unwrap();
    let t0 = Instant::now();
    fail(&b, t0);
    fail(&b, t0);
    fail(&b, t0);
    // The window that started at 0 s ended at 10 s; its failures are gone.
    let t10 = t0 + secs(10);
    fail(&b, t10);
    fail(&b, t10);
    fail(&b, t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
    fail(&b, t10 + secs(9));
    assert_eq!(b.state(t10 + secs(9)), CircuitState::Open);
}

#[test]
fn ratio_alone_ignores_the_default_consecutive_threshold() {
    let b = ratio(0.9, 100, 30).build().unwrap();
    let t0 = Instant::now();
    for _ in 0..50 {
        fail(&b, t0);
    }
    assert_eq!(b.state(t0), CircuitState::Closed);
}

#[test]
fn ratio_with_explicit_threshold_opens_on_either_rule() {
    let b = ratio(0.9, 100, 30).failure_threshold(3).build().unwrap();
    let t0 = Instant::now();
    for _ in 0..3 {
        fail(&b, t0);
    }
    assert_eq!(b.state(t0), CircuitState::Open);
}

#[test]
fn closing_resets_the_ratio_window() {
    let b = ratio(0.5, 2, 1000).build().unwrap();
    let t0 = Instant::now();
    fail(&b, t0);
    fail(&b, t0);
    assert_eq!(b.state(t0), CircuitState::Open);
    let t10 = t0 + secs(10);
    succeed(&b, t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
    // The old window's two failures would make this 3 of 3.
    fail(&b, t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
    fail(&b, t10);
    assert_eq!(b.state(t10), CircuitState::Open);
}

#[test]
fn builder_rejects_meaningless_values() {
    let err = |builder: CircuitBreakerBuilder| builder.build().unwrap_err();
    let b = CircuitBreaker::builder;
    assert_eq!(
        err(b().failure_threshold(0)),
        ConfigError::ZeroFailureThreshold
    );
    for ratio in [
        0.0,
        -0.0,
        -0.5,
        1.000_001,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        assert_eq!(
            err(b().failure_ratio(ratio)),
            ConfigError::InvalidFailureRatio(ratio)
        );
    }
    assert!(matches!(
        err(b().failure_ratio(f64::NAN)),
        ConfigError::InvalidFailureRatio(r) if r.is_nan()
    ));
    assert_eq!(
        err(b().half_open_probes(0)),
        ConfigError::ZeroHalfOpenProbes
    );
    assert_eq!(
        err(b().break_duration(Duration::ZERO)),
        ConfigError::ZeroDuration("break_duration")
    );
    assert_eq!(
        err(b().probe_timeout(Duration::ZERO)),
        ConfigError::ZeroDuration("probe_timeout")
    );
    assert_eq!(
        err(b().failure_ratio(0.5).sampling_window(Duration::ZERO)),
        ConfigError::ZeroDuration("sampling_window")
    );
}

#[test]
fn builder_accepts_boundary_values() {
    let b = CircuitBreaker::builder;
    assert!(b().failure_ratio(1.0).build().is_ok());
    assert!(b().failure_ratio(f64::MIN_POSITIVE).build().is_ok());
    assert!(b().failure_threshold(u32::MAX).build().is_ok());
    assert!(b().half_open_probes(u32::MAX).build().is_ok());
    assert!(b().minimum_throughput(0).failure_ratio(0.5).build().is_ok());
    assert!(b().break_duration(Duration::from_nanos(1)).build().is_ok());
}

#[test]
fn huge_durations_do_not_panic() {
    let b = CircuitBreaker::builder()
        .failure_threshold(1)
        .break_duration(Duration::MAX)
        .failure_ratio(1.0)
        .sampling_window(Duration::MAX)
        .half_open_probes(u32::MAX)
        .probe_timeout(Duration::MAX)
        .build()
        .unwrap();
    let t0 = Instant::now();
    open_at(&b, t0);
    let far = t0 + Duration::from_secs(100 * 365 * 24 * 3600);
    assert_eq!(b.state(far), CircuitState::Open);
    assert!(b.try_acquire(far).is_err());
    let _ = format!("{b:?}");
}

#[test]
fn instants_keep_their_order_whichever_the_breaker_sees_first() {
    let b = breaker(1, 10);
    // Before the breaker was built, as a virtual clock's instants may be.
    let t0 = Instant::now()
        .checked_sub(secs(100))
        .expect("the monotonic clock has run for 100 s");
    assert_eq!(b.state(t0 + secs(200)), CircuitState::Closed);
    open_at(&b, t0);
    let just_before = t0 + secs(10) - Duration::from_nanos(1);
    assert_eq!(b.state(just_before), CircuitState::Open);
    assert!(b.try_acquire(just_before).is_err());
    assert!(b.try_acquire(t0 + secs(10)).unwrap().is_probe());
}

#[test]
fn probe_limit_is_clamped_to_what_the_word_can_count() {
    let b = CircuitBreaker::builder()
        .half_open_probes(u32::MAX)
        .build()
        .unwrap();
    assert_eq!(b.config.half_open_probes, MAX_PROBES);
    for tag in [
        Tag::Closed,
        Tag::Opening,
        Tag::Open,
        Tag::HalfOpen,
        Tag::Closing,
    ] {
        let w = Word::new(tag, MAX_PROBES, u32::MAX);
        assert_eq!(Word::unpack(w.pack()), w);
    }
}

#[test]
fn minimum_throughput_is_clamped_to_what_a_window_can_count() {
    let b = ratio(0.5, u32::MAX, 30).build().unwrap();
    let config = b.config.ratio.unwrap();
    assert_eq!(config.minimum_throughput, MAX_WINDOW_CALLS);
}

#[test]
fn counted_words_round_trip() {
    let counts = Counts {
        period: u16::MAX,
        calls: MAX_WINDOW_CALLS,
        failures: MAX_WINDOW_CALLS - 1,
    };
    assert_eq!(Counts::unpack(counts.pack()), counts);
    let streak = Streak {
        generation: u32::MAX,
        failures: u32::MAX - 1,
    };
    assert_eq!(Streak::unpack(streak.pack()), streak);
}

#[test]
fn a_full_window_stops_counting() {
    let full = Counts {
        period: 7,
        calls: MAX_WINDOW_CALLS,
        failures: 3,
    };
    assert_eq!(full.record(true), full);
    assert_eq!(full.record(false), full);
}

/// Admits a call at `t0`, then opens `b` (two failures open it) at `t0`.
/// Returns the call's permit, still unreported.
fn admit_then_open(b: &CircuitBreaker, t0: Instant) -> CircuitPermit<'_> {
    let late = b.try_acquire(t0).unwrap();
    fail(b, t0);
    fail(b, t0);
    assert_eq!(b.state(t0), CircuitState::Open);
    late
}

/// Asserts that `b` (two failures open it) counts from zero at `now`.
fn assert_opens_on_the_second_failure(b: &CircuitBreaker, now: Instant) {
    fail(b, now);
    assert_eq!(b.state(now), CircuitState::Closed);
    fail(b, now);
    assert_eq!(b.state(now), CircuitState::Open);
}

#[test]
fn late_failure_of_an_earlier_closed_period_does_not_count_in_the_next() {
    let b = breaker(2, 10);
    let t0 = Instant::now();
    let late = admit_then_open(&b, t0);
    let t10 = t0 + secs(10);
    succeed(&b, t10);
    assert_eq!(b.state(t10), CircuitState::Closed);
    // Counting it would make the next failure the second.
    late.record_failure(t10);
    assert_opens_on_the_second_failure(&b, t10);
}

#[test]
fn failure_counted_after_opening_is_dropped_when_closing() {
    let b = breaker(2, 10);
    let t0 = Instant::now();
    let late = admit_then_open(&b, t0);
    // Still the period's own count while open; closing starts from zero.
    late.record_failure(t0 + secs(5));
    let t10 = t0 + secs(10);
    succeed(&b, t10);
    assert_opens_on_the_second_failure(&b, t10);
}

#[test]
fn late_failure_of_an_earlier_closed_period_does_not_count_in_the_next_window() {
    let b = ratio(1.0, 2, 1000).build().unwrap();
    let t0 = Instant::now();
    let late = admit_then_open(&b, t0);
    let t10 = t0 + secs(10);
    succeed(&b, t10);
    // Counting it would make the next failure 2 of 2.
    late.record_failure(t10);
    assert_opens_on_the_second_failure(&b, t10);
}

#[test]
fn late_outcome_cannot_restart_the_window_of_the_next_closed_period() {
    let b = ratio(1.0, 2, 10).build().unwrap();
    let t0 = Instant::now();
    let late = admit_then_open(&b, t0);
    let t10 = t0 + secs(10);
    succeed(&b, t10);
    fail(&b, t10);
    // A late outcome of the old period at 20 s must not start the new
    // period's next window: the window that started at 10 s ended at 20 s,
    // so a failure at 29 s starts the next one, and is its only call.
    late.record_success(t0 + secs(20));
    fail(&b, t0 + secs(29));
    assert_eq!(b.state(t0 + secs(29)), CircuitState::Closed);
}

#[test]
fn debug_shows_state_and_configuration() {
    let b = breaker(3, 7);
    let text = format!("{b:?}");
    assert!(
        text.starts_with(r#"CircuitBreaker { name: "circuit_breaker", state: Closed"#),
        "{text}"
    );
    assert!(text.contains("failure_threshold: 3"), "{text}");
    assert!(text.contains("break_duration: 7s"), "{text}");
    assert!(text.contains("probe_timeout: 7s"), "{text}");
}

#[test]
fn name_is_set_by_the_builder_and_defaults_to_circuit_breaker() {
    assert_eq!(CircuitBreaker::default().name(), "circuit_breaker");
    assert_eq!(breaker(3, 7).name(), "circuit_breaker");
    let owned = String::from("payments");
    let named = CircuitBreaker::builder().name(owned).build().unwrap();
    assert_eq!(named.name(), "payments");
    assert!(format!("{named:?}").contains(r#"name: "payments""#));
}

/// The `resilient_circuit_state` gauge, read through a recorder local to
/// each test so that tests running at once don't see each other's values.
#[cfg(feature = "metrics")]
mod gauge {
    use std::sync::{Arc, Mutex};

    use metrics::{
        Counter, Gauge, GaugeFn, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit,
    };
    use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

    use super::*;

    /// A breaker named `name` that one failure opens for 10 s, with a probe
    /// timeout of 5 s.
    fn named(name: &'static str) -> CircuitBreaker {
        CircuitBreaker::builder()
            .name(name)
            .failure_threshold(1)
            .break_duration(secs(10))
            .probe_timeout(secs(5))
            .build()
            .unwrap()
    }

    /// The state gauge of the breaker named `name`, if it was ever set.
    fn state_gauge(snapshotter: &Snapshotter, name: &str) -> Option<f64> {
        let snapshot = snapshotter.snapshot().into_vec();
        snapshot.into_iter().find_map(|(key, _, _, value)| {
            let key = key.key();
            let ours = key.name() == crate::metrics::CIRCUIT_STATE
                && key
                    .labels()
                    .any(|label| label.key() == "breaker" && label.value() == name);
            match value {
                DebugValue::Gauge(value) if ours => Some(value.into_inner()),
                _ => None,
            }
        })
    }

    #[test]
    fn state_gauge_follows_trip_half_open_and_close() {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        metrics::with_local_recorder(&recorder, || {
            let b = named("payments");
            // Closed from the moment it is built.
            assert_eq!(state_gauge(&snapshotter, "payments"), Some(0.0));
            let t0 = Instant::now();
            succeed(&b, t0);
            assert_eq!(state_gauge(&snapshotter, "payments"), Some(0.0));
            open_at(&b, t0);
            assert_eq!(state_gauge(&snapshotter, "payments"), Some(2.0));
            let t10 = t0 + secs(10);
            let probe = b.try_acquire(t10).unwrap();
            assert_eq!(state_gauge(&snapshotter, "payments"), Some(1.0));
            probe.record_success(t10);
            assert_eq!(state_gauge(&snapshotter, "payments"), Some(0.0));
        });
    }

    /// The break ends with no call to notice it: a refresh at its end shows
    /// the breaker half-open, and one before it still open.
    #[test]
    fn refresh_shows_half_open_when_the_break_ends_without_a_call() {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        metrics::with_local_recorder(&recorder, || {
            let b = named("search");
            let t0 = Instant::now();
            open_at(&b, t0);
            crate::metrics::refresh_at(t0 + secs(9));
            assert_eq!(state_gauge(&snapshotter, "search"), Some(2.0));
            crate::metrics::refresh_at(t0 + secs(10));
            assert_eq!(state_gauge(&snapshotter, "search"), Some(1.0));
            // The breaker itself agrees, and has not moved.
            assert_eq!(b.state(t0 + secs(10)), CircuitState::HalfOpen);
            assert!(b.try_acquire(t0 + secs(10)).unwrap().is_probe());
        });
    }

    /// Every value any gauge is set to, in order, with its `breaker` label.
    #[derive(Clone, Default)]
    struct Sets(Arc<Mutex<Vec<(String, f64)>>>);

    struct LabelledGauge {
        breaker: String,
        sets: Sets,
    }

    impl GaugeFn for LabelledGauge {
        fn increment(&self, _: f64) {
            unreachable!("the state gauge is only set");
        }

        fn decrement(&self, _: f64) {
            unreachable!("the state gauge is only set");
        }

        fn set(&self, value: f64) {
            let mut sets = self.sets.0.lock().unwrap();
            sets.push((self.breaker.clone(), value));
        }
    }

    impl Recorder for Sets {
        fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

        fn register_counter(&self, _: &Key, _: &Metadata<'_>) -> Counter {
            Counter::noop()
        }

        fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
            assert_eq!(key.name(), crate::metrics::CIRCUIT_STATE);
            let label = key.labels().find(|label| label.key() == "breaker");
            Gauge::from_arc(Arc::new(LabelledGauge {
                breaker: label
                    .map(|label| label.value().to_owned())
                    .unwrap_or_default(),
                sets: self.clone(),
            }))
        }

        fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
            Histogram::noop()
        }
    }

    #[test]
    fn each_transition_sets_the_state_gauge_exactly_once() {
        let sets = Sets::default();
        metrics::with_local_recorder(&sets, || {
            let b = named("inventory");
            let t0 = Instant::now();
            let late = b.try_acquire(t0).unwrap();
            open_at(&b, t0);
            // A late outcome, a rejection and a second probe slot asked for
            // change no state.
            late.record_failure(t0);
            assert!(b.try_acquire(t0).is_err());
            let t10 = t0 + secs(10);
            b.try_acquire(t10).unwrap().record_failure(t10);
            let t20 = t0 + secs(20);
            std::mem::forget(b.try_acquire(t20).unwrap());
            assert!(b.try_acquire(t20).is_err());
            // A new half-open period, after the probe timeout, is no change
            // of state either.
            let t25 = t0 + secs(25);
            b.try_acquire(t25).unwrap().record_success(t25);
        });
        let sets = sets.0.lock().unwrap();
        let values: Vec<f64> = sets.iter().map(|(_, value)| *value).collect();
        // Built closed, then one set per transition.
        assert_eq!(values, [0.0, 2.0, 1.0, 2.0, 1.0, 0.0]);
        assert!(sets.iter().all(|(breaker, _)| breaker == "inventory"));
    }
}

/// A small xorshift generator: the hammer needs cheap, seedable noise,
/// not quality randomness.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    calls: u64,
    admitted: u64,
    rejected: u64,
    succeeded: u64,
    failed: u64,
    cancelled: u64,
    leaked: u64,
    probes: u64,
}

const HAMMER_CALLS: u64 = 20_000;

/// Two threads calling through `b` on one virtual clock (in microseconds,
/// advanced by both) until each made `HAMMER_CALLS` calls: a third of the
/// outcomes fail, a tenth are cancelled, and one in `leak_one_in` permits (if
/// given) is leaked. While `probes_run_alone`, asserts that no two probes
/// ever run at once. Returns each thread's tally and the clock's last reading.
fn hammer(
    b: &CircuitBreaker,
    leak_one_in: Option<u64>,
    probes_run_alone: bool,
) -> (Vec<Tally>, Instant) {
    let t0 = Instant::now();
    let clock = AtomicU64::new(0);
    let probes_running = AtomicU32::new(0);
    let tallies = std::thread::scope(|scope| {
        let workers: Vec<_> = [0x9E37_79B9_7F4A_7C15_u64, 0xD1B5_4A32_D192_ED03]
            .into_iter()
            .map(|seed| {
                let (clock, probes_running) = (&clock, &probes_running);
                scope.spawn(move || {
                    let mut rng = XorShift(seed);
                    let mut tally = Tally::default();
                    for _ in 0..HAMMER_CALLS {
                        tally.calls += 1;
                        let step = rng.next() % 8;
                        let now =
                            t0 + Duration::from_micros(clock.fetch_add(step, Ordering::Relaxed));
                        let Ok(permit) = b.try_acquire(now) else {
                            tally.rejected += 1;
                            continue;
                        };
                        tally.admitted += 1;
                        let probe = permit.is_probe();
                        if probe {
                            tally.probes += 1;
                            let running = probes_running.fetch_add(1, Ordering::SeqCst) + 1;
                            assert!(
                                !probes_run_alone || running <= 1,
                                "{running} probes ran at once"
                            );
                        }
                        let later = now + Duration::from_micros(rng.next() % 4);
                        for _ in 0..rng.next() % 64 {
                            std::hint::spin_loop();
                        }
                        // Count the probe as finished before reporting:
                        // once reported, its slot may go to the other thread.
                        if probe {
                            probes_running.fetch_sub(1, Ordering::SeqCst);
                        }
                        if leak_one_in.is_some_and(|n| rng.next().is_multiple_of(n)) {
                            std::mem::forget(permit);
                            tally.leaked += 1;
                            continue;
                        }
                        match rng.next() % 10 {
                            0..=2 => {
                                permit.record_failure(later);
                                tally.failed += 1;
                            }
                            3..=8 => {
                                permit.record_success(later);
                                tally.succeeded += 1;
                            }
                            _ => {
                                drop(permit);
                                tally.cancelled += 1;
                            }
                        }
                    }
                    tally
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap())
            .collect::<Vec<_>>()
    });
    for tally in &tallies {
        assert_eq!(tally.calls, HAMMER_CALLS);
        assert_eq!(tally.admitted + tally.rejected, tally.calls, "{tally:?}");
        assert_eq!(
            tally.succeeded + tally.failed + tally.cancelled + tally.leaked,
            tally.admitted,
            "{tally:?}"
        );
    }
    // A third of the outcomes fail, so the breaker must have opened, rejected
    // and probed many times.
    let total = |f: fn(&Tally) -> u64| tallies.iter().map(f).sum::<u64>();
    assert!(total(|t| t.rejected) > 0);
    assert!(total(|t| t.probes) > 0);
    let end = t0 + Duration::from_micros(clock.load(Ordering::Relaxed));
    (tallies, end)
}

/// Asserts that, well after `end`, one call gets through `b` and its success
/// closes it.
fn assert_recovers(b: &CircuitBreaker, end: Instant) {
    let later = end + Duration::from_secs(1);
    b.try_acquire(later).unwrap().record_success(later);
    assert_eq!(b.state(later), CircuitState::Closed);
}

#[test]
fn two_threads_hammering_lose_no_call_and_no_probe_slot() {
    let b = CircuitBreaker::builder()
        .failure_threshold(3)
        .break_duration(Duration::from_micros(20))
        .half_open_probes(1)
        // Every probe here reports, and the shared clock may run far ahead
        // of a slow probe's own reading: a short timeout would start a
        // second probe while the first still runs.
        .probe_timeout(Duration::from_secs(3600))
        .build()
        .unwrap();
    let (_, end) = hammer(&b, None, true);
    // Every permit is gone: no probe slot may have leaked.
    assert_eq!(b.probes_in_flight(), 0);
    assert_recovers(&b, end);
}

#[test]
fn two_threads_hammering_recover_from_leaked_probes() {
    let b = CircuitBreaker::builder()
        .failure_threshold(3)
        .break_duration(Duration::from_micros(20))
        .half_open_probes(2)
        .probe_timeout(Duration::from_micros(50))
        .build()
        .unwrap();
    let (tallies, end) = hammer(&b, Some(20), false);
    assert!(tallies.iter().map(|t| t.leaked).sum::<u64>() > 0);
    // Without a probe timeout, two leaked probes would hold both slots and
    // keep it half-open for good.
    assert_recovers(&b, end);
}

#[test]
fn a_permit_says_whether_it_is_a_probe_and_a_fleets() {
    let breaker = breaker(1, 10);
    let now = Instant::now();
    let permit = breaker.try_acquire(now).unwrap();
    assert_eq!(
        format!("{permit:?}"),
        "CircuitPermit { probe: false, fleet_probe: false, .. }"
    );
    permit.record_failure(now);
    let probe = breaker.try_acquire(now + secs(10)).unwrap();
    assert_eq!(
        format!("{probe:?}"),
        "CircuitPermit { probe: true, fleet_probe: false, .. }"
    );
}
