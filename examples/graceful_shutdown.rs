//! Bounded graceful shutdown: when the service is told to stop, calls in
//! flight may go on retrying for a grace period, then stop with a clear
//! error; calls made after shutdown began are refused without an attempt.
//!
//! Run with `cargo run --example graceful_shutdown`.
//!
//! # The recipe
//!
//! 1. **One `Shutdown` per service**, cloned into every task. It holds the
//!    grace period and, once shutdown begins, the grace deadline
//!    (`now + grace`), published through a `tokio::sync::watch` channel so
//!    that every call in flight learns it at once.
//! 2. **Every resilient call goes through `shutdown.run(|| call(…))`.**
//!    Until shutdown begins this changes nothing: the call runs under its
//!    own options and `run` returns its `Outcome`, report included.
//! 3. **On the stop signal, call `shutdown.begin()`** (a real service awaits
//!    `tokio::signal::ctrl_c()` or SIGTERM; this example uses a timer).
//!    From then on:
//!    * a new call is refused with `ShuttingDown::Refused`: its closure is
//!      never called, so no attempt is made;
//!    * a call in flight keeps retrying by its own policy, and returns its
//!      `Outcome` as usual if it ends before the deadline;
//!    * at the deadline, `run` drops the call's future and returns
//!      `ShuttingDown::GraceExpired`. Dropping is how an operation is
//!      cancelled: the engine runs no further attempt and no fallback,
//!      whether it was inside an attempt (which is cancelled with it) or
//!      waiting for a retry.
//! 4. **Wait for the tasks** (join their handles): it takes at most the
//!    grace period, whatever the calls' retry policies say.
//!
//! At the deadline itself shutdown wins: `run` looks at the deadline before
//! it polls the call, so a retry due exactly then doesn't start.
//!
//! Why not the `budget` option? It is read when a call starts, before anyone
//! knows when shutdown will come; it stays the right tool for each call's
//! own cap, and whichever of the budget and the grace deadline comes first
//! ends the call.

use std::future::{IntoFuture, poll_fn};
use std::pin::pin;
use std::sync::{Arc, LazyLock};
use std::task::Poll;
use std::time::Duration;

use resilient::{Attempt, Outcome, resilient};
use tokio::sync::watch;
use tokio::time::Instant;

/// Why a call made through [`Shutdown::run`] did not run to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ShuttingDown {
    /// Shutdown had begun when the call was made: nothing ran.
    #[error("shutting down: call refused, no attempt made")]
    Refused,
    /// The call was still running at the end of the grace period: it was
    /// stopped, and no attempt started after the deadline.
    #[error("shutting down: call stopped at the end of the {grace:?} grace period")]
    GraceExpired {
        /// The grace period it was given.
        grace: Duration,
    },
}

/// Shutdown with a grace period, shared by every task of a service.
#[derive(Debug, Clone)]
pub struct Shutdown {
    grace: Duration,
    /// `None` until shutdown begins, then the grace deadline.
    deadline: Arc<watch::Sender<Option<Instant>>>,
}

impl Shutdown {
    /// Calls in flight when shutdown begins get `grace` to finish.
    pub fn new(grace: Duration) -> Self {
        let (deadline, _) = watch::channel(None);
        Shutdown {
            grace,
            deadline: Arc::new(deadline),
        }
    }

