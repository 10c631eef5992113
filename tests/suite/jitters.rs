//! Decorrelated and additive jitter, each seeded through `jitter_seed` and
//! asserted exactly, and attempts without a cap that a budget ends.

use std::time::Duration;

use resilient::{Backoff, FakeClock, Jitter, Operation, RetryPolicy, Retryable, resilient};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn schedule(jitter: Jitter, seed: u64) -> Vec<Duration> {
    let clock = FakeClock::new();
    let _ = Operation::new()
        .max_attempts(8)
        .backoff(Backoff::exponential(ms(100), ms(2_000)).jitter(jitter))
        .jitter_seed(seed)
        .clock(&clock)
        .run(|_| Err::<(), _>("busy"));
    clock.slept()
}

/// `Jitter::Decorrelated` under seed 7: `min(max, uniform(base, previous × 3))`.
const DECORRELATED_SEED_7: [u64; 7] = [
    111_072_087,
    140_140_216,
    329_926_208,
    480_122_165,
    1_391_656_936,
    984_837_009,
    1_475_423_481,
];

#[test]
fn decorrelated_jitter_grows_from_the_previous_delay() {
    let slept = schedule(Jitter::Decorrelated, 7);
    assert_eq!(slept, DECORRELATED_SEED_7.map(Duration::from_nanos));
    // Each delay in [base, min(max, previous × 3)], the first from base.
    let mut previous = ms(100);
    for delay in &slept {
        assert!(
            *delay >= ms(100) && *delay <= (previous * 3).min(ms(2_000)),
            "{delay:?}"
        );
        previous = *delay;
    }
    // Another seed, another walk.
    assert_eq!(
        schedule(Jitter::Decorrelated, 8),
        [
            178_384_533,
            285_202_587,
            361_586_705,
            783_855_887,
            874_500_914,
            1_809_198_112,
            663_992_474
        ]
        .map(Duration::from_nanos)
    );
}

#[test]
fn additive_jitter_draws_from_the_delay_to_twice_it() {
    let slept = schedule(Jitter::Additive, 7);
    assert_eq!(
        slept,
        [
            105_536_044,
            234_423_171,
            687_030_451,
            1_141_767_855,
            // Past the max of 2 s: cut there.
            2_000_000_000,
            2_000_000_000,
            2_000_000_000
        ]
        .map(Duration::from_nanos)
    );
    let nominal = [100, 200, 400, 800, 1_600, 2_000, 2_000].map(ms);
    for (delay, d) in slept.iter().zip(nominal) {
        assert!(
            *delay >= d && *delay <= (d * 2).min(ms(2_000)),
            "{delay:?} for {d:?}"
        );
    }
}

/// backon's `with_jitter()` (`backon/src/backoff/exponential.rs`: the
/// delay, capped at `max_delay`, plus a uniform draw of up to as much
/// again) at a 180 s cap: for each sample, the delay backon computes,
/// `d + d × sample`, exactly; so a loop at the cap keeps spreading its
/// callers over 180–360 s.
#[test]
fn uncapped_additive_jitter_is_backons_and_may_pass_the_cap() {
    let backoff = Backoff::exponential(Duration::from_secs(45), Duration::from_secs(180))
        .jitter(Jitter::AdditiveUncapped);
    let samples = [0.0, 0.25, 0.5, 0.75, 0.999];
    let nominal = [45, 90, 180, 180, 180].map(Duration::from_secs);
    for (retry, (sample, d)) in (1..).zip(samples.into_iter().zip(nominal)) {
        let backons = d + d.mul_f64(sample);
        assert_eq!(backoff.delay(retry, sample), backons, "retry {retry}");
    }
    assert_eq!(backoff.delay(100, 0.5), Duration::from_secs(270));
}

/// Through the engine, seeded: every delay at the cap lies in
/// `[cap, 2 × cap)`, most of them past it, where `Additive` would cut
/// each to the cap.
#[test]
fn an_operation_retrying_at_the_cap_keeps_its_jitter() {
    let run = |jitter| {
        let clock = FakeClock::new();
        let _ = Operation::new()
            .max_attempts(12)
            .backoff(Backoff::exponential(ms(100), ms(400)).jitter(jitter))
            .jitter_seed(7)
            .clock(&clock)
            .run(|_| Err::<(), _>("busy"));
        clock.slept()
    };
    let uncapped = run(Jitter::AdditiveUncapped);
    let at_the_cap = &uncapped[2..];
    assert!(
        at_the_cap.iter().all(|d| *d >= ms(400) && *d < ms(800)),
        "{uncapped:?}"
    );
    assert!(
        at_the_cap.iter().filter(|d| **d > ms(400)).count() >= 8,
        "{uncapped:?}"
    );
    assert!(run(Jitter::Additive)[2..].iter().all(|d| *d == ms(400)));
}

