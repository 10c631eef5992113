//! Tests of an operator's manual control: `isolate` and `reset`.

use super::*;

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn breaker(threshold: u32) -> CircuitBreaker {
    CircuitBreaker::builder()
        .failure_threshold(threshold)
        .break_duration(secs(10))
        .build()
        .unwrap()
}

#[test]
fn isolated_breaker_rejects_whatever_the_time_until_reset() {
    let b = breaker(3);
    let t0 = Instant::now();
    b.isolate();
    assert_eq!(b.state(t0), CircuitState::Isolated);
    for later in [t0, t0 + secs(10), t0 + secs(3600), t0 + secs(1 << 30)] {
        assert_eq!(b.try_acquire(later).unwrap_err(), CircuitOpen);
        assert_eq!(b.state(later), CircuitState::Isolated);
    }
    b.reset();
    assert_eq!(b.state(t0), CircuitState::Closed);
    assert!(!b.try_acquire(t0).unwrap().is_probe());
}

#[test]
fn isolating_twice_changes_nothing() {
    let b = breaker(1);
    b.isolate();
    let word = b.word.load();
    b.isolate();
    assert_eq!(b.word.load(), word);
}

#[test]
fn outcome_of_a_call_admitted_before_isolation_is_ignored() {
    let b = breaker(1);
    let t0 = Instant::now();
    let permit = b.try_acquire(t0).unwrap();
    b.isolate();
    permit.record_failure(t0);
    assert_eq!(b.state(t0), CircuitState::Isolated);
    let permit = b.try_acquire(t0).unwrap_err();
    assert_eq!(permit, CircuitOpen);
}

#[test]
fn probe_admitted_before_isolation_cannot_close_it() {
    let b = breaker(1);
    let t0 = Instant::now();
    b.try_acquire(t0).unwrap().record_failure(t0);
    let probe = b.try_acquire(t0 + secs(10)).unwrap();
    assert!(probe.is_probe());
    b.isolate();
    probe.record_success(t0 + secs(10));
    assert_eq!(b.state(t0 + secs(10)), CircuitState::Isolated);
}

#[test]
fn reset_clears_the_consecutive_failures() {
    let b = breaker(3);
    let t0 = Instant::now();
    for _ in 0..2 {
        b.try_acquire(t0).unwrap().record_failure(t0);
    }
    b.reset();
    for _ in 0..2 {
        b.try_acquire(t0).unwrap().record_failure(t0);
    }
    assert_eq!(b.state(t0), CircuitState::Closed);
    b.try_acquire(t0).unwrap().record_failure(t0);
    assert_eq!(b.state(t0), CircuitState::Open);
}

#[test]
fn reset_clears_the_sampling_window() {
    let b = CircuitBreaker::builder()
        .failure_ratio(0.5)
        .minimum_throughput(4)
        .sampling_window(secs(60))
        .build()
        .unwrap();
    let t0 = Instant::now();
    for _ in 0..3 {
        b.try_acquire(t0).unwrap().record_failure(t0);
    }
    b.reset();
    // Three failures before the reset would make this the fourth of four.
    b.try_acquire(t0).unwrap().record_failure(t0);
    assert_eq!(b.state(t0), CircuitState::Closed);
}

#[test]
fn reset_closes_an_open_breaker_before_its_break_ends() {
    let b = breaker(1);
    let t0 = Instant::now();
    let stale = b.try_acquire(t0).unwrap();
    b.try_acquire(t0).unwrap().record_failure(t0);
    assert_eq!(b.state(t0 + secs(1)), CircuitState::Open);
    b.reset();
    assert_eq!(b.state(t0 + secs(1)), CircuitState::Closed);
    // A failure from before the reset doesn't open it again.
    stale.record_failure(t0 + secs(1));
    assert_eq!(b.state(t0 + secs(1)), CircuitState::Closed);
}

