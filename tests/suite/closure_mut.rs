//! The closure API's listener and predicate are `FnMut`, as backon's
//! hooks are: a `notify` that collects what it hears and a `when` that
//! counts what it was asked need no `Cell` or lock, blocking and async;
//! and the future stays `Send` whenever the closure's future is.

use std::time::Duration;

use resilient::{Backoff, FakeClock, RetryPolicy, Retryable};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Failure {
    Busy(u32),
    Gone,
}

static POLICY: RetryPolicy = RetryPolicy::builder()
    .max_attempts(4)
    .backoff(Backoff::constant(Duration::from_secs(2)))
    .build_const();

#[test]
fn a_blocking_retry_takes_an_fnmut_notify_and_when() {
    let clock = FakeClock::new();
    let mut calls = 0;
    let mut heard = Vec::new();
    let mut asked = 0;
    let outcome = (|| {
        calls += 1;
        Err::<(), _>(if calls < 3 {
            Failure::Busy(calls)
        } else {
            Failure::Gone
        })
    })
    .retry(&POLICY)
    .clock(&clock)
    .when(|error: &Failure| {
        asked += 1;
        matches!(error, Failure::Busy(_))
    })
    .notify(|error: &Failure, delay| heard.push((*error, delay)))
    .call();
    assert_eq!(outcome.into_result(), Err(Failure::Gone));
    assert_eq!(asked, 3, "asked of every failure");
    assert_eq!(
        heard,
        [
            (Failure::Busy(1), Duration::from_secs(2)),
            (Failure::Busy(2), Duration::from_secs(2))
        ]
    );
    assert_eq!(clock.slept(), [Duration::from_secs(2); 2]);
}

#[tokio::test(start_paused = true)]
async fn an_async_retry_takes_them_too_and_its_future_is_send() {
    fn send<F: std::future::Future + Send>(future: F) -> F {
        future
    }
    let mut heard = Vec::new();
    let mut asked = 0u32;
    let started = tokio::time::Instant::now();
    let outcome = send(
        (|| async { Err::<(), _>(Failure::Busy(7)) })
            .retry(&POLICY)
            .when(|_: &Failure| {
                asked += 1;
                true
            })
            .notify(|error: &Failure, delay| heard.push((*error, delay)))
            .into_future(),
    )
    .await;
    assert_eq!(outcome.into_result(), Err(Failure::Busy(7)));
    assert_eq!(asked, 4);
    assert_eq!(heard, [(Failure::Busy(7), Duration::from_secs(2)); 3]);
    assert_eq!(started.elapsed(), Duration::from_secs(6));
    // `.call()` too, when the closure's future is `Send`.
    let call = send(
        (|| async { Ok::<_, Failure>(1) })
            .retry(&POLICY)
            .notify(|_: &Failure, _| {})
            .call(),
    );
    assert_eq!(call.await.into_result(), Ok(1));
}
