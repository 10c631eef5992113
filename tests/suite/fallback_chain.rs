//! Fallback chains, `fallback = [a, b, …]`: the candidates run in order
//! after the primary attempts fail, until one succeeds. Each is an attempt
//! of kind `Fallback`, never a retry, and records its failure like any
//! attempt; every candidate but the last gets clones of the arguments.
//! Through the attribute, blocking and async, and through `Operation`.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::{
    Attempt, AttemptKind, Backoff, FailureKind, FakeClock, Operation, StopReason, TokioClock,
    resilient,
};

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum StoreError {
    #[error("{0} unavailable")]
    Unavailable(&'static str),
    #[error("{0}: not found")]
    NotFound(&'static str),
}

/// A key whose clones are counted, to see which candidates got a copy.
#[derive(Debug)]
struct Key {
    name: &'static str,
    clones: Arc<AtomicU32>,
}

impl Key {
    fn new(name: &'static str) -> Self {
        Key {
            name,
            clones: Arc::new(AtomicU32::new(0)),
        }
    }
}

impl Clone for Key {
    fn clone(&self) -> Self {
        self.clones.fetch_add(1, Ordering::SeqCst);
        Key {
            name: self.name,
            clones: Arc::clone(&self.clones),
        }
    }
}

/// What each party answers, and the log of who ran: the primary always
/// fails, retryably; a candidate fails with the error listed for it, or
/// else succeeds.
struct Script {
    failing: Vec<(&'static str, StoreError)>,
    log: Mutex<Vec<String>>,
    clock: FakeClock,
}

impl Script {
    fn new(failing: &[(&'static str, StoreError)]) -> Self {
        let mut failing = failing.to_vec();
        failing.push(("primary", StoreError::Unavailable("primary")));
        Script {
            failing,
            log: Mutex::new(Vec::new()),
            clock: FakeClock::new(),
        }
    }

    fn answer(&self, who: &'static str, key: &Key, attempt: Attempt) -> Result<String, StoreError> {
        let line = format!("{who} {} #{}", key.name, attempt.number());
        self.log.lock().unwrap().push(line);
        match self.failing.iter().find(|(name, _)| *name == who) {
            Some((_, error)) => Err(error.clone()),
            None => Ok(format!("{who}: {}", key.name)),
        }
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

/// A failure as recorded: its kind, retryable flag and text.
type Failure = Option<(FailureKind, bool, String)>;

/// Each record's kind and failure.
fn records(report: &resilient::ExecutionReport) -> Vec<(AttemptKind, Failure)> {
    report
        .attempts()
        .iter()
        .map(|r| {
            let error = r
                .error()
                .map(|e| (e.kind(), e.retryable(), e.message().to_owned()));
            (r.kind(), error)
        })
        .collect()
}

fn failed(retryable: bool, text: &str) -> Failure {
    Some((FailureKind::Operation, retryable, text.to_owned()))
}

// ---- blocking -------------------------------------------------------------------

#[resilient(
    retries = 1,
    retry_on = [Unavailable],
    backoff = constant("1s"),
    clock = &script.clock,
    fallback = [replica, cache, origin],
)]
fn read(key: Key, script: &Script, #[attempt] attempt: Attempt) -> Result<String, StoreError> {
    script.answer("primary", &key, attempt)
}

fn replica(key: Key, script: &Script, attempt: Attempt) -> Result<String, StoreError> {
    script.answer("replica", &key, attempt)
}

fn cache(key: Key, script: &Script, attempt: Attempt) -> Result<String, StoreError> {
    script.answer("cache", &key, attempt)
}

fn origin(key: Key, script: &Script, attempt: Attempt) -> Result<String, StoreError> {
    script.answer("origin", &key, attempt)
}

#[test]
fn the_chain_runs_in_order_and_stops_at_the_first_success() {
    let key = Key::new("user:7");
    let clones = Arc::clone(&key.clones);
    let script = Script::new(&[("replica", StoreError::Unavailable("replica"))]);
    let outcome = read(key, &script);

    assert_eq!(
        script.log(),
        [
            "primary user:7 #1",
            "primary user:7 #2",
            "replica user:7 #3",
            "cache user:7 #4"
        ],
        "`origin` never runs"
    );
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 4, "both candidates are attempts");
    assert_eq!(report.retry_count(), 1, "primary retries only");
    assert!(report.fallback_used());
    assert_eq!(
        report.stop_reason(),
        StopReason::AttemptsExhausted,
        "why the primary attempts ended"
    );
    use AttemptKind::{Fallback, Primary};
    assert_eq!(
        records(report),
        [
            (Primary, failed(true, "primary unavailable")),
            (Primary, failed(true, "primary unavailable")),
            (Fallback, failed(true, "replica unavailable")),
            (Fallback, None),
        ]
    );
    // No wait before a fallback: the backoff is for retries.
    assert_eq!(script.clock.slept(), [secs(1)]);
    assert_eq!(report.delays(), [secs(1)]);
    // `replica` and `cache` are not last: each got a clone.
    assert_eq!(clones.load(Ordering::SeqCst), 2);
    assert_eq!(outcome.into_result().unwrap(), "cache: user:7");
}

#[test]
fn a_candidates_failure_records_its_retryable_flag_and_the_last_error_is_the_calls() {
    let key = Key::new("user:8");
    let clones = Arc::clone(&key.clones);
    let script = Script::new(&[
        ("replica", StoreError::NotFound("replica")),
        ("cache", StoreError::Unavailable("cache")),
        ("origin", StoreError::NotFound("origin")),
    ]);
    let outcome = read(key, &script);
    use AttemptKind::{Fallback, Primary};
    assert_eq!(
        records(outcome.report()),
        [
            (Primary, failed(true, "primary unavailable")),
            (Primary, failed(true, "primary unavailable")),
            (Fallback, failed(false, "replica: not found")),
            (Fallback, failed(true, "cache unavailable")),
            (Fallback, failed(false, "origin: not found")),
        ]
    );
    assert_eq!(outcome.report().attempt_count(), 5);
    assert_eq!(outcome.report().retry_count(), 1);
    // The last candidate takes the caller's key itself.
    assert_eq!(clones.load(Ordering::SeqCst), 2);
    assert_eq!(outcome.into_result(), Err(StoreError::NotFound("origin")));
}

#[test]
fn a_first_candidate_that_succeeds_ends_the_chain() {
    let key = Key::new("user:9");
    let clones = Arc::clone(&key.clones);
    let script = Script::new(&[]);
    let outcome = read(key, &script);
    assert_eq!(
        script.log(),
        [
            "primary user:9 #1",
            "primary user:9 #2",
            "replica user:9 #3"
        ]
    );
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(clones.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.into_result().unwrap(), "replica: user:9");
}

#[resilient(retries = 1, backoff = none, fallback = cache)]
fn read_once(key: Key, script: &Script, #[attempt] attempt: Attempt) -> Result<String, StoreError> {
    script.answer("primary", &key, attempt)
}

#[test]
fn a_single_fallback_takes_the_arguments_themselves() {
    let key = Key::new("user:1");
    let clones = Arc::clone(&key.clones);
    let script = Script::new(&[]);
    let outcome = read_once(key, &script);
    assert_eq!(clones.load(Ordering::SeqCst), 0);
    use AttemptKind::{Fallback, Primary};
    assert_eq!(
        records(outcome.report()),
        [
            (Primary, failed(true, "primary unavailable")),
            (Primary, failed(true, "primary unavailable")),
            (Fallback, None),
        ]
    );
    assert_eq!(outcome.into_result().unwrap(), "cache: user:1");
}

// ---- async, on a method ------------------------------------------------------------

struct Store {
    script: Script,
}

impl Store {
    #[resilient(
        retries = 2,
        retry_on = [Unavailable],
        backoff = constant("1s"),
        fallback = [Self::replica, Self::cache],
    )]
    async fn read(&self, key: Key, #[attempt] attempt: Attempt) -> Result<String, StoreError> {
        tokio::time::sleep(secs(2)).await;
        self.script.answer("primary", &key, attempt)
    }

    async fn replica(&self, key: Key, attempt: Attempt) -> Result<String, StoreError> {
        tokio::time::sleep(secs(3)).await;
        self.script.answer("replica", &key, attempt)
    }

    async fn cache(&self, key: Key, attempt: Attempt) -> Result<String, StoreError> {
        self.script.answer("cache", &key, attempt)
    }
}

#[tokio::test(start_paused = true)]
async fn an_async_chain_runs_each_candidate_after_the_one_before_fails() {
    let store = Store {
        script: Script::new(&[("replica", StoreError::NotFound("replica"))]),
    };
    let key = Key::new("user:2");
    let clones = Arc::clone(&key.clones);
    let outcome = store.read(key).await;
    assert_eq!(
        store.script.log(),
        [
            "primary user:2 #1",
            "primary user:2 #2",
            "primary user:2 #3",
            "replica user:2 #4",
            "cache user:2 #5"
        ]
    );
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 5);
    assert_eq!(report.retry_count(), 2);
    assert!(report.fallback_used());
    use AttemptKind::{Fallback, Primary};
    assert_eq!(
        records(report),
        [
            (Primary, failed(true, "primary unavailable")),
            (Primary, failed(true, "primary unavailable")),
            (Primary, failed(true, "primary unavailable")),
            (Fallback, failed(false, "replica: not found")),
            (Fallback, None),
        ]
    );
    // Three attempts of 2 s and two waits of 1 s, then `replica`'s 3 s;
    // `cache` starts when `replica` ends.
    let starts: Vec<_> = report.attempts().iter().map(|r| r.started_at()).collect();
    assert_eq!(starts, [0, 3, 6, 8, 11].map(secs));
    assert_eq!(report.elapsed(), secs(11));
    assert_eq!(clones.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.into_result().unwrap(), "cache: user:2");
}

// ---- through `Operation` -------------------------------------------------------------

#[test]
fn operation_runs_a_blocking_chain_while_a_fallback_is_due() {
    let clock = FakeClock::new();
    let ran = Mutex::new(Vec::new());
    let operation = Operation::new()
        .max_attempts(2)
        .backoff(Backoff::constant(secs(1)))
        .retry_if(|e: &StoreError| matches!(e, StoreError::Unavailable(_)))
        .clock(&clock);
    let Err(mut exec) = operation.run_primary(|_| Err(StoreError::Unavailable("primary"))) else {
        panic!("every primary attempt fails");
    };
    assert!(exec.needs_fallback());
    // Each candidate answers the error before it: the primary's, then the
    // replica's.
    exec.fallback_blocking(|error, attempt| {
        assert_eq!(*error, StoreError::Unavailable("primary"));
        ran.lock().unwrap().push(("replica", attempt.number()));
        clock.advance(secs(2));
        Err(StoreError::NotFound("replica"))
    });
    assert!(exec.needs_fallback(), "the first candidate failed");
    exec.fallback_blocking(|error, attempt| {
        assert_eq!(*error, StoreError::NotFound("replica"));
        ran.lock().unwrap().push(("cache", attempt.number()));
        Ok(String::from("cached"))
    });
    assert!(!exec.needs_fallback(), "the second candidate succeeded");
    let outcome = exec.finish();

    assert_eq!(*ran.lock().unwrap(), [("replica", 3), ("cache", 4)]);
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 4);
    assert_eq!(report.retry_count(), 1);
    assert!(report.fallback_used());
    assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);
    use AttemptKind::{Fallback, Primary};
    assert_eq!(
        records(report),
        [
            (Primary, failed(true, "primary unavailable")),
            (Primary, failed(true, "primary unavailable")),
            (Fallback, failed(false, "replica: not found")),
            (Fallback, None),
        ]
    );
    let starts: Vec<_> = report.attempts().iter().map(|r| r.started_at()).collect();
    assert_eq!(starts, [0, 1, 1, 3].map(secs));
    assert_eq!(outcome.into_result().unwrap(), "cached");
}

