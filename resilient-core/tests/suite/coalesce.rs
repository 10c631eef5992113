//! `Coalesce`: concurrent calls of a key share one execution, on tokio's
//! paused clock. A thousand callers, some giving up at every await of the
//! execution, and the execution runs once, to the end, while any caller
//! waits; the last one out cancels it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient_core::coalesce::Coalesce;
use resilient_core::{Operation, Outcome, StopReason, TokioClock};

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// Counts the executions started and those dropped before their end.
#[derive(Default)]
struct Counts {
    started: AtomicU32,
    dropped: AtomicU32,
}

/// Counts its execution dropped unless it was defused at the end.
struct Cut<'c>(&'c AtomicU32, bool);

impl Drop for Cut<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// An execution of ten one-second steps (ten awaits) that answers `answer`.
async fn execution(counts: &'static Counts, answer: Result<u32, String>) -> Outcome<u32, String> {
    counts.started.fetch_add(1, Ordering::Relaxed);
    let mut cut = Cut(&counts.dropped, false);
    let outcome = Operation::new()
        .clock(TokioClock)
        .run_async(|_| {
            let answer = answer.clone();
            async move {
                for _ in 0..10 {
                    tokio::time::sleep(secs(1)).await;
                }
                answer
            }
        })
        .await;
    cut.1 = true;
    outcome
}

#[tokio::test(start_paused = true)]
async fn a_thousand_callers_share_one_execution_though_callers_give_up_at_every_await() {
    static COUNTS: Counts = Counts {
        started: AtomicU32::new(0),
        dropped: AtomicU32::new(0),
    };
    static GROUP: Coalesce<u32, String> = Coalesce::new();
    let mut callers = tokio::task::JoinSet::new();
    for caller in 0..1_000u64 {
        callers.spawn(async move {
            let joined = GROUP.run("user:7", || execution(&COUNTS, Ok(7)));
            // One caller in two gives up, after 0 to 9.5 s: at every step
            // of the execution.
            if caller % 2 == 1 {
                let gives_up = Duration::from_millis(500 * (caller / 2 % 20));
                return (caller, tokio::time::timeout(gives_up, joined).await.ok());
            }
            (caller, Some(joined.await))
        });
        tokio::task::yield_now().await;
    }
    let mut answered = 0;
    let mut joined = 0;
    while let Some(call) = callers.join_next().await {
        let (caller, outcome) = call.unwrap();
        match outcome {
            Some(outcome) => {
                assert_eq!(outcome.result(), &Ok(7), "caller {caller}");
                assert_eq!(outcome.report().stop_reason(), StopReason::Succeeded);
                assert_eq!(outcome.report().attempt_count(), 1);
                if let Some(waited) = outcome.report().coalesced() {
                    joined += 1;
                    assert!(waited <= secs(10), "caller {caller} waited {waited:?}");
                }
                answered += 1;
            }
            None => assert_eq!(caller % 2, 1, "only the impatient give up"),
        }
    }
    assert_eq!(answered, 500);
    assert_eq!(
        joined, 499,
        "every answer but the first caller's was joined"
    );
    assert_eq!(
        COUNTS.started.load(Ordering::Relaxed),
        1,
        "one execution for all"
    );
    assert_eq!(
        COUNTS.dropped.load(Ordering::Relaxed),
        0,
        "it ran to its end"
    );
    assert_eq!(GROUP.in_flight(), 0);
}

#[tokio::test(start_paused = true)]
async fn the_last_caller_out_cancels_the_execution_and_the_next_starts_afresh() {
    static COUNTS: Counts = Counts {
        started: AtomicU32::new(0),
        dropped: AtomicU32::new(0),
    };
    static GROUP: Coalesce<u32, String> = Coalesce::new();
    let first = tokio::spawn(tokio::time::timeout(
        secs(3),
        GROUP.run("k", || execution(&COUNTS, Ok(1))),
    ));
    tokio::task::yield_now().await;
    let second = tokio::spawn(tokio::time::timeout(
        secs(5),
        GROUP.run("k", || execution(&COUNTS, Ok(2))),
    ));
    assert!(first.await.unwrap().is_err());
    assert_eq!(
        COUNTS.dropped.load(Ordering::Relaxed),
        0,
        "the second still waits"
    );
    assert!(second.await.unwrap().is_err());
    assert_eq!(
        COUNTS.dropped.load(Ordering::Relaxed),
        1,
        "the last one out cancelled it"
    );
    assert_eq!(GROUP.in_flight(), 0);

    let again = GROUP
        .run("k", || execution(&COUNTS, Err("down".to_owned())))
        .await;
    assert_eq!(COUNTS.started.load(Ordering::Relaxed), 2);
    assert_eq!(again.result(), &Err("down".to_owned()));
    assert_eq!(again.report().coalesced(), None);
}

