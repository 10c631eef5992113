//! Chaos through the engine: Polly's vectors for the latency, fault and
//! outcome strategies, ported onto `Operation`, and what the report, the
//! clock and the breaker see of an injection.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient_core::chaos::{Chaos, Injection};
use resilient_core::{
    Backoff, CircuitBreaker, CircuitOpen, FailureKind, FakeClock, Operation, StopReason, TimedOut,
    TokioClock,
};

const fn half() -> f64 {
    0.5
}

const LATENCY: Duration = Duration::from_millis(500);

/// Polly's `Given_enabled_and_randomly_within_threshold_should_inject_latency`,
/// test/Polly.Core.Tests/Simmy/Latency/ChaosLatencyStrategyTests.cs
/// (App-vNext/Polly): rate 0.6, a draw of 0.5, 500 ms: the body runs after
/// 500 ms, and one injection is told.
#[tokio::test(start_paused = true)]
async fn polly_latency_within_threshold_waits_then_runs_the_body() {
    static CHAOS: Chaos = Chaos::new()
        .enabled(true)
        .injection_rate(0.6)
        .randomizer(half);
    let ran = AtomicU32::new(0);
    let before = tokio::time::Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .chaos(&CHAOS)
        .chaos_latency(LATENCY)
        .run_async(async |_| {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok::<_, &str>(200)
        })
        .await;
    assert_eq!(before.elapsed(), LATENCY);
    assert_eq!(outcome.result(), &Ok(200));
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    let injected: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|a| a.injected())
        .collect();
    assert_eq!(injected, [Some(Injection::Latency)]);
}

/// Polly's `Given_not_enabled_should_not_inject_latency` (same file).
#[tokio::test(start_paused = true)]
async fn polly_latency_not_enabled_does_nothing() {
    static CHAOS: Chaos = Chaos::new()
        .enabled(false)
        .injection_rate(0.6)
        .randomizer(half);
    let before = tokio::time::Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .chaos(&CHAOS)
        .chaos_latency(LATENCY)
        .run_async(async |_| Ok::<_, &str>(200))
        .await;
    assert_eq!(before.elapsed(), Duration::ZERO);
    assert_eq!(outcome.report().attempts()[0].injected(), None);
}

/// Polly's `Given_latency_is_negative_should_not_inject_latency` with 0
/// (same file; a `Duration` can't be negative): nothing is waited, nothing
/// is recorded.
#[tokio::test(start_paused = true)]
async fn polly_zero_latency_does_nothing() {
    static CHAOS: Chaos = Chaos::new()
        .enabled(true)
        .injection_rate(0.6)
        .randomizer(half);
    let before = tokio::time::Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .chaos(&CHAOS)
        .chaos_latency(Duration::ZERO)
        .run_async(async |_| Ok::<_, &str>(200))
        .await;
    assert_eq!(before.elapsed(), Duration::ZERO);
    assert_eq!(outcome.report().attempts()[0].injected(), None);
}

/// Polly's `Given_enabled_and_randomly_not_within_threshold_should_not_inject_latency`:
/// rate 0.4 against a draw of 0.5.
#[test]
fn latency_above_the_rate_is_not_injected() {
    static CHAOS: Chaos = Chaos::new()
        .enabled(true)
        .injection_rate(0.4)
        .randomizer(half);
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .clock(&clock)
        .chaos(&CHAOS)
        .chaos_latency(LATENCY)
        .run(|_| Ok::<_, &str>(200));
    assert!(clock.slept().is_empty());
    assert_eq!(outcome.report().attempts()[0].injected(), None);
}

/// Polly's `Given_enabled_and_randomly_within_threshold_should_inject_fault`,
/// test/Polly.Core.Tests/Simmy/Fault/ChaosFaultStrategyTests.cs: the
/// injected error is the one returned, and the body did not run.
#[test]
fn polly_fault_within_threshold_replaces_the_body() {
    static CHAOS: Chaos = Chaos::new()
        .enabled(true)
        .injection_rate(0.6)
        .randomizer(half);
    let ran = AtomicU32::new(0);
    let outcome = Operation::new()
        .clock(FakeClock::new())
        .chaos(&CHAOS)
        .chaos_fault(|| "Dummy exception")
        .run(|_| {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok::<_, &str>(200)
        });
    assert_eq!(outcome.result(), &Err("Dummy exception"));
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    let record = &outcome.report().attempts()[0];
    assert_eq!(record.injected(), Some(Injection::Fault));
    assert_eq!(record.error().map(|e| e.message()), Some("Dummy exception"));
}

