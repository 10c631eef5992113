//! With the `tracing` feature, the engine's events carry stable names and
//! fields, and each attempt of the tower layer is a span with the
//! attributes OpenTelemetry's semantic conventions name.
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
    /// The spans made on this thread while recording: each as
    /// `name field=value ...`, with the values recorded later appended.
    static SPANS: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
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
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        SPANS.with_borrow_mut(|spans| match spans {
            Some(spans) => {
                let mut line = span.metadata().name().to_owned();
                span.record(&mut Line(&mut line));
                spans.push(line);
                // Ids from 1: the span's place in the list.
                Id::from_u64(spans.len() as u64)
            }
            None => Id::from_u64(u64::MAX),
        })
    }
    fn record(&self, id: &Id, values: &Record<'_>) {
        SPANS.with_borrow_mut(|spans| {
            let index = usize::try_from(id.into_u64() - 1).unwrap_or(usize::MAX);
            if let Some(line) = spans.as_mut().and_then(|spans| spans.get_mut(index)) {
                values.record(&mut Line(line));
            }
        });
    }
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

fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        tracing::subscriber::set_global_default(Recorder).expect("the only subscriber");
    });
}

/// The spans `run` makes on this thread, in order.
#[cfg_attr(not(all(feature = "tower", feature = "http")), allow(dead_code))]
fn spans_of(run: impl FnOnce()) -> Vec<String> {
    install();
    SPANS.with_borrow_mut(|spans| *spans = Some(Vec::new()));
    run();
    SPANS.with_borrow_mut(Option::take).unwrap_or_default()
}

/// The events `run` emits on this thread, in order.
fn recorded(run: impl FnOnce()) -> Vec<String> {
    install();
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
            "DEBUG attempt.failed operation=\"checkout\" attempt=1 kind=Operation retryable=true error=\"503\"",
            "DEBUG retry.scheduled operation=\"checkout\" attempt=1 delay_ms=250 source=Backoff",
            "DEBUG attempt.failed operation=\"checkout\" attempt=2 kind=Operation retryable=true error=\"429\"",
            "DEBUG rate_limit.wait_exceeded operation=\"checkout\" attempt=2 hint_ms=120000 waited_ms=0 max_wait_ms=60000",
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
            "DEBUG circuit.rejected operation=\"operation\" attempt=1",
            "DEBUG attempt.failed operation=\"operation\" attempt=1 kind=CircuitOpen retryable=true error=\"rejected\"",
            "WARN call.failed operation=\"operation\" stop_reason=\"circuit_open\" attempt_count=1 elapsed_ms=0 error=\"rejected\"",
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
            "DEBUG attempt.failed operation=\"checkout\" attempt=1 kind=Operation retryable=true error=\"injected\"",
            "WARN call.failed operation=\"checkout\" stop_reason=\"attempts_exhausted\" attempt_count=1 elapsed_ms=300 error=\"injected\"",
        ]
    );
}

#[cfg(all(feature = "tower", feature = "http"))]
mod spans {
    use super::*;
    use http::{Request, Response};
    use resilient_core::tower::{HttpClassifier, ResilientLayer};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    use tower::Layer;

    #[derive(Debug, thiserror::Error)]
    #[error("connection reset")]
    struct Reset;

    /// One request through a layer whose service answers `answer(n)` to
    /// its n-th call (from 1), on a paused clock: the spans it made.
    fn spans_of_a_call(
        layer: ResilientLayer,
        answer: fn(u32) -> Result<Response<()>, Reset>,
    ) -> Vec<String> {
        let calls = Arc::new(AtomicU32::new(0));
        let service = tower::service_fn(move |_: Request<()>| {
            let n = calls.fetch_add(1, Ordering::Relaxed) + 1;
            std::future::ready(answer(n))
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        spans_of(|| {
            let service = layer.classify(HttpClassifier).layer(service);
            let _ = runtime.block_on(service.oneshot(Request::new(())));
        })
    }

    fn status(code: u16) -> Result<Response<()>, Reset> {
        Ok(Response::builder().status(code).body(()).unwrap())
    }

    #[test]
    fn each_attempt_of_the_layer_is_a_span_with_the_resend_count_and_the_error_type() {
        let layer = ResilientLayer::new()
            .name("inventory.get")
            .retries(3)
            .backoff(Backoff::none());
        let spans = spans_of_a_call(layer, |n| match n {
            1 => status(503),
            2 => Err(Reset),
            3 => status(429),
            _ => status(200),
        });
        let reset = std::any::type_name::<Reset>();
        assert_eq!(
            spans,
            [
                "resilient.attempt operation=\"inventory.get\" attempt=1 error.type=\"503\"".to_owned(),
                format!("resilient.attempt operation=\"inventory.get\" attempt=2 http.request.resend_count=1 error.type={reset:?}"),
                "resilient.attempt operation=\"inventory.get\" attempt=3 http.request.resend_count=2 error.type=\"429\"".to_owned(),
                "resilient.attempt operation=\"inventory.get\" attempt=4 http.request.resend_count=3".to_owned(),
            ]
        );
    }

    #[test]
    fn a_first_attempt_that_succeeds_is_one_span_without_a_resend_count() {
        let spans = spans_of_a_call(ResilientLayer::new().retries(2), |_| status(200));
        assert_eq!(
            spans,
            ["resilient.attempt operation=\"operation\" attempt=1"]
        );
    }
}