    /// Begins shutdown and returns the grace deadline. Beginning again
    /// keeps the first deadline.
    pub fn begin(&self) -> Instant {
        let now = Instant::now();
        // A grace period too long for an `Instant` is as good as endless.
        let mut deadline = now
            .checked_add(self.grace)
            .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600));
        self.deadline.send_if_modified(|current| match current {
            Some(first) => {
                deadline = *first;
                false
            }
            None => {
                *current = Some(deadline);
                true
            }
        });
        deadline
    }

    /// The grace deadline, once shutdown has begun.
    pub fn deadline(&self) -> Option<Instant> {
        *self.deadline.borrow()
    }

    /// Runs the call `call()` unless shutdown has begun, and stops it at the
    /// grace deadline if shutdown begins while it runs.
    ///
    /// `call` is only called when the call is allowed to start, so a refused
    /// call makes no attempt, not even a first one.
    pub async fn run<F: IntoFuture>(
        &self,
        call: impl FnOnce() -> F,
    ) -> Result<F::Output, ShuttingDown> {
        let mut deadline = self.deadline.subscribe();
        if deadline.borrow_and_update().is_some() {
            return Err(ShuttingDown::Refused);
        }
        let grace_over = async move {
            match deadline.wait_for(Option::is_some).await.map(|at| *at) {
                Ok(Some(at)) => tokio::time::sleep_until(at).await,
                // The `Shutdown` is gone, so shutdown can no longer begin.
                _ => std::future::pending().await,
            }
        };
        let mut grace_over = pin!(grace_over);
        let mut call = pin!(call().into_future());
        poll_fn(|cx| {
            // The deadline first: once it has passed the call is not polled
            // again, so a retry due at the deadline doesn't start.
            if grace_over.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(ShuttingDown::GraceExpired { grace: self.grace }));
            }
            call.as_mut().poll(cx).map(Ok)
        })
        .await
        // Returning drops the call's future: the operation stops there.
    }
}

// ---- the demo: a storage service, three uploads, one stop signal -----------

/// What the simulated storage fails with.
#[derive(Debug, thiserror::Error)]
enum UploadError {
    #[error("storage unavailable (503)")]
    Unavailable,
}

/// A simulated storage backend that refuses the first `failures` attempts.
struct Storage {
    name: &'static str,
    failures: u32,
}

impl Storage {
    #[resilient(retries = 8, backoff = constant("100ms"))]
    async fn upload(&self, #[attempt] attempt: Attempt) -> Result<String, UploadError> {
        log(self.name, format_args!("attempt {}", attempt.number()));
        tokio::time::sleep(Duration::from_millis(50)).await;
        if attempt.number() > self.failures {
            Ok(format!("{}.bin", self.name))
        } else {
            Err(UploadError::Unavailable)
        }
    }
}

static START: LazyLock<Instant> = LazyLock::new(Instant::now);

fn log(who: &str, what: std::fmt::Arguments<'_>) {
    println!("[{:>4} ms] {who:<8} {what}", START.elapsed().as_millis());
}

fn report(who: &str, result: Result<Outcome<String, UploadError>, ShuttingDown>) {
    match result {
        Ok(outcome) => {
            let attempts = outcome.report().attempt_count();
            match outcome.into_result() {
                Ok(file) => log(
                    who,
                    format_args!("stored {file} after {attempts} attempt(s)"),
                ),
                Err(error) => log(
                    who,
                    format_args!("failed after {attempts} attempt(s): {error}"),
                ),
            }
        }
        Err(stopped) => log(who, format_args!("{stopped}")),
    }
}

/// Starts an upload of `failures` refusals after `delay`, as a task.
fn spawn_upload(
    shutdown: &Shutdown,
    name: &'static str,
    failures: u32,
    delay: Duration,
) -> tokio::task::JoinHandle<()> {
    let shutdown = shutdown.clone();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        let storage = Storage { name, failures };
        log(name, format_args!("upload requested"));
        report(name, shutdown.run(|| storage.upload()).await);
    })
}

#[tokio::main]
async fn main() {
    LazyLock::force(&START);
    let grace = Duration::from_millis(400);
    let shutdown = Shutdown::new(grace);

    // Succeeds on its 3rd attempt, at about 350 ms: within the grace period.
    let quick = spawn_upload(&shutdown, "quick", 2, Duration::ZERO);
    // Never succeeds: still retrying when the grace period ends at 500 ms.
    let stubborn = spawn_upload(&shutdown, "stubborn", u32::MAX, Duration::ZERO);
    // Arrives after shutdown began: refused.
    let late = spawn_upload(&shutdown, "late", 0, Duration::from_millis(200));

    tokio::time::sleep(Duration::from_millis(100)).await;
    let deadline = shutdown.begin();
    log(
        "main",
        format_args!(
            "shutdown begins; grace period {grace:?}, until {} ms",
            (deadline - *START).as_millis()
        ),
    );

    for task in [quick, stubborn, late] {
        task.await.expect("upload task panicked");
    }
    log("main", format_args!("every task is done; exiting"));
}