/// Polly's `Given_not_enabled_should_not_inject_fault_and_return_outcome`
/// and `Given_enabled_and_randomly_not_within_threshold_should_not_inject_fault`
/// (same file): the body runs and its value is returned.
#[test]
fn polly_fault_not_enabled_or_above_the_rate_runs_the_body() {
    static OFF: Chaos = Chaos::new()
        .enabled(false)
        .injection_rate(0.6)
        .randomizer(half);
    static LOW: Chaos = Chaos::new()
        .enabled(true)
        .injection_rate(0.3)
        .randomizer(half);
    for chaos in [&OFF, &LOW] {
        let ran = AtomicU32::new(0);
        let outcome = Operation::new()
            .clock(FakeClock::new())
            .chaos(chaos)
            .chaos_fault(|| "Dummy exception")
            .run(|_| {
                ran.fetch_add(1, Ordering::SeqCst);
                Ok::<_, &str>(200)
            });
        assert_eq!(outcome.result(), &Ok(200));
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        assert_eq!(outcome.report().attempts()[0].injected(), None);
    }
}

/// Polly's `Given_enabled_and_randomly_within_threshold_should_inject_result`,
/// test/Polly.Core.Tests/Simmy/Outcomes/ChaosOutcomeStrategyTests.cs: the
/// injected value is returned, and the body did not run.
#[tokio::test(start_paused = true)]
async fn polly_outcome_within_threshold_replaces_the_body() {
    static CHAOS: Chaos = Chaos::new()
        .enabled(true)
        .injection_rate(0.6)
        .randomizer(half);
    let ran = AtomicU32::new(0);
    let outcome = Operation::new()
        .clock(TokioClock)
        .chaos(&CHAOS)
        .chaos_outcome(|| 429)
        .run_async(async |_| {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok::<_, &str>(200)
        })
        .await;
    assert_eq!(outcome.result(), &Ok(429));
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    assert_eq!(
        outcome.report().attempts()[0].injected(),
        Some(Injection::Outcome)
    );
}

/// Polly's `Given_not_enabled_should_not_inject_result` (same file).
#[test]
fn polly_outcome_not_enabled_runs_the_body() {
    static CHAOS: Chaos = Chaos::new()
        .enabled(false)
        .injection_rate(0.6)
        .randomizer(half);
    let outcome = Operation::new()
        .clock(FakeClock::new())
        .chaos(&CHAOS)
        .chaos_outcome(|| 429)
        .run(|_| Ok::<_, &str>(200));
    assert_eq!(outcome.result(), &Ok(200));
}

#[derive(Debug, PartialEq)]
enum Slow {
    TimedOut,
    Failed,
}

impl std::fmt::Display for Slow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<TimedOut> for Slow {
    fn from(_: TimedOut) -> Self {
        Slow::TimedOut
    }
}

impl From<CircuitOpen> for Slow {
    fn from(_: CircuitOpen) -> Self {
        Slow::Failed
    }
}

/// Injected latency runs inside the attempt's deadline: a timeout cuts
/// it, and the attempt fails timed out at the deadline, body unrun.
#[tokio::test(start_paused = true)]
async fn a_timeout_cuts_injected_latency() {
    static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    let ran = AtomicU32::new(0);
    let before = tokio::time::Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .timeout(Duration::from_secs(1))
        .chaos(&CHAOS)
        .chaos_latency(Duration::from_secs(2))
        .run_async(async |_| {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok::<_, Slow>(())
        })
        .await;
    assert_eq!(before.elapsed(), Duration::from_secs(1));
    assert_eq!(outcome.result(), &Err(Slow::TimedOut));
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    let record = &outcome.report().attempts()[0];
    assert_eq!(record.error().map(|e| e.kind()), Some(FailureKind::Timeout));
    assert_eq!(record.deadline(), Some(Duration::from_secs(1)));
}

/// Latency then a fault, drawn on one switch: the fault comes after the
/// wait, within the deadline, and a timeout shorter than the wait cuts it.
#[tokio::test(start_paused = true)]
async fn latency_and_fault_on_one_switch_wait_then_fail() {
    static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    let before = tokio::time::Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .timeout(Duration::from_secs(10))
        .chaos(&CHAOS)
        .chaos_fault(|| Slow::Failed)
        .chaos_latency(LATENCY)
        .run_async(async |_| Ok::<_, Slow>(()))
        .await;
    assert_eq!(before.elapsed(), LATENCY);
    assert_eq!(outcome.result(), &Err(Slow::Failed));
    assert_eq!(
        outcome.report().attempts()[0].injected(),
        Some(Injection::Fault)
    );

    let before = tokio::time::Instant::now();
    let outcome = Operation::new()
        .clock(TokioClock)
        .timeout(Duration::from_millis(200))
        .chaos(&CHAOS)
        .chaos_fault(|| Slow::Failed)
        .chaos_latency(LATENCY)
        .run_async(async |_| Ok::<_, Slow>(()))
        .await;
    assert_eq!(before.elapsed(), Duration::from_millis(200));
    assert_eq!(outcome.result(), &Err(Slow::TimedOut));
}