#[resilient(
    retries = 3,
    backoff = exponential(base = "1s", max = "1s", jitter = additive_uncapped),
    jitter_seed = 7,
    clock = clock
)]
fn uncapped(clock: &FakeClock) -> Result<(), &'static str> {
    let _ = clock;
    Err("busy")
}

#[test]
fn the_attribute_names_it_additive_uncapped() {
    let clock = FakeClock::new();
    let _ = uncapped(&clock);
    assert_eq!(clock.slept().len(), 3);
    assert!(
        clock
            .slept()
            .iter()
            .all(|d| *d >= ms(1_000) && *d < ms(2_000))
    );
    assert!(clock.slept().iter().any(|d| *d > ms(1_000)));
}

#[test]
fn an_operation_s_max_delay_caps_additive_jitter_too() {
    let clock = FakeClock::new();
    let _ = Operation::new()
        .max_attempts(8)
        .backoff(Backoff::exponential(ms(100), ms(4_000)).jitter(Jitter::Additive))
        .max_delay(ms(1_000))
        .jitter_seed(7)
        .clock(&clock)
        .run(|_| Err::<(), _>("busy"));
    assert!(clock.slept().iter().all(|d| *d <= ms(1_000)));
    assert_eq!(clock.slept()[4..], [ms(1_000); 3]);
}

#[resilient(
    retries = 7,
    backoff = exponential(base = "100ms", max = "2s", jitter = decorrelated),
    jitter_seed = 7,
    clock = clock
)]
fn decorrelated(clock: &FakeClock) -> Result<(), &'static str> {
    let _ = clock;
    Err("busy")
}

#[test]
fn the_attribute_names_decorrelated_jitter() {
    let clock = FakeClock::new();
    let _ = decorrelated(&clock);
    assert_eq!(clock.slept(), DECORRELATED_SEED_7.map(Duration::from_nanos));
}

#[test]
fn the_closure_api_takes_the_seed_from_its_policy() {
    let policy = RetryPolicy::builder()
        .max_attempts(8)
        .backoff(Backoff::exponential(ms(100), ms(2_000)).jitter(Jitter::Decorrelated))
        .jitter_seed(7)
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let _ = (|| Err::<(), _>("busy"))
        .retry(&policy)
        .clock(&clock)
        .call();
    assert_eq!(clock.slept(), DECORRELATED_SEED_7.map(Duration::from_nanos));
}

#[resilient(retries = unbounded, backoff = constant("1s"), budget = "5500ms", clock = clock)]
fn until_the_budget(clock: &FakeClock) -> Result<(), &'static str> {
    let _ = clock;
    Err("busy")
}

#[resilient(retries = unbounded, backoff = constant("1s"), max_elapsed = "3s", clock = clock)]
fn until_the_soft_cap(clock: &FakeClock) -> Result<(), &'static str> {
    let _ = clock;
    Err("busy")
}

#[test]
fn unbounded_retries_end_at_the_cap_on_time() {
    let clock = FakeClock::new();
    let outcome = until_the_budget(&clock);
    assert_eq!(clock.slept(), [Duration::from_secs(1); 5]);
    assert_eq!(outcome.report().attempt_count(), 6);
    assert_eq!(
        outcome.report().stop_reason(),
        resilient::StopReason::BudgetExhausted
    );
    let clock = FakeClock::new();
    let outcome = until_the_soft_cap(&clock);
    assert_eq!(clock.slept(), [Duration::from_secs(1); 3]);
    assert_eq!(outcome.report().attempt_count(), 4);
}

#[test]
fn unbounded_policies_need_a_cap_on_time() {
    use resilient::ConfigError;
    assert_eq!(
        RetryPolicy::builder().unbounded().build(),
        Err(ConfigError::UnboundedWithoutCap)
    );
    let policy = RetryPolicy::builder()
        .unbounded()
        .max_elapsed(Duration::from_secs(30))
        .build()
        .unwrap();
    assert_eq!(policy.max_attempts(), u32::MAX);
}
