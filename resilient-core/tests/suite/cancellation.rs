//! Dropping a running operation ends all of its work at once (no
//! further attempt, no fallback), and a panic in the body unwinds to the
//! caller without being retried. Async tests run on paused tokio time.

use crate::common::{Fail, hint};

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::task::{Context, Waker};
use std::time::Duration;

use resilient_core::{Attempt, Backoff, FakeClock, Operation, RetryPolicy, TokioClock};
use tokio::time::Instant;

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// What ran: attempts and fallbacks started and finished.
#[derive(Debug, Default)]
struct Work {
    started: AtomicU32,
    finished: AtomicU32,
    fallback_started: AtomicU32,
    fallback_finished: AtomicU32,
}

impl Work {
    fn new() -> Arc<Work> {
        Arc::default()
    }

    /// `[started, finished, fallback started, fallback finished]`.
    fn counts(&self) -> [u32; 4] {
        [
            self.started.load(SeqCst),
            self.finished.load(SeqCst),
            self.fallback_started.load(SeqCst),
            self.fallback_finished.load(SeqCst),
        ]
    }
}

/// An attempt that takes `took` of virtual time, then fails with `error`.
fn body(work: &Arc<Work>, took: Duration, error: Fail) -> impl FnMut(Attempt) -> Attempted {
    let work = Arc::clone(work);
    move |_| {
        let (work, error) = (Arc::clone(&work), error.clone());
        Box::pin(async move {
            work.started.fetch_add(1, SeqCst);
            tokio::time::sleep(took).await;
            work.finished.fetch_add(1, SeqCst);
            Err(error)
        })
    }
}

/// One attempt's future; each attempt owns what it uses, so that the
/// operation's future stays `Send`.
type Attempted = std::pin::Pin<Box<dyn Future<Output = Result<u32, Fail>> + Send>>;

/// A fallback that takes `took` of virtual time, then succeeds.
fn fallback(work: &Arc<Work>, took: Duration) -> impl AsyncFnOnce(Attempt) -> Result<u32, Fail> {
    let work = Arc::clone(work);
    async move |_| {
        work.fallback_started.fetch_add(1, SeqCst);
        tokio::time::sleep(took).await;
        work.fallback_finished.fetch_add(1, SeqCst);
        Ok(0)
    }
}

/// Lets a day of virtual time pass and every ready task run, so that any
/// work left behind by a dropped operation would show in the counters.
async fn let_time_pass() {
    tokio::time::advance(secs(24 * 3600)).await;
    for _ in 0..16 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(secs(24 * 3600)).await;
    for _ in 0..16 {
        tokio::task::yield_now().await;
    }
}

/// Drops `operation` at `at` of virtual time and checks `work` before and
/// after a long wait.
async fn drop_at<F: Future>(at: Duration, operation: F, work: &Work, expected: [u32; 4]) {
    let start = Instant::now();
    let cut = tokio::time::timeout(at, operation).await;
    assert!(cut.is_err(), "the operation ended before {at:?}");
    assert_eq!(start.elapsed(), at);
    assert_eq!(work.counts(), expected, "when dropped at {at:?}");
    let_time_pass().await;
    assert_eq!(work.counts(), expected, "work ran after the drop");
}

#[tokio::test(start_paused = true)]
async fn dropping_during_an_attempt_stops_everything() {
    let work = Work::new();
    let operation = Operation::new()
        .max_attempts(5)
        .backoff(Backoff::constant(secs(1)))
        .clock(TokioClock)
        .run_async_with_fallback(
            body(&work, secs(10), Fail::Transient),
            Some(fallback(&work, secs(1))),
        );
    // Attempt 1 runs from 0 s to 10 s.
    drop_at(secs(5), operation, &work, [1, 0, 0, 0]).await;
}

#[tokio::test(start_paused = true)]
async fn dropping_during_an_attempt_with_a_timeout_stops_everything() {
    let work = Work::new();
    let operation = Operation::new()
        .max_attempts(5)
        .backoff(Backoff::constant(secs(1)))
        .timeout(secs(8))
        .budget(secs(60))
        .clock(TokioClock)
        .run_async_with_fallback(
            body(&work, secs(10), Fail::Transient),
            Some(fallback(&work, secs(1))),
        );
    // Attempt 1 runs from 0 s and would be cut at 8 s, attempt 2 from 9 s.
    drop_at(secs(5), operation, &work, [1, 0, 0, 0]).await;
}

#[tokio::test(start_paused = true)]
async fn dropping_during_a_later_attempt_stops_everything() {
    let work = Work::new();
    let operation = Operation::new()
        .max_attempts(5)
        .backoff(Backoff::constant(secs(1)))
        .clock(TokioClock)
        .run_async_with_fallback(
            body(&work, secs(10), Fail::Transient),
            Some(fallback(&work, secs(1))),
        );
    // Attempts at 0 s and 11 s; the second is running at 15 s.
    drop_at(secs(15), operation, &work, [2, 1, 0, 0]).await;
}