/// Every primary attempt draws; the fallback never does.
#[test]
fn every_retry_is_injected_and_the_fallback_never() {
    static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .max_attempts(4)
        .backoff(Backoff::constant(Duration::from_millis(100)))
        .clock(&clock)
        .chaos(&CHAOS)
        .chaos_fault(|| "injected")
        .run_with_fallback(|_| Ok::<_, &str>("primary"), Some(|_| Ok("fallback")));
    assert_eq!(outcome.result(), &Ok("fallback"));
    let injected: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|a| a.injected())
        .collect();
    assert_eq!(
        injected,
        [
            Some(Injection::Fault),
            Some(Injection::Fault),
            Some(Injection::Fault),
            Some(Injection::Fault),
            None
        ]
    );
    assert_eq!(clock.slept(), [Duration::from_millis(100); 3]);
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
}

/// Injected faults count against a breaker like real ones.
#[test]
fn injected_faults_trip_a_breaker() {
    static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    let breaker = CircuitBreaker::builder()
        .failure_threshold(2)
        .break_duration(Duration::from_secs(30))
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let ran = AtomicU32::new(0);
    let outcome = Operation::new()
        .max_attempts(3)
        .backoff(Backoff::none())
        .clock(&clock)
        .circuit_breaker(&breaker)
        .chaos(&CHAOS)
        .chaos_fault(|| Slow::Failed)
        .run(|_| {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok::<_, Slow>(())
        });
    let kinds: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|a| (a.error().map(|e| e.kind()), a.injected()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Some(FailureKind::Operation), Some(Injection::Fault)),
            (Some(FailureKind::Operation), Some(Injection::Fault)),
            (Some(FailureKind::CircuitOpen), None),
        ]
    );
    assert_eq!(outcome.report().stop_reason(), StopReason::CircuitOpen);
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

/// A switch per kind: each draws on its own, in the order fault, outcome,
/// latency; a fault and an outcome drawn together make the fault.
#[test]
fn a_switch_per_kind_draws_on_its_own() {
    static ON: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    static OFF: Chaos = Chaos::new().enabled(false).injection_rate(1.0);
    let run = |switches: [&'static Chaos; 3]| {
        let clock = FakeClock::new();
        let outcome = Operation::new()
            .clock(&clock)
            .chaos(switches)
            .chaos_fault(|| "fault")
            .chaos_outcome(|| "outcome")
            .chaos_latency(LATENCY)
            .run(|_| Ok::<_, &str>("body"));
        (outcome.into_result(), clock.slept())
    };
    assert_eq!(run([&ON, &OFF, &OFF]), (Err("fault"), vec![]));
    assert_eq!(run([&OFF, &ON, &OFF]), (Ok("outcome"), vec![]));
    assert_eq!(run([&OFF, &OFF, &ON]), (Ok("body"), vec![LATENCY]));
    assert_eq!(run([&ON, &ON, &ON]), (Err("fault"), vec![LATENCY]));
    assert_eq!(run([&OFF, &OFF, &OFF]), (Ok("body"), vec![]));
}

/// A disabled switch keeps the first attempt on the fast path, and asks
/// the randomizer nothing.
#[test]
fn a_disabled_switch_never_draws() {
    static DRAWS: AtomicU32 = AtomicU32::new(0);
    fn counted() -> f64 {
        DRAWS.fetch_add(1, Ordering::SeqCst);
        0.0
    }
    static CHAOS: Chaos = Chaos::new().injection_rate(1.0).randomizer(counted);
    let clock = FakeClock::new();
    for _ in 0..100 {
        let outcome = Operation::new()
            .max_attempts(3)
            .backoff(Backoff::none())
            .clock(&clock)
            .chaos(&CHAOS)
            .chaos_fault(|| "fault")
            .run(|attempt| {
                if attempt.number() < 3 {
                    Err("real")
                } else {
                    Ok(())
                }
            });
        assert_eq!(outcome.report().attempt_count(), 3);
    }
    assert_eq!(DRAWS.load(Ordering::SeqCst), 0);
}

/// Switching a `static` off from another thread stops injection from the
/// next attempt on.
#[test]
fn switching_off_from_another_thread_stops_the_next_attempt() {
    static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .max_attempts(3)
        .backoff(Backoff::none())
        .clock(&clock)
        .chaos(&CHAOS)
        .chaos_fault(|| "injected")
        .run(|_| Ok::<_, &str>("real"));
    assert_eq!(outcome.report().attempt_count(), 3);
    std::thread::scope(|scope| {
        scope.spawn(|| CHAOS.set_enabled(false)).join().unwrap();
    });
    let outcome = Operation::new()
        .clock(&clock)
        .chaos(&CHAOS)
        .chaos_fault(|| "injected")
        .run(|_| Ok::<_, &str>("real"));
    assert_eq!(outcome.into_result(), Ok("real"));
}
