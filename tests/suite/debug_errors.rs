//! An error type that is `Debug` but not `Display` works with the
//! attribute, `Operation` and the closure API; the attribute records its
//! `Display` text where it has one and its `Debug` text otherwise. The
//! attribute's `on_retry` sees the typed error beside the event.

use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use resilient::{FakeClock, Operation, RetryEvent, RetryPolicy, Retryable, resilient};

/// `Display` only for some type parameters, as a generic library's error
/// often is: `Wrapped<Opaque>` has none.
#[derive(Debug, Clone, PartialEq)]
struct Wrapped<T>(T);

impl fmt::Display for Wrapped<u32> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wrapped {}", self.0)
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Opaque {
    code: u16,
}

fn messages<T, E>(outcome: &resilient::Outcome<T, E>) -> Vec<String> {
    outcome
        .report()
        .attempts()
        .iter()
        .map(|a| a.error().unwrap().message().to_owned())
        .collect()
}

#[resilient(retries = 1, clock = clock)]
fn without_display(clock: &FakeClock) -> Result<(), Wrapped<Opaque>> {
    let _ = clock;
    Err(Wrapped(Opaque { code: 503 }))
}

#[resilient(retries = 1, clock = clock)]
fn with_display(clock: &FakeClock) -> Result<(), Wrapped<u32>> {
    let _ = clock;
    Err(Wrapped(7))
}

#[resilient(retries = 1)]
async fn without_display_async() -> Result<(), Opaque> {
    Err(Opaque { code: 429 })
}

/// In a generic function, the bounds decide: `Debug` only here.
#[resilient(retries = 1, clock = clock)]
fn generic<E: fmt::Debug + Clone>(clock: &FakeClock, error: &E) -> Result<(), E> {
    let _ = clock;
    Err(error.clone())
}

#[test]
fn the_attribute_reports_debug_text_where_there_is_no_display() {
    let clock = FakeClock::new();
    let outcome = without_display(&clock);
    assert_eq!(messages(&outcome), ["Wrapped(Opaque { code: 503 })"; 2]);
    assert_eq!(messages(&with_display(&clock)), ["wrapped 7"; 2]);
    // `u32` has `Display`, but the generic function can't tell.
    assert_eq!(
        messages(&generic(&clock, &Wrapped(7u32))),
        ["Wrapped(7)"; 2]
    );
}

#[tokio::test(start_paused = true)]
async fn an_async_fn_reports_debug_text_too() {
    let outcome = without_display_async().await;
    assert_eq!(messages(&outcome), ["Opaque { code: 429 }"; 2]);
}

#[test]
fn operation_and_closures_take_a_debug_only_error() {
    let outcome = Operation::described_by(|e: &Opaque| format!("{e:?}"))
        .max_attempts(2)
        .clock(FakeClock::new())
        .run(|_| Err::<(), _>(Opaque { code: 500 }));
    assert_eq!(messages(&outcome), ["Opaque { code: 500 }"; 2]);
    let outcome = Operation::described_by_debug()
        .max_attempts(2)
        .clock(FakeClock::new())
        .run(|_| Err::<(), _>(Wrapped(Opaque { code: 501 })));
    assert_eq!(messages(&outcome), ["Wrapped(Opaque { code: 501 })"; 2]);
    let policy = RetryPolicy::builder().max_attempts(2).build().unwrap();
    let outcome = (|| Err::<(), _>(Wrapped(Opaque { code: 502 })))
        .retry(policy)
        .clock(FakeClock::new())
        .call();
    assert_eq!(messages(&outcome), ["Wrapped(Opaque { code: 502 })"; 2]);
}

#[resilient(
    retries = 2,
    backoff = constant("1s"),
    clock = clock,
    on_retry = |event, error| heard.lock().unwrap().push((event.attempt(), event.delay(), error.clone()))
)]
fn heard_with_errors(
    clock: &FakeClock,
    heard: &Mutex<Vec<(u32, Duration, Opaque)>>,
) -> Result<(), Opaque> {
    let _ = (clock, heard);
    Err(Opaque { code: 503 })
}

fn log_retry(event: &RetryEvent<'_>) {
    assert_eq!(event.delay(), Duration::from_secs(1));
}

#[resilient(retries = 2, backoff = constant("1s"), clock = clock, on_retry = log_retry)]
fn heard_plainly(clock: &FakeClock) -> Result<(), Opaque> {
    let _ = clock;
    Err(Opaque { code: 503 })
}

static TYPED: Mutex<Vec<(u32, u16)>> = Mutex::new(Vec::new());

fn log_with_error(event: &RetryEvent<'_>, error: &Opaque) {
    TYPED.lock().unwrap().push((event.attempt(), error.code));
}

#[resilient(retries = 2, backoff = none, clock = clock, on_retry = log_with_error)]
fn heard_by_path(clock: &FakeClock) -> Result<(), Opaque> {
    let _ = clock;
    Err(Opaque { code: 418 })
}

#[test]
fn a_listener_named_by_path_may_take_the_error_too() {
    let outcome = heard_by_path(&FakeClock::new());
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(*TYPED.lock().unwrap(), [(1, 418), (2, 418)]);
}

#[test]
fn the_attribute_s_on_retry_sees_the_typed_error() {
    let clock = FakeClock::new();
    let heard = Mutex::new(Vec::new());
    let outcome = heard_with_errors(&clock, &heard);
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(
        *heard.lock().unwrap(),
        [1, 2].map(|n| (n, Duration::from_secs(1), Opaque { code: 503 }))
    );
    // The one-parameter form is unchanged.
    assert_eq!(heard_plainly(&clock).report().retry_count(), 2);
}
