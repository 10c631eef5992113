//! A library's helper that retries the closure its caller hands it: only
//! the errors that say they are transient, a check before each attempt
//! that can end the call, a `notify` that sees the typed error, and the
//! report of every attempt.
//!
//! Run with `cargo run --example closure`.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use resilient::{Attempt, Backoff, Jitter, Outcome, RetryPolicy, Retryable, StopReason};

/// The helper's error: `Debug` is all the report needs.
#[derive(Debug, PartialEq)]
enum JobError {
    /// Worth another attempt.
    Transient(&'static str),
    /// The caller cancelled the job.
    Cancelled,
}

impl JobError {
    fn is_transient(&self) -> bool {
        matches!(self, JobError::Transient(_))
    }
}

/// The helper's policy: 3 retries, 200 ms doubling to 2 s, equal jitter.
static POLICY: RetryPolicy = RetryPolicy::builder()
    .max_attempts(4)
    .backoff(
        Backoff::exponential(Duration::from_millis(200), Duration::from_secs(2))
            .jitter(Jitter::Equal),
    )
    .budget(Duration::from_secs(10))
    .build_const();

/// Runs `job` under the helper's policy until it succeeds, fails for good
/// or `cancelled` is set.
async fn run_job<F, Fut, T>(
    name: &'static str,
    cancelled: &AtomicBool,
    job: F,
) -> Outcome<T, JobError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, JobError>>,
{
    job.retry(&POLICY)
        .name(name)
        .when(JobError::is_transient)
        .before_attempt(|attempt: &Attempt| {
            if cancelled.load(Ordering::Relaxed) {
                println!("  attempt {}: cancelled before it ran", attempt.number());
                Err(JobError::Cancelled)
            } else {
                Ok(())
            }
        })
        .notify(|error: &JobError, next: Duration| {
            println!("  {error:?}; next attempt in {next:.0?}");
        })
        .call()
        .await
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // A job that fails twice, then answers.
    let calls = AtomicU32::new(0);
    let cancelled = AtomicBool::new(false);
    println!("sync.contacts:");
    let outcome = run_job("sync.contacts", &cancelled, || async {
        match calls.fetch_add(1, Ordering::Relaxed) {
            0 => Err(JobError::Transient("connection reset")),
            1 => Err(JobError::Transient("503 from upstream")),
            n => Ok(n + 1),
        }
    })
    .await;
    println!("{}", outcome.report());
    assert_eq!(outcome.into_result(), Ok(3));

    // A job whose caller cancels it after the first failure.
    println!("export.invoices:");
    let outcome = run_job("export.invoices", &cancelled, || async {
        cancelled.store(true, Ordering::Relaxed);
        Err::<(), _>(JobError::Transient("timeout"))
    })
    .await;
    println!("{}", outcome.report());
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(outcome.into_result(), Err(JobError::Cancelled));
}
