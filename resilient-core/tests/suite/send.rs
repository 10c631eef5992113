//! Async runs stay `Send` when the attempt borrows, so services can spawn
//! them on a multi-thread runtime.

use std::sync::Arc;

use resilient_core::{Backoff, FakeClock, Operation, RetryError, RetryPolicy};

struct Svc {
    base: String,
    policy: RetryPolicy,
}

impl Svc {
    fn new() -> Arc<Svc> {
        Arc::new(Svc {
            base: "base".into(),
            policy: RetryPolicy::builder()
                .max_attempts(3)
                .backoff(Backoff::none())
                .build()
                .unwrap(),
        })
    }

    /// An async closure that borrows `self`.
    async fn borrowing(&self) -> Result<usize, RetryError<String>> {
        self.policy
            .run_async(async |_| Ok::<usize, String>(self.base.len()))
            .await
    }

    /// A closure that clones what each attempt's future owns.
    async fn cloning(&self) -> Result<usize, RetryError<String>> {
        let s = self.base.clone();
        self.policy
            .run_async(|attempt| {
                let s = s.clone();
                async move {
                    if attempt.number() < 2 {
                        Err(format!("{s}: busy"))
                    } else {
                        Ok(s.len())
                    }
                }
            })
            .await
    }

    /// An `async move` closure holding a reference.
    async fn moving_a_reference(&self) -> Result<usize, RetryError<String>> {
        let base: &String = &self.base;
        self.policy
            .run_async(async move |_| Ok::<usize, String>(base.len() * 2))
            .await
    }

    /// The same shapes through an `Operation`, with its report.
    async fn operation(&self) -> (usize, u32) {
        let outcome = Operation::new()
            .max_attempts(2)
            .backoff(Backoff::none())
            .clock(FakeClock::new())
            .run_async(async |attempt| {
                if attempt.number() == 1 {
                    Err(format!("{} busy", self.base))
                } else {
                    Ok(self.base.len())
                }
            })
            .await;
        (
            outcome.result().clone().unwrap(),
            outcome.report().attempt_count(),
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_attempt_borrows_spawns() {
    let svc = Svc::new();
    let task = tokio::spawn({
        let svc = Arc::clone(&svc);
        async move { svc.borrowing().await }
    });
    assert_eq!(task.await.unwrap(), Ok(4));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_attempts_clone_spawns() {
    let svc = Svc::new();
    let task = tokio::spawn({
        let svc = Arc::clone(&svc);
        async move { svc.cloning().await }
    });
    assert_eq!(task.await.unwrap(), Ok(4));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_async_move_closure_holds_a_reference_spawns() {
    let svc = Svc::new();
    let task = tokio::spawn({
        let svc = Arc::clone(&svc);
        async move { svc.moving_a_reference().await }
    });
    assert_eq!(task.await.unwrap(), Ok(8));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operation_whose_attempt_borrows_spawns() {
    let svc = Svc::new();
    let task = tokio::spawn({
        let svc = Arc::clone(&svc);
        async move { svc.operation().await }
    });
    assert_eq!(task.await.unwrap(), (4, 2));
}
