//! Each attempt is a `tracing` span `resilient.attempt` (feature
//! `tracing`), with OpenTelemetry's attribute names, so that
//! `tracing-opentelemetry` exports them as they are: recorded here by a
//! subscriber that keeps each span's name and fields, for a function
//! under the attribute that retries once, an `Operation`, and the reqwest
//! middleware against a real server on 127.0.0.1 (one span per attempt,
//! the engine's none beside the middleware's).

#[path = "support/http_server.rs"]
#[allow(dead_code)]
mod http_server;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use reqwest_middleware::ClientBuilder;
use resilient::reqwest::ResilientMiddleware;
use resilient::{Backoff, Operation, resilient};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A span as recorded: its name and its fields, as text.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    name: &'static str,
    fields: BTreeMap<String, String>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

/// Keeps every span it is told of, in the order they were made.
#[derive(Clone, Default)]
struct Spans {
    seen: Arc<Mutex<Vec<Seen>>>,
    next: Arc<AtomicU64>,
    /// The handles of each span still held, by its index in `seen`.
    held: Arc<Mutex<Vec<u64>>>,
}

impl Subscriber for Spans {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = BTreeMap::new();
        span.record(&mut Fields(&mut fields));
        let mut seen = self.seen.lock().unwrap();
        seen.push(Seen {
            name: span.metadata().name(),
            fields,
        });
        self.next.fetch_add(1, Ordering::Relaxed);
        self.held.lock().unwrap().push(1);
        Id::from_u64(seen.len() as u64)
    }

    fn clone_span(&self, span: &Id) -> Id {
        self.held.lock().unwrap()[index(span)] += 1;
        span.clone()
    }

    fn try_close(&self, span: Id) -> bool {
        let mut held = self.held.lock().unwrap();
        held[index(&span)] -= 1;
        held[index(&span)] == 0
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut seen = self.seen.lock().unwrap();
        values.record(&mut Fields(&mut seen[index(span)].fields));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Where the span `id` is in the subscriber's lists.
fn index(id: &Id) -> usize {
    usize::try_from(id.into_u64()).unwrap() - 1
}

impl Spans {
    /// How many spans are still open.
    fn open(&self) -> usize {
        self.held
            .lock()
            .unwrap()
            .iter()
            .filter(|held| **held > 0)
            .count()
    }

    /// The attempts' spans recorded so far.
    fn attempts(&self) -> Vec<BTreeMap<String, String>> {
        let seen = self.seen.lock().unwrap();
        seen.iter()
            .filter(|span| span.name == "resilient.attempt")
            .map(|span| span.fields.clone())
            .collect()
    }
}

fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect()
}

#[derive(Debug, thiserror::Error)]
#[error("busy")]
struct Busy;

static FETCHES: AtomicU32 = AtomicU32::new(0);

#[resilient(name = "spans.fetch", retries = 1, backoff = none)]
async fn fetch() -> Result<u32, Busy> {
    if FETCHES.fetch_add(1, Ordering::Relaxed) == 0 {
        Err(Busy)
    } else {
        Ok(7)
    }
}

/// A current-thread runtime, so that every span is made on the thread
/// whose default subscriber is `spans`.
fn run<F: Future>(spans: &Spans, future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tracing::subscriber::with_default(spans.clone(), || runtime.block_on(future))
}

#[test]
fn a_function_under_the_attribute_makes_a_span_per_attempt() {
    let spans = Spans::default();
    let outcome = run(&spans, fetch());
    assert_eq!(outcome.report().attempt_count(), 2);
    let busy = std::any::type_name::<Busy>();
    assert_eq!(
        spans.attempts(),
        [
            fields(&[
                ("operation", "spans.fetch"),
                ("attempt", "1"),
                ("error.type", busy)
            ]),
            fields(&[("operation", "spans.fetch"), ("attempt", "2")]),
        ]
    );
}

#[test]
fn an_operation_makes_a_span_per_attempt_blocking_and_async() {
    let spans = Spans::default();
    let outcome = tracing::subscriber::with_default(spans.clone(), || {
        Operation::new()
            .name("spans.blocking")
            .max_attempts(3)
            .backoff(Backoff::none())
            .run(|attempt| {
                if attempt.number() < 3 {
                    Err("busy")
                } else {
                    Ok(1)
                }
            })
    });
    assert_eq!(outcome.report().attempt_count(), 3);
    let failed = std::any::type_name::<&str>();
    assert_eq!(
        spans.attempts(),
        [
            fields(&[
                ("operation", "spans.blocking"),
                ("attempt", "1"),
                ("error.type", failed)
            ]),
            fields(&[
                ("operation", "spans.blocking"),
                ("attempt", "2"),
                ("error.type", failed)
            ]),
            fields(&[("operation", "spans.blocking"), ("attempt", "3")]),
        ]
    );

    let spans = Spans::default();
    let outcome = run(
        &spans,
        Operation::new()
            .name("spans.async")
            .max_attempts(2)
            .backoff(Backoff::none())
            .run_async(async |attempt| {
                if attempt.number() < 2 {
                    Err("busy")
                } else {
                    Ok(1)
                }
            }),
    );
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(
        spans.attempts(),
        [
            fields(&[
                ("operation", "spans.async"),
                ("attempt", "1"),
                ("error.type", failed)
            ]),
            fields(&[("operation", "spans.async"), ("attempt", "2")]),
        ]
    );
}

#[test]
fn the_reqwest_middleware_makes_one_span_per_attempt_with_its_resend_count() {
    let spans = Spans::default();
    let (status, port) = run(&spans, async {
        let (addr, hits) = http_server::start().await;
        let client = ClientBuilder::new(reqwest::Client::new())
            .with(
                ResilientMiddleware::new()
                    .name("spans.http")
                    .retries(2)
                    .backoff(Backoff::none()),
            )
            .build();
        let response = client
            .get(format!("http://{addr}/status/503/spans"))
            .send()
            .await
            .unwrap();
        assert_eq!(hits.count("/status/503/spans"), 2);
        (response.status(), addr.port().to_string())
    });
    assert_eq!(status, 200);
    // Each attempt's endpoint, as OpenTelemetry's `server.address` and
    // `server.port`.
    assert_eq!(
        spans.attempts(),
        [
            fields(&[
                ("operation", "spans.http"),
                ("attempt", "1"),
                ("error.type", "503"),
                ("server.address", "127.0.0.1"),
                ("server.port", &port),
            ]),
            fields(&[
                ("operation", "spans.http"),
                ("attempt", "2"),
                ("http.request.resend_count", "1"),
                ("server.address", "127.0.0.1"),
                ("server.port", &port),
            ]),
        ]
    );
}

#[test]
fn an_attempt_cut_by_its_caller_closes_its_span() {
    let spans = Spans::default();
    let cut = run(&spans, async {
        let call = Operation::new()
            .name("spans.cut")
            .max_attempts(2)
            .run_async(async |_| std::future::pending::<Result<u32, &str>>().await);
        tokio::time::timeout(std::time::Duration::from_millis(20), call).await
    });
    assert!(cut.is_err(), "the caller gave up on a call that never ends");
    assert_eq!(
        spans.attempts(),
        [fields(&[("operation", "spans.cut"), ("attempt", "1")])]
    );
    assert_eq!(spans.open(), 0, "the attempt's span closed with it");
}
