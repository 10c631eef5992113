//! The bounded graceful shutdown recipe of `examples/graceful_shutdown.rs`,
//! on paused time: calls in flight finish within the grace period, are
//! stopped at its deadline with no attempt after it, and calls made after
//! shutdown began are refused without an attempt.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use resilient::{Attempt, Backoff, StopReason, resilient};
use tokio::time::{Instant, sleep};

// The recipe under test is the example's own `Shutdown`, not a copy.
#[allow(dead_code, reason = "the example's demo is not run here")]
#[path = "../../examples/graceful_shutdown.rs"]
mod recipe;

use recipe::{Shutdown, ShuttingDown};

const fn millis(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum ServiceError {
    #[error("service unavailable")]
    Unavailable,
}

/// A backend whose attempts take `work` and fail until attempt
/// `succeed_on`; it records when each attempt starts and ends.
struct Service {
    work: Duration,
    backoff: Backoff,
    succeed_on: u32,
    started: Mutex<Vec<Instant>>,
    finished: AtomicU32,
    fallbacks: AtomicU32,
}

impl Service {
    fn new(work: Duration, backoff: Duration, succeed_on: u32) -> Self {
        Service {
            work,
            backoff: Backoff::constant(backoff),
            succeed_on,
            started: Mutex::new(Vec::new()),
            finished: AtomicU32::new(0),
            fallbacks: AtomicU32::new(0),
        }
    }

    #[resilient(retries = 20, backoff = self.backoff, fallback = Self::cached)]
    async fn call(&self, #[attempt] attempt: Attempt) -> Result<u32, ServiceError> {
        self.started.lock().unwrap().push(Instant::now());
        sleep(self.work).await;
        self.finished.fetch_add(1, Ordering::SeqCst);
        if attempt.number() >= self.succeed_on {
            Ok(attempt.number())
        } else {
            Err(ServiceError::Unavailable)
        }
    }

    async fn cached(&self) -> Result<u32, ServiceError> {
        self.fallbacks.fetch_add(1, Ordering::SeqCst);
        Ok(0)
    }

    /// When each attempt started, as offsets from `start`.
    fn starts(&self, start: Instant) -> Vec<Duration> {
        let started = self.started.lock().unwrap();
        started.iter().map(|at| *at - start).collect()
    }

    fn attempts(&self) -> usize {
        self.started.lock().unwrap().len()
    }
}

/// Begins `shutdown` after `after`.
async fn begin_after(shutdown: &Shutdown, after: Duration) -> Instant {
    sleep(after).await;
    shutdown.begin()
}

#[tokio::test(start_paused = true)]
async fn a_call_that_succeeds_within_the_grace_period_completes_normally() {
    let shutdown = Shutdown::new(millis(1_000));
    // Attempts at 0, 150 and 300 ms; the third succeeds at 350 ms.
    let service = Service::new(millis(50), millis(100), 3);
    let start = Instant::now();

    let (result, deadline) = tokio::join!(
        shutdown.run(|| service.call()),
        begin_after(&shutdown, millis(60)),
    );

    assert_eq!(deadline, start + millis(1_060));
    let outcome = result.expect("the call ends before the grace deadline");
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.report().stop_reason(), StopReason::Succeeded);
    assert_eq!(outcome.into_result(), Ok(3));
    // Two of the attempts ran after shutdown began.
    assert_eq!(service.starts(start), [millis(0), millis(150), millis(300)]);
    assert_eq!(Instant::now() - start, millis(350));
    assert_eq!(service.fallbacks.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn a_call_retrying_past_the_grace_deadline_is_stopped_there() {
    let shutdown = Shutdown::new(millis(500));
    // Attempts at 0 and 350 ms; the next would start at 700 ms, after the
    // deadline at 560 ms.
    let service = Service::new(millis(50), millis(300), u32::MAX);
    let start = Instant::now();

    let (result, deadline) = tokio::join!(
        shutdown.run(|| service.call()),
        begin_after(&shutdown, millis(60)),
    );

    assert_eq!(
        result.err(),
        Some(ShuttingDown::GraceExpired { grace: millis(500) })
    );
    assert_eq!(deadline, start + millis(560));
    assert_eq!(
        Instant::now(),
        deadline,
        "stopped at the deadline, not later"
    );
    assert_eq!(service.starts(start), [millis(0), millis(350)]);

    sleep(Duration::from_secs(3_600)).await;
    assert_eq!(service.attempts(), 2, "no attempt after the deadline");
    assert_eq!(service.fallbacks.load(Ordering::SeqCst), 0, "no fallback");
}

#[tokio::test(start_paused = true)]
async fn an_attempt_running_at_the_grace_deadline_is_cancelled() {
    let shutdown = Shutdown::new(millis(500));
    // Attempts of 200 ms at 0, 250 and 500 ms: the third is running at the
    // deadline, 560 ms.
    let service = Service::new(millis(200), millis(50), u32::MAX);
    let start = Instant::now();

    let (result, deadline) = tokio::join!(
        shutdown.run(|| service.call()),
        begin_after(&shutdown, millis(60)),
    );

    assert_eq!(
        result.err(),
        Some(ShuttingDown::GraceExpired { grace: millis(500) })
    );
    assert_eq!(Instant::now(), deadline);
    assert_eq!(service.starts(start), [millis(0), millis(250), millis(500)]);
    assert_eq!(service.finished.load(Ordering::SeqCst), 2);

    sleep(Duration::from_secs(3_600)).await;
    assert_eq!(service.attempts(), 3, "no attempt after the deadline");
    assert_eq!(
        service.finished.load(Ordering::SeqCst),
        2,
        "the cut attempt never resumes"
    );
    assert_eq!(service.fallbacks.load(Ordering::SeqCst), 0, "no fallback");
}

#[tokio::test(start_paused = true)]
async fn no_attempt_starts_at_the_grace_deadline() {
    let shutdown = Shutdown::new(millis(200));
    // Attempts at 0 and 150 ms; the third is due at 300 ms, the deadline.
    let service = Service::new(millis(50), millis(100), u32::MAX);
    let start = Instant::now();

    let (result, deadline) = tokio::join!(
        shutdown.run(|| service.call()),
        begin_after(&shutdown, millis(100)),
    );

    assert_eq!(deadline, start + millis(300));
    assert_eq!(
        result.err(),
        Some(ShuttingDown::GraceExpired { grace: millis(200) })
    );
    sleep(Duration::from_secs(3_600)).await;
    assert_eq!(service.starts(start), [millis(0), millis(150)]);
}

#[tokio::test(start_paused = true)]
async fn calls_made_after_shutdown_began_are_refused_without_an_attempt() {
    let shutdown = Shutdown::new(millis(1_000));
    let in_flight = Service::new(millis(50), millis(100), 3);
    let late = Service::new(millis(50), millis(100), 1);
    let called = AtomicBool::new(false);

    let late_call = async {
        sleep(millis(100)).await;
        let before = Instant::now();
        let result = shutdown
            .run(|| {
                called.store(true, Ordering::SeqCst);
                late.call()
            })
            .await;
        assert_eq!(Instant::now(), before, "refused at once");
        result
    };
    let (in_flight_result, late_result, _) = tokio::join!(
        shutdown.run(|| in_flight.call()),
        late_call,
        begin_after(&shutdown, millis(60)),
    );

    // Refused during the grace period, while another call still runs.
    assert_eq!(late_result.err(), Some(ShuttingDown::Refused));
    assert!(!called.load(Ordering::SeqCst), "the call was never made");
    assert_eq!(late.attempts(), 0);
    assert_eq!(late.fallbacks.load(Ordering::SeqCst), 0);
    let outcome = in_flight_result.expect("the call in flight completes");
    assert_eq!(outcome.into_result(), Ok(3));

    // And refused after the grace period, too.
    sleep(Duration::from_secs(3_600)).await;
    let before = Instant::now();
    let result = shutdown.run(|| late.call()).await;
    assert_eq!(result.err(), Some(ShuttingDown::Refused));
    assert_eq!(Instant::now(), before);
    assert_eq!(late.attempts(), 0);
}

#[tokio::test(start_paused = true)]
async fn without_shutdown_a_call_runs_under_its_own_policy() {
    let shutdown = Shutdown::new(millis(10));
    // Retries until attempts run out, far beyond the grace period: it only
    // applies once shutdown begins.
    let service = Service::new(millis(50), millis(100), u32::MAX);
    let start = Instant::now();

    let outcome = shutdown
        .run(|| service.call())
        .await
        .expect("no shutdown, no interruption");

    assert_eq!(
        outcome.report().attempt_count(),
        22,
        "21 attempts and the fallback"
    );
    assert!(outcome.report().fallback_used());
    assert_eq!(outcome.into_result(), Ok(0));
    assert_eq!(Instant::now() - start, millis(21 * 50 + 20 * 100));
    assert_eq!(shutdown.deadline(), None);
}

#[tokio::test(start_paused = true)]
async fn beginning_again_keeps_the_first_deadline() {
    let shutdown = Shutdown::new(millis(500));
    let first = shutdown.begin();
    sleep(millis(200)).await;
    assert_eq!(shutdown.begin(), first);
    assert_eq!(shutdown.clone().deadline(), Some(first));
}

#[tokio::test(start_paused = true)]
async fn an_endless_grace_period_lets_calls_finish() {
    let shutdown = Shutdown::new(Duration::MAX);
    let service = Service::new(millis(50), millis(100), 3);

    let (result, deadline) = tokio::join!(
        shutdown.run(|| service.call()),
        begin_after(&shutdown, millis(60)),
    );

    assert!(deadline > Instant::now() + Duration::from_secs(3_600 * 24 * 365));
    assert_eq!(result.map(|outcome| outcome.into_result()), Ok(Ok(3)));
}
