//! Retries that don't multiply: three layers of calls, each `retries = 3`,
//! the bottom one always failing retryably. Without `nested`, the bottom
//! is called 4 × 4 × 4 = 64 times. With `nested = "no_retry"` on a call
//! that can retry, a call made inside any of its attempts, the last one
//! included, doesn't retry (stop reason `LeftToCaller`), nor does a call
//! made inside that one: only the outermost call that retries does, and the
//! bottom is called once per attempt of the top. The schedules below are
//! each layer's own backoff: 1 s at the top, 100 ms in the middle, 10 ms at
//! the bottom.

use std::cell::RefCell;
use std::time::Duration;

use resilient::deadline::Nested;
use resilient::{Backoff, FakeClock, Operation, Outcome, StopReason, TokioClock, resilient};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum CallError {
    #[error("down")]
    Down,
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// When the bottom was called, and why each call below the top stopped.
struct Log {
    start: tokio::time::Instant,
    bottom: RefCell<Vec<Duration>>,
    bottom_stops: RefCell<Vec<StopReason>>,
    middle_stops: RefCell<Vec<StopReason>>,
}

impl Log {
    fn new() -> Self {
        Log {
            start: tokio::time::Instant::now(),
            bottom: RefCell::default(),
            bottom_stops: RefCell::default(),
            middle_stops: RefCell::default(),
        }
    }

    fn calls(&self) -> usize {
        self.bottom.borrow().len()
    }
}

use StopReason::{AttemptsExhausted as Exhausted, LeftToCaller as Left};

/// When the bottom is called with `nested = "no_retry"` above it: once on
/// each of the top's four attempts, 1 s apart. Under a rule that let the
/// calls inside retry on the top's last attempt, the middle's and the
/// bottom's retries would follow at 3100 ms, 3200 ms, ...
const HELD: [Duration; 4] = {
    let ms = Duration::from_millis;
    [ms(0), ms(1000), ms(2000), ms(3000)]
};

/// The result of a call below, its stop reason noted in `stops`.
fn noted(stops: &RefCell<Vec<StopReason>>, below: Outcome<(), CallError>) -> Result<(), CallError> {
    stops.borrow_mut().push(below.report().stop_reason());
    below.into_result()
}

// ---- async, paused time -------------------------------------------------------

#[resilient(retries = 3, backoff = constant("10ms"))]
async fn bottom(log: &Log) -> Result<(), CallError> {
    log.bottom.borrow_mut().push(log.start.elapsed());
    Err(CallError::Down)
}

#[resilient(retries = 3, backoff = constant("100ms"))]
async fn middle(log: &Log) -> Result<(), CallError> {
    noted(&log.bottom_stops, bottom(log).await)
}

#[resilient(retries = 3, backoff = constant("100ms"), nested = "no_retry")]
async fn holding_middle(log: &Log) -> Result<(), CallError> {
    noted(&log.bottom_stops, bottom(log).await)
}

#[resilient(retries = 3, backoff = constant("1s"))]
async fn top(log: &Log) -> Result<(), CallError> {
    noted(&log.middle_stops, middle(log).await)
}

#[resilient(retries = 3, backoff = constant("1s"), nested = "no_retry")]
async fn holding_top(log: &Log) -> Result<(), CallError> {
    noted(&log.middle_stops, holding_middle(log).await)
}

#[resilient(retries = 3, backoff = constant("1s"), nested = "no_retry")]
async fn holding_top_over_plain(log: &Log) -> Result<(), CallError> {
    noted(&log.middle_stops, middle(log).await)
}

#[resilient(retries = 3, backoff = constant("1s"))]
async fn top_over_holding_middle(log: &Log) -> Result<(), CallError> {
    noted(&log.middle_stops, holding_middle(log).await)
}

#[resilient(nested = "no_retry")]
async fn holding_single(log: &Log) -> Result<(), CallError> {
    noted(&log.middle_stops, middle(log).await)
}

#[tokio::test(start_paused = true)]
async fn without_nested_retries_multiply_to_64_calls() {
    let log = Log::new();
    let outcome = top(&log).await;
    assert_eq!(outcome.result(), &Err(CallError::Down));
    assert_eq!(log.calls(), 64);
    // Four bottom calls 10 ms apart, four times 100 ms apart, four times 1 s
    // apart: 4 × (4 × 30 ms + 300 ms) + 3 s.
    assert_eq!(log.start.elapsed(), ms(4680));
    assert_eq!(
        log.bottom.borrow()[..5],
        [ms(0), ms(10), ms(20), ms(30), ms(130)]
    );
    assert!(
        log.bottom_stops
            .borrow()
            .iter()
            .all(|stop| *stop == Exhausted)
    );
    assert_eq!(*log.middle_stops.borrow(), [Exhausted; 4]);
}

#[tokio::test(start_paused = true)]
async fn with_nested_on_the_outer_two_the_bottom_is_called_once_per_top_attempt() {
    let log = Log::new();
    let outcome = holding_top(&log).await;
    assert_eq!(
        outcome.result(),
        &Err(CallError::Down),
        "the bottom's error"
    );
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(outcome.report().stop_reason(), Exhausted);
    assert_eq!(outcome.report().delays(), [ms(1000); 3]);
    // Each of the top's attempts, its last too, reaches the bottom once:
    // 4 × 1 × 1 calls.
    assert_eq!(*log.bottom.borrow(), HELD);
    assert_eq!(*log.bottom_stops.borrow(), [Left; 4]);
    assert_eq!(*log.middle_stops.borrow(), [Left; 4]);
    assert_eq!(log.start.elapsed(), ms(3000));
}

#[tokio::test(start_paused = true)]
async fn with_nested_on_the_top_only_the_hold_reaches_the_bottom() {
    let log = Log::new();
    let outcome = holding_top_over_plain(&log).await;
    assert_eq!(outcome.result(), &Err(CallError::Down));
    assert_eq!(outcome.report().stop_reason(), Exhausted);
    // The middle, told nothing itself, makes one attempt inside a held
    // one, and passes the hold on to the bottom: the same 4 calls.
    assert_eq!(*log.bottom.borrow(), HELD);
    assert_eq!(*log.bottom_stops.borrow(), [Left; 4]);
    assert_eq!(*log.middle_stops.borrow(), [Left; 4]);
    assert_eq!(log.start.elapsed(), ms(3000));
}

#[tokio::test(start_paused = true)]
async fn with_nested_on_the_middle_only_the_top_multiplies_the_middle() {
    let log = Log::new();
    let outcome = top_over_holding_middle(&log).await;
    assert_eq!(outcome.result(), &Err(CallError::Down));
    // 4 × 4 × 1: each of the middle's attempts, 100 ms apart, reaches the
    // bottom once; the top retries the middle 1 s after each of its runs.
    let runs = [0, 1300, 2600, 3900];
    let expected: Vec<Duration> = runs
        .iter()
        .flat_map(|&run| (0..4).map(move |i| ms(run + 100 * i)))
        .collect();
    assert_eq!(*log.bottom.borrow(), expected);
    assert_eq!(*log.bottom_stops.borrow(), [Left; 16]);
    assert_eq!(*log.middle_stops.borrow(), [Exhausted; 4]);
    assert_eq!(log.start.elapsed(), ms(4200));
}

#[tokio::test(start_paused = true)]
async fn nested_on_a_call_without_retries_changes_nothing() {
    let log = Log::new();
    let outcome = holding_single(&log).await;
    assert_eq!(outcome.report().attempt_count(), 1);
    // Its only attempt is its last: the two below retry as they would.
    assert_eq!(log.calls(), 16);
    assert!(
        log.bottom_stops
            .borrow()
            .iter()
            .all(|stop| *stop == Exhausted)
    );
    assert_eq!(*log.middle_stops.borrow(), [Exhausted]);
    assert_eq!(log.start.elapsed(), ms(4 * 30 + 300));
}

#[tokio::test(start_paused = true)]
async fn a_call_after_a_holding_one_retries_as_it_would() {
    let log = Log::new();
    let _ = holding_top(&log).await;
    let alone = Log::new();
    let outcome = middle(&alone).await;
    assert_eq!(alone.calls(), 16, "nothing was left behind on the thread");
    assert_eq!(outcome.report().stop_reason(), Exhausted);
}

#[tokio::test(start_paused = true)]
async fn nested_operations_leave_the_retry_to_the_holding_one() {
    let calls = RefCell::new(Vec::new());
    let start = tokio::time::Instant::now();
    let stops = RefCell::new(Vec::new());
    let outer = Operation::new()
        .clock(TokioClock)
        .max_attempts(3)
        .backoff(Backoff::constant(ms(500)))
        .nested(Nested::NoRetry)
        .run_async(async |_| {
            let inner = Operation::new()
                .clock(TokioClock)
                .max_attempts(3)
                .backoff(Backoff::constant(ms(50)))
                .run_async(async |_| {
                    calls.borrow_mut().push(start.elapsed());
                    Err::<(), _>(CallError::Down)
                })
                .await;
            stops.borrow_mut().push(inner.report().stop_reason());
            inner.into_result()
        })
        .await;
    assert_eq!(outer.into_result(), Err(CallError::Down));
    // The outer call's last attempt holds the retry too: nobody above
    // would retry, and nobody below does.
    assert_eq!(*calls.borrow(), [ms(0), ms(500), ms(1000)]);
    assert_eq!(*stops.borrow(), [Left; 3]);
}

// ---- blocking, FakeClock ------------------------------------------------------

/// When the bottom was called, on the fake clock.
struct Blocking<'c> {
    clock: &'c FakeClock,
    bottom: RefCell<Vec<Duration>>,
}