#[tokio::test(start_paused = true)]
async fn an_error_is_cloned_to_each_caller_and_a_later_call_is_not_joined() {
    static COUNTS: Counts = Counts {
        started: AtomicU32::new(0),
        dropped: AtomicU32::new(0),
    };
    static GROUP: Coalesce<u32, String> = Coalesce::new();
    let late = Arc::new(AtomicU32::new(0));
    let (a, b) = tokio::join!(
        GROUP.run("k", || execution(&COUNTS, Err("down".to_owned()))),
        async {
            tokio::time::sleep(secs(4)).await;
            late.fetch_add(1, Ordering::Relaxed);
            GROUP.run("k", || execution(&COUNTS, Ok(9))).await
        }
    );
    assert_eq!(a.result(), &Err("down".to_owned()));
    assert_eq!(b.result(), &Err("down".to_owned()));
    assert_eq!(
        b.report().coalesced(),
        Some(secs(6)),
        "joined at 4 s, answered at 10 s"
    );
    assert_eq!(b.report().stop_reason(), StopReason::AttemptsExhausted);
    let after = GROUP.run("k", || execution(&COUNTS, Ok(9))).await;
    assert_eq!(after.result(), &Ok(9));
    assert_eq!(COUNTS.started.load(Ordering::Relaxed), 2);
}

#[tokio::test(start_paused = true)]
async fn a_panicking_execution_fails_every_caller_instead_of_leaving_them_waiting() {
    static GROUP: Coalesce<u32, String> = Coalesce::new();
    let first = tokio::spawn(GROUP.run("k", || async {
        tokio::time::sleep(secs(1)).await;
        panic!("the backend client panicked");
    }));
    tokio::task::yield_now().await;
    let second = tokio::spawn(GROUP.run("k", || async {
        unreachable!("joined, not run");
        #[allow(unreachable_code)]
        Operation::new().run(|_| Ok::<u32, String>(0))
    }));
    assert!(first.await.unwrap_err().is_panic());
    assert!(second.await.unwrap_err().is_panic());
    let after = GROUP
        .run("k", || async {
            Operation::new().run(|_| Ok::<u32, String>(3))
        })
        .await;
    assert_eq!(after.result(), &Ok(3));
}

#[tokio::test(start_paused = true)]
async fn the_closure_api_coalesces_a_retry_by_key() {
    use resilient_core::{Backoff, RetryPolicy, Retryable};
    static POLICY: RetryPolicy = RetryPolicy::builder()
        .max_attempts(3)
        .backoff(Backoff::constant(Duration::from_secs(1)))
        .build_const();
    static GROUP: Coalesce<u32, String> = Coalesce::new();
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let price = |sku: u32| {
        (move || async move {
            // Fails once, then answers after a second.
            if CALLS.fetch_add(1, Ordering::Relaxed) == 0 {
                return Err("busy".to_owned());
            }
            tokio::time::sleep(secs(1)).await;
            Ok(sku * 100)
        })
        .retry(&POLICY)
        .coalesce(&GROUP, sku.to_string())
    };
    let (a, b, c) = tokio::join!(price(7), price(7), price(7));
    assert_eq!(
        CALLS.load(Ordering::Relaxed),
        2,
        "one run of two attempts for all three"
    );
    for outcome in [&a, &b, &c] {
        assert_eq!(outcome.result(), &Ok(700));
        assert_eq!(outcome.report().attempt_count(), 2);
        assert_eq!(outcome.report().delays(), [secs(1)]);
    }
    assert_eq!(a.report().coalesced(), None);
    assert_eq!(b.report().coalesced(), Some(secs(2)));
    assert_eq!(c.report().coalesced(), Some(secs(2)));
}