#[tokio::test(start_paused = true)]
async fn dropping_during_a_backoff_wait_stops_everything() {
    let work = Work::new();
    let operation = Operation::new()
        .max_attempts(5)
        .backoff(Backoff::constant(secs(10)))
        .clock(TokioClock)
        .run_async_with_fallback(
            body(&work, Duration::ZERO, Fail::Transient),
            Some(fallback(&work, secs(1))),
        );
    // Attempt 1 fails at once; the wait runs from 0 s to 10 s.
    drop_at(secs(5), operation, &work, [1, 1, 0, 0]).await;
}

#[tokio::test(start_paused = true)]
async fn dropping_during_a_retry_after_wait_stops_everything() {
    let work = Work::new();
    let operation = Operation::new()
        .max_attempts(5)
        .backoff(Backoff::none())
        .retry_after(hint)
        .clock(TokioClock)
        .run_async_with_fallback(
            body(&work, Duration::ZERO, Fail::Limited(secs(30))),
            Some(fallback(&work, secs(1))),
        );
    // Attempt 1 asks for 30 s; the wait runs from 0 s to 30 s.
    drop_at(secs(5), operation, &work, [1, 1, 0, 0]).await;
}

#[tokio::test(start_paused = true)]
async fn dropping_during_the_fallback_stops_it() {
    let work = Work::new();
    let operation = Operation::new()
        .max_attempts(2)
        .backoff(Backoff::constant(secs(1)))
        .clock(TokioClock)
        .run_async_with_fallback(
            body(&work, Duration::ZERO, Fail::Transient),
            Some(fallback(&work, secs(10))),
        );
    // Attempts at 0 s and 1 s; the fallback runs from 1 s to 11 s.
    drop_at(secs(5), operation, &work, [2, 2, 1, 0]).await;
}

#[tokio::test(start_paused = true)]
async fn dropping_a_plain_policy_run_stops_everything() {
    let work = Work::new();
    let policy = RetryPolicy::builder()
        .max_attempts(5)
        .backoff(Backoff::constant(secs(10)))
        .build()
        .unwrap();
    let operation = policy.run_async(body(&work, secs(2), Fail::Transient));
    // Attempts at 0 s and 12 s; the first wait runs from 2 s to 12 s.
    drop_at(secs(5), operation, &work, [1, 1, 0, 0]).await;
}

#[tokio::test(start_paused = true)]
async fn dropping_after_the_first_poll_stops_everything() {
    let work = Work::new();
    let mut operation = Box::pin(
        Operation::new()
            .max_attempts(5)
            .backoff(Backoff::none())
            .clock(TokioClock)
            .run_async_with_fallback(
                body(&work, secs(1), Fail::Transient),
                Some(fallback(&work, secs(1))),
            ),
    );
    let mut cx = Context::from_waker(Waker::noop());
    assert!(operation.as_mut().poll(&mut cx).is_pending());
    assert_eq!(work.counts(), [1, 0, 0, 0]);
    drop(operation);
    let_time_pass().await;
    assert_eq!(work.counts(), [1, 0, 0, 0]);
}

#[tokio::test(start_paused = true)]
async fn aborting_a_spawned_operation_stops_everything() {
    let work = Work::new();
    let (attempts, fallbacks) = (Arc::clone(&work), Arc::clone(&work));
    let task = tokio::spawn(async move {
        Operation::new()
            .max_attempts(5)
            .backoff(Backoff::constant(secs(10)))
            .clock(TokioClock)
            .run_async_with_fallback(
                async |_| {
                    attempts.started.fetch_add(1, SeqCst);
                    attempts.finished.fetch_add(1, SeqCst);
                    Err::<u32, _>(Fail::Transient)
                },
                Some(async move |_| {
                    fallbacks.fallback_started.fetch_add(1, SeqCst);
                    Ok(0)
                }),
            )
            .await
    });
    // Attempt 1 fails at once; the wait runs from 0 s to 10 s.
    tokio::time::sleep(secs(5)).await;
    assert_eq!(work.counts(), [1, 1, 0, 0]);
    task.abort();
    let err = task.await.unwrap_err();
    assert!(err.is_cancelled());
    let_time_pass().await;
    assert_eq!(work.counts(), [1, 1, 0, 0]);
}

// ---------------------------------------------------------------------------
// Panics.

fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("")
}

