//! With the `tracing` feature, the engine's events carry stable names and fields.
#![cfg(feature = "tracing")]

use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::Once;
use std::time::Duration;

use resilient_core::{Backoff, FakeClock, Jitter, Operation};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

/// The process's subscriber for this binary: every callsite is always of
/// interest to it, so that `tracing`'s process-wide cache of interest never
/// hides an event, whichever test reached a callsite first; it keeps each
/// event as `LEVEL name field=value ...` for the thread that is recording.
struct Recorder;

thread_local! {
    static RECORDED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

struct Line<'a>(&'a mut String);

impl Visit for Line<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl Subscriber for Recorder {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::always()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        RECORDED.with_borrow_mut(|recorded| {
            if let Some(lines) = recorded {
                let mut line = format!("{} {}", event.metadata().level(), event.metadata().name());
                event.record(&mut Line(&mut line));
                lines.push(line);
            }
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// The events `run` emits on this thread, in order.
fn recorded(run: impl FnOnce()) -> Vec<String> {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        tracing::subscriber::set_global_default(Recorder).expect("the only subscriber");
    });
    RECORDED.with_borrow_mut(|recorded| *recorded = Some(Vec::new()));
    run();
    RECORDED.with_borrow_mut(Option::take).unwrap_or_default()
}

#[test]
fn retries_rate_limits_and_fallbacks_are_logged_by_name() {
    let clock = FakeClock::new();
    let lines = recorded(|| {
        let _ = Operation::new()
            .name("checkout")
            .max_attempts(2)
            .backoff(Backoff::constant(Duration::from_millis(250)).jitter(Jitter::None))
            .retry_after(|e: &&str| (*e == "429").then(|| Duration::from_secs(120)))
            .clock(&clock)
            .run_with_fallback(
                |a| Err::<(), _>(if a.number() == 1 { "503" } else { "429" }),
                Some(|_| Ok(())),
            );
    });
    assert_eq!(
        lines,
        [
            "WARN attempt.failed operation=\"checkout\" attempt=1 kind=Operation retryable=true error=\"503\"",
            "INFO retry.scheduled operation=\"checkout\" attempt=1 delay_ms=250 source=Backoff",
            "WARN attempt.failed operation=\"checkout\" attempt=2 kind=Operation retryable=true error=\"429\"",
            "WARN rate_limit.wait_exceeded operation=\"checkout\" attempt=2 hint_ms=120000 waited_ms=0 max_wait_ms=60000",
            "INFO fallback.used operation=\"checkout\" attempt=3 ok=true",
        ]
    );
}

#[derive(Debug)]
struct Rejected;

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("rejected")
    }
}

impl From<resilient_core::CircuitOpen> for Rejected {
    fn from(_: resilient_core::CircuitOpen) -> Self {
        Rejected
    }
}

#[test]
fn a_rejection_by_an_open_breaker_is_logged_by_name() {
    let breaker = resilient_core::CircuitBreaker::builder()
        .failure_threshold(1)
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let _ = Operation::new()
        .circuit_breaker(&breaker)
        .clock(&clock)
        .run(|_| Err::<(), _>(Rejected));
    let lines = recorded(|| {
        let _ = Operation::new()
            .circuit_breaker(&breaker)
            .clock(&clock)
            .run(|_| Ok::<_, Rejected>(()));
    });
    assert_eq!(
        lines,
        [
            "WARN circuit.rejected operation=\"operation\" attempt=1",
            "WARN attempt.failed operation=\"operation\" attempt=1 kind=CircuitOpen retryable=true error=\"rejected\"",
        ]
    );
}

#[test]
fn each_injection_is_logged_by_name_and_kind() {
    static ALWAYS: resilient_core::chaos::Chaos = resilient_core::chaos::Chaos::new()
        .enabled(true)
        .injection_rate(1.0);
    let clock = FakeClock::new();
    let lines = recorded(|| {
        let _ = Operation::new()
            .name("checkout")
            .clock(&clock)
            .chaos(&ALWAYS)
            .chaos_fault(|| "injected")
            .chaos_latency(Duration::from_millis(300))
            .run(|_| Ok::<_, &str>(()));
    });
    assert_eq!(
        lines,
        [
            "INFO chaos.injected operation=\"checkout\" attempt=1 kind=\"latency\"",
            "INFO chaos.injected operation=\"checkout\" attempt=1 kind=\"fault\"",
            "WARN attempt.failed operation=\"checkout\" attempt=1 kind=Operation retryable=true error=\"injected\"",
        ]
    );
}