#[test]
fn reset_of_a_half_open_breaker_frees_its_probe_slots() {
    let b = breaker(1);
    let t0 = Instant::now();
    b.try_acquire(t0).unwrap().record_failure(t0);
    let probe = b.try_acquire(t0 + secs(10)).unwrap();
    b.reset();
    assert_eq!(b.probes_in_flight(), 0);
    drop(probe);
    assert_eq!(b.probes_in_flight(), 0);
    assert_eq!(b.state(t0 + secs(10)), CircuitState::Closed);
}

#[test]
fn state_words_read_as_the_dashboard_shows_them() {
    let words: Vec<String> = [
        CircuitState::Closed,
        CircuitState::Open,
        CircuitState::HalfOpen,
        CircuitState::Isolated,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(words, ["closed", "open", "half-open", "isolated"]);
}

/// Doubles from 1 s: 1, 2, 4, 8, ...
fn doubling(n: u32) -> Duration {
    secs(1).saturating_mul(2u32.saturating_pow(n.saturating_sub(1)))
}

fn growing(max_secs: u64) -> CircuitBreaker {
    CircuitBreaker::builder()
        .failure_threshold(1)
        .break_duration_with(doubling)
        .max_break_duration(secs(max_secs))
        .build()
        .unwrap()
}

/// Opens `b` at `at`, by a failure (closed) or a failed probe (half-open),
/// and returns how long the break lasted, to the nanosecond: the time of
/// the first instant at which a probe is admitted.
fn break_after_failure(b: &CircuitBreaker, at: Instant) -> Duration {
    b.try_acquire(at).unwrap().record_failure(at);
    let mut low = Duration::ZERO;
    let mut high = secs(1 << 20);
    assert_eq!(b.state(at + high), CircuitState::HalfOpen);
    while high - low > Duration::from_nanos(1) {
        let mid = low + (high - low) / 2;
        if b.state(at + mid) == CircuitState::HalfOpen {
            high = mid;
        } else {
            low = mid;
        }
    }
    high
}

#[test]
fn break_grows_with_consecutive_openings_up_to_the_cap() {
    let b = growing(10);
    let mut now = Instant::now();
    let mut breaks = Vec::new();
    for _ in 0..6 {
        let lasted = break_after_failure(&b, now);
        breaks.push(lasted);
        now += lasted;
    }
    assert_eq!(breaks, [1, 2, 4, 8, 10, 10].map(secs));
}

#[test]
fn closing_starts_the_growth_again() {
    let b = growing(60);
    let mut now = Instant::now();
    for _ in 0..3 {
        now += break_after_failure(&b, now);
    }
    // A successful probe closes it; the next opening is the first again.
    b.try_acquire(now).unwrap().record_success(now);
    assert_eq!(break_after_failure(&b, now), secs(1));
    b.reset();
    assert_eq!(break_after_failure(&b, now), secs(1));
}

#[test]
fn break_function_returning_extremes_never_panics() {
    let b = CircuitBreaker::builder()
        .failure_threshold(1)
        .break_duration_with(|n| {
            if n == 1 {
                Duration::ZERO
            } else {
                Duration::MAX
            }
        })
        .build()
        .unwrap();
    let t0 = Instant::now();
    b.try_acquire(t0).unwrap().record_failure(t0);
    // A zero break is one nanosecond.
    assert_eq!(b.state(t0), CircuitState::Open);
    let t1 = t0 + Duration::from_nanos(1);
    assert_eq!(b.state(t1), CircuitState::HalfOpen);
    // The failed probe opens it for the longest break there is.
    b.try_acquire(t1).unwrap().record_failure(t1);
    assert_eq!(b.state(t1 + secs(1 << 30)), CircuitState::Open);
}

#[test]
fn zero_cap_is_refused() {
    let err = CircuitBreaker::builder()
        .max_break_duration(Duration::ZERO)
        .build()
        .unwrap_err();
    assert!(matches!(
        err,
        crate::ConfigError::ZeroDuration("max_break_duration")
    ));
}