#[test]
fn a_panicking_body_is_not_retried() {
    let clock = FakeClock::new();
    let (calls, fallbacks) = (AtomicU32::new(0), AtomicU32::new(0));
    let unwound = panic::catch_unwind(AssertUnwindSafe(|| {
        Operation::new()
            .max_attempts(5)
            .backoff(Backoff::constant(secs(1)))
            .clock(&clock)
            .run_with_fallback(
                |_| -> Result<u32, Fail> {
                    calls.fetch_add(1, SeqCst);
                    panic!("boom")
                },
                Some(|_| {
                    fallbacks.fetch_add(1, SeqCst);
                    Ok(0)
                }),
            )
    }));
    let payload = unwound.expect_err("the panic reaches the caller");
    assert_eq!(panic_message(payload.as_ref()), "boom");
    assert_eq!(calls.load(SeqCst), 1);
    assert_eq!(fallbacks.load(SeqCst), 0);
    assert_eq!(clock.slept(), []);
}

#[test]
fn a_panic_after_a_retry_is_not_retried() {
    let clock = FakeClock::new();
    let (calls, fallbacks) = (AtomicU32::new(0), AtomicU32::new(0));
    let unwound = panic::catch_unwind(AssertUnwindSafe(|| {
        Operation::new()
            .max_attempts(5)
            .backoff(Backoff::constant(secs(1)))
            .clock(&clock)
            .run_with_fallback(
                |attempt: Attempt| -> Result<u32, Fail> {
                    calls.fetch_add(1, SeqCst);
                    if attempt.number() == 1 {
                        return Err(Fail::Transient);
                    }
                    panic!("boom on {}", attempt.number())
                },
                Some(|_| {
                    fallbacks.fetch_add(1, SeqCst);
                    Ok(0)
                }),
            )
    }));
    let payload = unwound.expect_err("the panic reaches the caller");
    assert_eq!(panic_message(payload.as_ref()), "boom on 2");
    assert_eq!(calls.load(SeqCst), 2);
    assert_eq!(fallbacks.load(SeqCst), 0);
    assert_eq!(clock.slept(), [secs(1)]);
}

#[test]
fn a_panicking_body_unwinds_through_a_policy_run() {
    let policy = RetryPolicy::builder()
        .max_attempts(5)
        .backoff(Backoff::constant(secs(1)))
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let calls = AtomicU32::new(0);
    let unwound = panic::catch_unwind(AssertUnwindSafe(|| {
        policy.run_with_clock(&clock, |_| -> Result<u32, Fail> {
            calls.fetch_add(1, SeqCst);
            panic!("boom")
        })
    }));
    assert_eq!(panic_message(unwound.unwrap_err().as_ref()), "boom");
    assert_eq!(calls.load(SeqCst), 1);
    assert_eq!(clock.slept(), []);
}

#[tokio::test(start_paused = true)]
async fn a_panicking_async_body_is_not_retried() {
    let work = Work::new();
    let (attempts, fallbacks) = (Arc::clone(&work), Arc::clone(&work));
    let task = tokio::spawn(async move {
        Operation::new()
            .max_attempts(5)
            .backoff(Backoff::constant(secs(1)))
            .timeout(secs(30))
            .clock(TokioClock)
            .run_async_with_fallback(
                async |attempt: Attempt| -> Result<u32, Fail> {
                    attempts.started.fetch_add(1, SeqCst);
                    tokio::time::sleep(secs(2)).await;
                    if attempt.number() == 1 {
                        attempts.finished.fetch_add(1, SeqCst);
                        return Err(Fail::Transient);
                    }
                    panic!("boom on {}", attempt.number())
                },
                Some(async move |_| {
                    fallbacks.fallback_started.fetch_add(1, SeqCst);
                    Ok(0)
                }),
            )
            .await
    });
    let err = task.await.expect_err("the panic reaches the task's owner");
    assert!(err.is_panic());
    assert_eq!(panic_message(err.into_panic().as_ref()), "boom on 2");
    assert_eq!(work.counts(), [2, 1, 0, 0]);
    let_time_pass().await;
    assert_eq!(work.counts(), [2, 1, 0, 0]);
}

#[tokio::test(start_paused = true)]
async fn a_panic_on_the_first_async_attempt_is_not_retried() {
    let work = Work::new();
    let (attempts, fallbacks) = (Arc::clone(&work), Arc::clone(&work));
    let task = tokio::spawn(async move {
        Operation::new()
            .max_attempts(5)
            .backoff(Backoff::none())
            .clock(TokioClock)
            .run_async_with_fallback(
                async |_| -> Result<u32, Fail> {
                    attempts.started.fetch_add(1, SeqCst);
                    panic!("boom")
                },
                Some(async move |_| {
                    fallbacks.fallback_started.fetch_add(1, SeqCst);
                    Ok(0)
                }),
            )
            .await
    });
    let err = task.await.expect_err("the panic reaches the task's owner");
    assert!(err.is_panic());
    assert_eq!(panic_message(err.into_panic().as_ref()), "boom");
    assert_eq!(work.counts(), [1, 0, 0, 0]);
}