#[tokio::test(start_paused = true)]
async fn operation_runs_an_async_chain_while_a_fallback_is_due() {
    let operation = Operation::new()
        .max_attempts(3)
        .backoff(Backoff::none())
        .clock(TokioClock);
    let Err(mut exec) = operation
        .run_primary_async(async |_| Err::<u32, _>(StoreError::Unavailable("primary")))
        .await
    else {
        panic!("every primary attempt fails");
    };
    exec.fallback_async(async |_, _| Err(StoreError::Unavailable("replica")))
        .await;
    assert!(exec.needs_fallback());
    exec.fallback_async(async |error: &StoreError, attempt: Attempt| {
        assert_eq!(*error, StoreError::Unavailable("replica"));
        Ok(attempt.number() * 10)
    })
    .await;
    assert!(!exec.needs_fallback(), "no candidate runs after a success");
    let outcome = exec.finish();
    assert_eq!(outcome.report().attempt_count(), 5);
    assert_eq!(outcome.report().retry_count(), 2);
    use AttemptKind::{Fallback, Primary};
    assert_eq!(
        records(outcome.report()),
        [
            (Primary, failed(true, "primary unavailable")),
            (Primary, failed(true, "primary unavailable")),
            (Primary, failed(true, "primary unavailable")),
            (Fallback, failed(true, "replica unavailable")),
            (Fallback, None),
        ]
    );
    assert_eq!(outcome.into_result(), Ok(50));
}