#[resilient(retries = 3, backoff = constant("10ms"), clock = log.clock)]
fn blocking_bottom(log: &Blocking<'_>) -> Result<(), CallError> {
    log.bottom.borrow_mut().push(log.clock.elapsed());
    Err(CallError::Down)
}

#[resilient(retries = 3, backoff = constant("100ms"), clock = log.clock, nested = "no_retry")]
fn blocking_middle(log: &Blocking<'_>) -> Result<(), CallError> {
    blocking_bottom(log).into_result()
}

#[resilient(retries = 3, backoff = constant("1s"), clock = log.clock, nested = "no_retry")]
fn blocking_top(log: &Blocking<'_>) -> Result<(), CallError> {
    blocking_middle(log).into_result()
}

#[test]
fn blocking_calls_with_nested_retry_at_the_top_only() {
    let clock = FakeClock::new();
    let log = Blocking {
        clock: &clock,
        bottom: RefCell::default(),
    };
    let outcome = blocking_top(&log);
    assert_eq!(outcome.result(), &Err(CallError::Down));
    assert_eq!(*log.bottom.borrow(), HELD);
    let s = ms(1000);
    assert_eq!(clock.slept(), [s, s, s]);
}

#[test]
fn a_blocking_inner_operation_reports_that_it_left_the_retry() {
    let clock = FakeClock::new();
    let mut inner_reports = Vec::new();
    let outer = Operation::new()
        .clock(&clock)
        .max_attempts(2)
        .backoff(Backoff::constant(ms(200)))
        .nested(Nested::NoRetry)
        .run(|_| {
            let inner = Operation::new()
                .clock(&clock)
                .max_attempts(4)
                .backoff(Backoff::constant(ms(20)))
                .run(|attempt| Err::<(), _>(attempt.number()));
            inner_reports.push((inner.report().stop_reason(), inner.report().attempt_count()));
            inner.into_result()
        });
    // Each inner call fails with its one attempt's error, on the outer
    // call's last attempt too.
    assert_eq!(outer.into_result(), Err(1));
    assert_eq!(inner_reports, [(Left, 1), (Left, 1)]);
    assert_eq!(clock.slept(), [ms(200)]);
}
