//! `resilient::tower`: the layer runs each call through the engine, on
//! tokio's paused clock, so every wait and deadline is asserted exactly.
#![cfg(feature = "tower")]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use resilient_core::limit::{Bulkhead, RateLimiter};
use resilient_core::throttle::{AdaptiveThrottle, Rejected};
use resilient_core::tower::{ResilientLayer, Verdict};
use resilient_core::{
    AttemptKind, Backoff, CircuitBreaker, CircuitOpen, DelaySource, ExecutionReport, FailureKind,
    Jitter, LimitExceeded, RetryEvent, RetryPolicy, RetryThrottle, StopReason, TimedOut,
};
use tokio::time::Instant;
use tower::util::BoxService;
use tower::{BoxError, Layer, Service, ServiceBuilder, ServiceExt};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn exponential(base: Duration) -> Backoff {
    Backoff::exponential(base, secs(10)).jitter(Jitter::None)
}

/// The scripted service's error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("fault on call {0}")]
struct Fault(u32);

/// What the scripted service saw, in order, with the paused clock's time
/// since the test started.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Seen {
    Ready,
    Call(u32, Duration),
}

/// A service whose n-th call (from 1) answers `answer(n)` after `delay(n)`,
/// logging every `poll_ready` and `call` of every clone.
struct Script<F> {
    answer: Arc<F>,
    delay: fn(u32) -> Duration,
    log: Arc<Mutex<Vec<Seen>>>,
    start: Instant,
}

impl<F> Clone for Script<F> {
    fn clone(&self) -> Self {
        Script {
            answer: Arc::clone(&self.answer),
            delay: self.delay,
            log: Arc::clone(&self.log),
            start: self.start,
        }
    }
}

impl<F> Script<F> {
    fn new(answer: F) -> Self {
        Script {
            answer: Arc::new(answer),
            delay: |_| Duration::ZERO,
            log: Arc::default(),
            start: Instant::now(),
        }
    }

    fn slow(mut self, delay: fn(u32) -> Duration) -> Self {
        self.delay = delay;
        self
    }

    fn seen(&self) -> Vec<Seen> {
        self.log.lock().unwrap().clone()
    }

    /// When each call started.
    fn calls(&self) -> Vec<Duration> {
        self.seen()
            .into_iter()
            .filter_map(|seen| match seen {
                Seen::Call(_, at) => Some(at),
                Seen::Ready => None,
            })
            .collect()
    }
}

impl<Req, Res, F> Service<Req> for Script<F>
where
    F: Fn(u32) -> Result<Res, Fault>,
    Res: Send + 'static,
{
    type Response = Res;
    type Error = Fault;
    type Future = Pin<Box<dyn Future<Output = Result<Res, Fault>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Fault>> {
        self.log.lock().unwrap().push(Seen::Ready);
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Req) -> Self::Future {
        let mut log = self.log.lock().unwrap();
        let number = 1 + log.iter().filter(|s| matches!(s, Seen::Call(..))).count() as u32;
        log.push(Seen::Call(number, self.start.elapsed()));
        let (delay, result) = ((self.delay)(number), (self.answer)(number));
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            result
        })
    }
}

/// The reports a layer's hook received.
#[derive(Clone, Default)]
struct Reports(Arc<Mutex<Vec<ExecutionReport>>>);

impl Reports {
    fn hook(&self) -> impl Fn(&ExecutionReport) + Send + Sync + 'static {
        let reports = self.clone();
        move |report| reports.0.lock().unwrap().push(report.clone())
    }

    /// The only report received.
    fn only(&self) -> ExecutionReport {
        let reports = self.0.lock().unwrap();
        assert_eq!(reports.len(), 1, "one call, one report");
        reports[0].clone()
    }
}

/// `(source, duration)` of each wait before an attempt.
fn waits(report: &ExecutionReport) -> Vec<(DelaySource, Duration)> {
    report
        .attempts()
        .iter()
        .filter_map(|a| a.delay_before())
        .map(|d| (d.source(), d.duration()))
        .collect()
}

/// Each attempt's failure: kind, retryable, text; `None` for a success.
fn failures(report: &ExecutionReport) -> Vec<Option<(FailureKind, bool, String)>> {
    report
        .attempts()
        .iter()
        .map(|a| {
            a.error()
                .map(|e| (e.kind(), e.retryable(), e.message().to_owned()))
        })
        .collect()
}

fn failed(kind: FailureKind, retryable: bool, text: &str) -> Option<(FailureKind, bool, String)> {
    Some((kind, retryable, text.to_owned()))
}

/// Statuses as a toy protocol: 200 succeeds, 503 is retried, 429 asks for
/// 3 s, anything else is fatal; errors are retried.
fn statuses(result: &Result<u16, Fault>) -> Verdict {
    match result {
        Ok(200) => Verdict::Success,
        Ok(503) => Verdict::Retryable { retry_after: None },
        Ok(429) => Verdict::Retryable {
            retry_after: Some(secs(3)),
        },
        Ok(_) => Verdict::Fatal,
        Err(_) => Verdict::Retryable { retry_after: None },
    }
}

#[tokio::test(start_paused = true)]
async fn errors_are_retried_on_the_backoff_schedule() {
    let script = Script::new(|n| if n < 3 { Err(Fault(n)) } else { Ok(n) });
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .name("script")
        .retries(3)
        .backoff(exponential(ms(100)))
        .on_report(reports.hook());

    let started = Instant::now();
    let answer = layer.layer(script.clone()).oneshot(()).await.unwrap();

    assert_eq!(answer, 3);
    assert_eq!(started.elapsed(), ms(300));
    assert_eq!(script.calls(), [ms(0), ms(100), ms(300)]);
    let report = reports.only();
    assert_eq!(report.name(), "script");
    assert_eq!(report.attempt_count(), 3);
    assert_eq!(report.retry_count(), 2);
    assert_eq!(report.delays(), [ms(100), ms(200)]);
    assert_eq!(report.stop_reason(), StopReason::Succeeded);
    assert_eq!(
        failures(&report),
        [
            failed(FailureKind::Operation, true, "fault on call 1"),
            failed(FailureKind::Operation, true, "fault on call 2"),
            None,
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn first_attempt_uses_the_ready_service_and_retries_poll_their_clone() {
    let script = Script::new(|n| if n < 3 { Err(Fault(n)) } else { Ok(n) });
    let layer = ResilientLayer::new().retries(2).backoff(Backoff::none());

    layer.layer(script.clone()).oneshot(()).await.unwrap();

    let ready_then_call = |n| [Seen::Ready, Seen::Call(n, ms(0))];
    let expected: Vec<Seen> = (1..=3).flat_map(ready_then_call).collect();
    assert_eq!(script.seen(), expected);
}

#[tokio::test(start_paused = true)]
async fn the_last_error_is_returned_boxed_and_downcasts_to_the_services() {
    let script = Script::new(|n| Err::<u16, _>(Fault(n)));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(2)
        .backoff(Backoff::constant(secs(1)))
        .on_report(reports.hook());

    let error = layer.layer(script.clone()).oneshot(()).await.unwrap_err();

    assert_eq!(error.downcast_ref::<Fault>(), Some(&Fault(3)));
    assert_eq!(script.calls(), [secs(0), secs(1), secs(2)]);
    let report = reports.only();
    assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);
    assert_eq!(report.delays(), [secs(1), secs(1)]);
}

#[tokio::test(start_paused = true)]
async fn each_attempt_records_the_endpoint_its_key_function_names() {
    let script = Script::new(|n| {
        if n < 3 {
            Err::<u16, _>(Fault(n))
        } else {
            Ok(200)
        }
    });
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(3)
        .backoff(Backoff::none())
        .endpoint_key(|_: &()| "replica-a:8443".to_owned())
        .on_report(reports.hook());
    layer.layer(script.clone()).oneshot(()).await.unwrap();
    // The report hook sees them: they are written before it is told.
    let report = reports.only();
    let endpoints: Vec<_> = report.attempts().iter().map(|a| a.endpoint()).collect();
    assert_eq!(endpoints, [Some("replica-a:8443"); 3]);

    // Without a key function, no endpoint is known.
    let reports = Reports::default();
    let plain = ResilientLayer::new().on_report(reports.hook());
    plain
        .layer(Script::new(|_| Ok::<u16, Fault>(200)))
        .oneshot(())
        .await
        .unwrap();
    assert_eq!(reports.only().attempts()[0].endpoint(), None);
}

#[tokio::test(start_paused = true)]
async fn a_failing_response_is_retried_then_returned_as_the_answer() {
    let script = Script::new(|_| Ok::<u16, _>(503));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(2)
        .backoff(exponential(secs(1)))
        .classify(statuses)
        .on_report(reports.hook());

    let answer = layer.layer(script.clone()).oneshot(()).await.unwrap();

    assert_eq!(answer, 503, "the last response, though it failed");
    assert_eq!(script.calls(), [secs(0), secs(1), secs(3)]);
    let report = reports.only();
    assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);
    let refused = failed(
        FailureKind::Operation,
        true,
        "response classified as a failure",
    );
    assert_eq!(
        failures(&report),
        [refused.clone(), refused.clone(), refused]
    );
}

#[tokio::test(start_paused = true)]
async fn a_fatal_response_ends_the_call_after_one_attempt() {
    let script = Script::new(|_| Ok::<u16, _>(404));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(3)
        .classify(statuses)
        .on_report(reports.hook());

    let answer = layer.layer(script.clone()).oneshot(()).await.unwrap();

    assert_eq!(answer, 404);
    assert_eq!(script.calls(), [secs(0)]);
    let report = reports.only();
    assert_eq!(report.stop_reason(), StopReason::NotRetryable);
    assert_eq!(
        failures(&report),
        [failed(
            FailureKind::Operation,
            false,
            "response classified as a failure"
        )]
    );
}

#[tokio::test(start_paused = true)]
async fn success_given_to_an_error_ends_the_call_with_that_error() {
    let script = Script::new(|n| Err::<u16, _>(Fault(n)));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(3)
        .classify(|_: &Result<u16, Fault>| Verdict::Success)
        .on_report(reports.hook());

    let error = layer.layer(script.clone()).oneshot(()).await.unwrap_err();

    assert_eq!(error.downcast_ref::<Fault>(), Some(&Fault(1)));
    assert_eq!(script.calls(), [secs(0)]);
    assert_eq!(reports.only().stop_reason(), StopReason::NotRetryable);
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_wait_is_exact_and_spends_no_retry() {
    let script = Script::new(|n| Ok::<u16, _>(if n == 1 { 429 } else { 200 }));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .classify(statuses)
        .on_report(reports.hook());

    let answer = layer.layer(script.clone()).oneshot(()).await.unwrap();

    assert_eq!(
        answer, 200,
        "one attempt allowed, yet the hint was followed"
    );
    assert_eq!(script.calls(), [secs(0), secs(3)]);
    let report = reports.only();
    assert_eq!(waits(&report), [(DelaySource::RetryAfter, secs(3))]);
    assert_eq!(report.retry_count(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_wait_past_the_limit_is_not_taken() {
    let script = Script::new(|_| Ok::<u16, _>(429));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(5)
        .max_retry_after_wait(secs(5))
        .classify(statuses)
        .on_report(reports.hook());

    let answer = layer.layer(script.clone()).oneshot(()).await.unwrap();

    assert_eq!(answer, 429);
    assert_eq!(script.calls(), [secs(0), secs(3)], "3 s + 3 s is past 5 s");
    let report = reports.only();
    assert_eq!(report.stop_reason(), StopReason::RateLimitExhausted);
    assert_eq!(waits(&report), [(DelaySource::RetryAfter, secs(3))]);
}

#[tokio::test(start_paused = true)]
async fn a_timeout_cuts_each_attempt_and_the_last_one_returns_timed_out() {
    let script = Script::new(Ok::<u32, Fault>).slow(|_| secs(10));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(1)
        .backoff(Backoff::constant(ms(500)))
        .timeout(secs(2))
        .on_report(reports.hook());

    let started = Instant::now();
    let error = layer.layer(script.clone()).oneshot(()).await.unwrap_err();

    assert!(error.is::<TimedOut>(), "{error}");
    assert_eq!(started.elapsed(), ms(4500));
    assert_eq!(script.calls(), [secs(0), ms(2500)]);
    let report = reports.only();
    let timed_out = failed(FailureKind::Timeout, true, "attempt timed out");
    assert_eq!(failures(&report), [timed_out.clone(), timed_out]);
    let deadlines: Vec<_> = report.attempts().iter().map(|a| a.deadline()).collect();
    assert_eq!(deadlines, [Some(secs(2)), Some(secs(2))]);
}

#[tokio::test(start_paused = true)]
async fn the_budget_cuts_a_running_attempt_without_a_timeout() {
    let script = Script::new(Ok::<u32, Fault>).slow(|n| if n == 1 { secs(2) } else { secs(60) });
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(5)
        .backoff(Backoff::constant(secs(1)))
        .budget(secs(5))
        .classify(|result: &Result<u32, Fault>| match result {
            Ok(n) if *n > 1 => Verdict::Success,
            _ => Verdict::Retryable { retry_after: None },
        })
        .on_report(reports.hook());

    let started = Instant::now();
    let error = layer.layer(script.clone()).oneshot(()).await.unwrap_err();

    assert!(error.is::<TimedOut>(), "{error}");
    assert_eq!(started.elapsed(), secs(5));
    assert_eq!(script.calls(), [secs(0), secs(3)]);
    let report = reports.only();
    assert_eq!(report.stop_reason(), StopReason::BudgetExhausted);
    let deadlines: Vec<_> = report.attempts().iter().map(|a| a.deadline()).collect();
    assert_eq!(deadlines, [Some(secs(5)), Some(secs(2))]);
}

#[tokio::test(start_paused = true)]
async fn an_open_circuit_rejects_without_calling_and_returns_circuit_open() {
    let breaker = Arc::new(
        CircuitBreaker::builder()
            .failure_threshold(2)
            .break_duration(secs(30))
            .build()
            .unwrap(),
    );
    let script = Script::new(|n| Err::<u16, _>(Fault(n)));
    let reports = Reports::default();
    let service = ResilientLayer::new()
        .retries(1)
        .backoff(Backoff::constant(secs(1)))
        .circuit_breaker(Arc::clone(&breaker))
        .on_report(reports.hook())
        .layer(script.clone());

    let first = service.clone().oneshot(()).await.unwrap_err();
    let second = service.oneshot(()).await.unwrap_err();

    assert_eq!(first.downcast_ref::<Fault>(), Some(&Fault(2)));
    assert!(second.is::<CircuitOpen>(), "{second}");
    assert_eq!(
        script.calls(),
        [secs(0), secs(1)],
        "the second call ran nothing"
    );
    let report = reports.0.lock().unwrap()[1].clone();
    assert_eq!(report.stop_reason(), StopReason::CircuitOpen);
    let rejected = failed(FailureKind::CircuitOpen, true, "circuit breaker is open");
    assert_eq!(failures(&report), [rejected], "a rejection is not retried");
    assert!(
        report.delays().is_empty(),
        "no wait against an open breaker"
    );
}

#[tokio::test(start_paused = true)]
async fn a_static_breaker_serves_as_well() {
    static BREAKER: std::sync::LazyLock<CircuitBreaker> = std::sync::LazyLock::new(|| {
        CircuitBreaker::builder()
            .failure_threshold(1)
            .build()
            .unwrap()
    });
    let script = Script::new(|n| Err::<u16, _>(Fault(n)));
    let service = ResilientLayer::new()
        .retries(3)
        .backoff(Backoff::none())
        .circuit_breaker(&*BREAKER)
        .layer(script.clone());

    let error = service.oneshot(()).await.unwrap_err();

    assert!(error.is::<CircuitOpen>(), "{error}");
    assert_eq!(script.calls(), [secs(0)]);
}

#[tokio::test(start_paused = true)]
async fn a_shared_throttle_refuses_retries() {
    let throttle = Arc::new(RetryThrottle::new(4, 0.1));
    let script = Script::new(|n| Err::<u16, _>(Fault(n)));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(5)
        .backoff(Backoff::none())
        .throttle(Arc::clone(&throttle))
        .on_report(reports.hook());

    layer.layer(script.clone()).oneshot(()).await.unwrap_err();

    // 4 tokens; each failure takes one; a retry needs more than 2.
    assert_eq!(script.calls().len(), 2);
    assert_eq!(throttle.tokens(), 2.0);
    assert_eq!(reports.only().stop_reason(), StopReason::Throttled);
}

#[tokio::test(start_paused = true)]
async fn an_adaptive_throttle_sheds_calls_to_a_failing_service_before_they_are_sent() {
    static BACKEND: AdaptiveThrottle = AdaptiveThrottle::new().seed(12).named("tower");
    let script = Script::new(|n| Err::<u16, _>(Fault(n)));
    let layer = ResilientLayer::new().adaptive_throttle(&BACKEND);
    let mut shed = 0;
    for _ in 0..40 {
        let error = layer.layer(script.clone()).oneshot(()).await.unwrap_err();
        if error.is::<Rejected>() {
            shed += 1;
        } else {
            assert!(error.is::<Fault>(), "{error}");
        }
    }
    // Every call is a request; only those not shed reach the service.
    assert_eq!(script.calls().len() + shed, 40);
    assert_eq!(BACKEND.requests(), 40);
    assert_eq!(BACKEND.rejections(), shed as u64);
    assert!(shed > 20, "{shed} of 40 shed");
}

/// Sends `calls` requests at once through clones of `service`, and returns
/// each call's result in the order sent.
async fn at_once<S>(service: S, calls: usize) -> Vec<Result<u32, BoxError>>
where
    S: Service<(), Response = u32, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send,
{
    let tasks: Vec<_> = (0..calls)
        .map(|_| tokio::spawn(service.clone().oneshot(())))
        .collect();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.unwrap());
    }
    results
}

/// The reports received, sorted by when their attempt was queued, then by
/// the time each waited for its permits.
fn queued(reports: &Reports) -> Vec<(StopReason, Vec<Duration>)> {
    let mut all: Vec<_> = reports
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|r| {
            let queued = r.attempts().iter().map(|a| a.queued()).collect();
            (r.stop_reason(), queued)
        })
        .collect();
    all.sort_by_key(|(_, queued): &(StopReason, Vec<Duration>)| queued.clone());
    all
}

#[tokio::test(start_paused = true)]
async fn a_bulkhead_refuses_the_calls_beyond_its_permits_without_retrying() {
    static POOL: Bulkhead = Bulkhead::new(2).named("pool");
    let script = Script::new(Ok).slow(|_| ms(100));
    let reports = Reports::default();
    let service = ResilientLayer::new()
        .retries(3)
        .backoff(Backoff::none())
        .limit(&POOL)
        .on_report(reports.hook())
        .layer(script.clone());

    let results = at_once(service, 5).await;

    let refused: Vec<_> = results
        .iter()
        .filter_map(|r| r.as_ref().err())
        .map(|e| e.downcast_ref::<LimitExceeded>().copied())
        .collect();
    assert_eq!(refused, [Some(LimitExceeded::new("pool", None)); 3]);
    assert_eq!(script.calls(), [ms(0), ms(0)], "two ran, nothing retried");
    let succeeded = (StopReason::Succeeded, vec![ms(0)]);
    let limited = (StopReason::LimitExceeded, vec![ms(0)]);
    assert_eq!(
        queued(&reports),
        [
            limited.clone(),
            limited.clone(),
            limited,
            succeeded.clone(),
            succeeded
        ]
    );
    let refusal = failed(
        FailureKind::LimitExceeded,
        false,
        "limiter `pool` refused the attempt",
    );
    let report = reports.0.lock().unwrap()[0].clone();
    assert_eq!(failures(&report), [refusal]);
    assert_eq!(POOL.available(), 2, "every permit came back");
}

#[tokio::test(start_paused = true)]
async fn with_limit_wait_every_call_runs_two_at_a_time_and_reports_its_queue() {
    let pool = Arc::new(Bulkhead::new(2));
    let script = Script::new(Ok).slow(|_| ms(100));
    let reports = Reports::default();
    let service = ResilientLayer::new()
        .limit(Arc::clone(&pool))
        .limit_wait(secs(1))
        .on_report(reports.hook())
        .layer(script.clone());

    let results = at_once(service, 5).await;

    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(
        script.calls(),
        [ms(0), ms(0), ms(100), ms(100), ms(200)],
        "never more than two at once"
    );
    let ran = |waited| (StopReason::Succeeded, vec![ms(waited)]);
    assert_eq!(
        queued(&reports),
        [ran(0), ran(0), ran(100), ran(100), ran(200)]
    );
    assert_eq!(pool.available(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_rate_limit_wait_counts_against_the_budget() {
    static QUOTA: RateLimiter = RateLimiter::per_second(2).burst(1).named("quota");
    let script = Script::new(Ok);
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .budget(ms(300))
        .limit(&QUOTA)
        .limit_wait(secs(1))
        .on_report(reports.hook());

    let started = Instant::now();
    layer.layer(script.clone()).oneshot(()).await.unwrap();
    // The next cell is 500 ms away, past the budget: refused at once.
    let error = layer.layer(script.clone()).oneshot(()).await.unwrap_err();

    assert_eq!(
        error.downcast_ref::<LimitExceeded>(),
        Some(&LimitExceeded::new("quota", Some(ms(500))))
    );
    assert_eq!(started.elapsed(), ms(0));
    assert_eq!(script.calls(), [ms(0)]);
    let stops: Vec<_> = queued(&reports).into_iter().map(|(stop, _)| stop).collect();
    assert_eq!(stops, [StopReason::Succeeded, StopReason::LimitExceeded]);
}

#[tokio::test(start_paused = true)]
async fn a_policy_supplies_attempts_and_backoff_and_on_retry_hears_each_wait() {
    let policy = RetryPolicy::builder()
        .max_attempts(3)
        .backoff(Backoff::constant(secs(2)))
        .build()
        .unwrap();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let listener = Arc::clone(&heard);
    let script = Script::new(|n| Err::<u16, _>(Fault(n)));
    let layer = ResilientLayer::new()
        .policy(&policy)
        .on_retry(move |event: &RetryEvent<'_>| {
            listener
                .lock()
                .unwrap()
                .push((event.attempt(), event.delay()))
        });

    layer.layer(script.clone()).oneshot(()).await.unwrap_err();

    assert_eq!(script.calls(), [secs(0), secs(2), secs(4)]);
    assert_eq!(*heard.lock().unwrap(), [(1, secs(2)), (2, secs(2))]);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_call_stops_its_attempts() {
    let script = Script::new(|n| Err::<u16, _>(Fault(n)));
    let layer = ResilientLayer::new()
        .retries(5)
        .backoff(Backoff::constant(secs(10)));

    let call = layer.layer(script.clone()).oneshot(());
    assert!(tokio::time::timeout(secs(15), call).await.is_err());
    tokio::time::sleep(secs(100)).await;

    assert_eq!(script.calls(), [secs(0), secs(10)]);
}

#[tokio::test(start_paused = true)]
async fn stacks_with_towers_timeout_and_concurrency_limit() {
    // tower's timeout inside cuts each attempt; its `Elapsed` is retried.
    // The concurrency limit of 1 inside takes a permit per attempt: a
    // retry that held a second one would wait forever.
    let script = Script::new(Ok::<u32, Fault>).slow(|n| if n == 1 { secs(5) } else { ms(10) });
    let reports = Reports::default();
    let service = ServiceBuilder::new()
        .concurrency_limit(1)
        .layer(
            ResilientLayer::new()
                .retries(2)
                .backoff(exponential(ms(100)))
                .on_report(reports.hook()),
        )
        .timeout(secs(1))
        .concurrency_limit(1)
        .service(script.clone());

    let call = service.oneshot(());
    let answer = tokio::time::timeout(secs(60), call)
        .await
        .expect("no deadlock");

    assert_eq!(answer.unwrap(), 2);
    assert_eq!(script.calls(), [ms(0), ms(1100)]);
    let report = reports.only();
    assert_eq!(report.delays(), [ms(100)]);
    assert_eq!(report.elapsed(), ms(1110));
    assert_eq!(
        failures(&report),
        [
            failed(FailureKind::Operation, true, "request timed out"),
            None
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn the_service_boxes_and_its_future_spawns() {
    let script = Script::new(|n| if n < 2 { Err(Fault(n)) } else { Ok(n) });
    let layer = ResilientLayer::new()
        .retries(1)
        .backoff(Backoff::constant(secs(1)));
    let mut service: BoxService<(), u32, BoxError> = BoxService::new(layer.layer(script.clone()));

    let future = service.ready().await.unwrap().call(());
    let answer = tokio::spawn(future).await.unwrap().unwrap();

    assert_eq!(answer, 2);
    assert_eq!(script.calls(), [secs(0), secs(1)]);
}

#[tokio::test(start_paused = true)]
async fn a_layer_is_cloned_with_its_configuration() {
    let script = Script::new(|n| if n < 3 { Err(Fault(n)) } else { Ok(n) });
    let layer = ResilientLayer::new()
        .retries(2)
        .backoff(Backoff::constant(secs(1)));
    let clone = layer.clone();
    drop(layer);

    assert_eq!(clone.layer(script.clone()).oneshot(()).await.unwrap(), 3);
    assert_eq!(script.calls(), [secs(0), secs(1), secs(2)]);
}

#[cfg(feature = "http")]
mod http {
    use super::*;
    use ::http::{Request, Response, StatusCode, header::RETRY_AFTER};
    use resilient_core::tower::{HttpClassifier, ReportExtension};

    fn response(n: u32) -> Result<Response<()>, Fault> {
        let response = match n {
            1 => Response::builder().status(StatusCode::SERVICE_UNAVAILABLE),
            2 => Response::builder()
                .status(StatusCode::TOO_MANY_REQUESTS)
                .header(RETRY_AFTER, "1"),
            _ => Response::builder().status(StatusCode::OK),
        };
        Ok(response.body(()).unwrap())
    }

    /// One request through `layer` with the HTTP classifier, the report in
    /// the response.
    async fn get<F>(layer: ResilientLayer, script: &Script<F>) -> Response<()>
    where
        F: Fn(u32) -> Result<Response<()>, Fault> + Send + Sync + 'static,
    {
        let layer = layer
            .classify(HttpClassifier)
            .attach_report(ReportExtension);
        let service = layer.layer(script.clone());
        service.oneshot(Request::new(())).await.unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn statuses_follow_the_table_and_the_report_rides_the_response() {
        let script = Script::new(response);
        let layer = ResilientLayer::new()
            .retries(3)
            .backoff(exponential(ms(50)));

        let answer = get(layer, &script).await;

        assert_eq!(answer.status(), StatusCode::OK);
        assert_eq!(script.calls(), [ms(0), ms(50), ms(1050)]);
        let report = answer.extensions().get::<ExecutionReport>().unwrap();
        assert_eq!(report.attempt_count(), 3);
        assert_eq!(
            waits(report),
            [
                (DelaySource::Backoff, ms(50)),
                (DelaySource::RetryAfter, secs(1))
            ]
        );
        assert_eq!(
            failures(report),
            [
                failed(FailureKind::Operation, true, "HTTP 503 Service Unavailable"),
                failed(FailureKind::Operation, true, "HTTP 429 Too Many Requests"),
                None,
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_404_is_asked_for_once_and_returned_with_its_report() {
        let script =
            Script::new(|_| Ok::<_, Fault>(Response::builder().status(404).body(()).unwrap()));
        let answer = get(ResilientLayer::new().retries(3), &script).await;

        assert_eq!(answer.status(), StatusCode::NOT_FOUND);
        assert_eq!(script.calls(), [secs(0)]);
        let report = answer.extensions().get::<ExecutionReport>().unwrap();
        assert_eq!(report.stop_reason(), StopReason::NotRetryable);
        assert_eq!(
            failures(report),
            [failed(FailureKind::Operation, false, "HTTP 404 Not Found")]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn transport_errors_are_retried() {
        let script = Script::new(|n| if n == 1 { Err(Fault(1)) } else { response(3) });
        let layer = ResilientLayer::new()
            .retries(1)
            .backoff(Backoff::constant(secs(2)));

        let answer = get(layer, &script).await;

        assert_eq!(answer.status(), StatusCode::OK);
        assert_eq!(script.calls(), [secs(0), secs(2)]);
    }
}

/// A request that isn't `Clone`: a body the client can copy while it is
/// in memory, and not once it is a stream.
#[derive(Debug, PartialEq)]
enum Upload {
    Buffered(u32),
    Streamed(u32),
}

/// `clone_request` for `Upload`, counting its calls.
fn copier(count: &Arc<Mutex<u32>>) -> impl Fn(&Upload) -> Option<Upload> + Clone + use<> {
    let count = Arc::clone(count);
    move |upload: &Upload| {
        *count.lock().unwrap() += 1;
        match upload {
            Upload::Buffered(id) => Some(Upload::Buffered(*id)),
            Upload::Streamed(_) => None,
        }
    }
}

/// A service that records the uploads it receives and answers `answer(n)`
/// to the n-th after `delay`.
fn uploads(
    answer: fn(u32) -> Result<u16, Fault>,
    delay: Duration,
) -> (
    impl Service<Upload, Response = u16, Error = Fault, Future: Send> + Clone + Send + 'static,
    Arc<Mutex<Vec<Upload>>>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let service = tower::service_fn(move |upload: Upload| {
        let n = {
            let mut seen = log.lock().unwrap();
            seen.push(upload);
            seen.len() as u32
        };
        async move {
            tokio::time::sleep(delay).await;
            answer(n)
        }
    });
    (service, seen)
}

#[tokio::test(start_paused = true)]
async fn clone_request_copies_a_request_that_is_not_clone_for_each_attempt() {
    let (service, seen) = uploads(|n| if n < 3 { Ok(503) } else { Ok(200) }, ms(0));
    let copies = Arc::new(Mutex::new(0));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(3)
        .backoff(exponential(ms(100)))
        .classify(statuses)
        .on_report(reports.hook())
        .clone_request(copier(&copies));

    let answer = layer
        .layer(service)
        .oneshot(Upload::Buffered(7))
        .await
        .unwrap();

    assert_eq!(answer, 200);
    assert_eq!(
        *seen.lock().unwrap(),
        [1, 2, 3].map(|_| Upload::Buffered(7))
    );
    assert_eq!(*copies.lock().unwrap(), 3, "one copy per attempt, no more");
    let report = reports.only();
    assert_eq!(report.delays(), [ms(100), ms(200)]);
    assert_eq!(report.stop_reason(), StopReason::Succeeded);
}

#[tokio::test(start_paused = true)]
async fn a_request_that_cannot_be_copied_is_sent_once_and_the_report_says_why() {
    let (service, seen) = uploads(|_| Ok(503), ms(0));
    let copies = Arc::new(Mutex::new(0));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(3)
        .backoff(exponential(ms(100)))
        .classify(statuses)
        .on_report(reports.hook())
        .clone_request(copier(&copies));

    let started = Instant::now();
    let answer = layer
        .layer(service)
        .oneshot(Upload::Streamed(9))
        .await
        .unwrap();

    assert_eq!(answer, 503, "the server's answer, as it is");
    assert_eq!(started.elapsed(), Duration::ZERO, "no wait");
    assert_eq!(*seen.lock().unwrap(), [Upload::Streamed(9)]);
    assert_eq!(*copies.lock().unwrap(), 1, "asked once, before the attempt");
    let report = reports.only();
    assert_eq!(report.attempt_count(), 1);
    assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);
    assert_eq!(
        failures(&report),
        [failed(
            FailureKind::Operation,
            true,
            "response classified as a failure (not retried: the request can't be cloned)"
        )]
    );
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_on_a_request_sent_once_is_not_waited_for() {
    let (service, seen) = uploads(|_| Ok(429), ms(0));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(3)
        .classify(statuses)
        .on_report(reports.hook())
        .clone_request(copier(&Arc::default()));

    let started = Instant::now();
    let answer = layer
        .layer(service)
        .oneshot(Upload::Streamed(1))
        .await
        .unwrap();

    assert_eq!(answer, 429);
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert_eq!(seen.lock().unwrap().len(), 1);
    let report = reports.only();
    assert_eq!(report.attempt_count(), 1);
    assert_eq!(report.delays(), []);
}

#[tokio::test(start_paused = true)]
async fn a_request_sent_once_still_gets_its_timeout() {
    let (service, seen) = uploads(|_| Ok(200), secs(60));
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(3)
        .timeout(secs(2))
        .on_report(reports.hook())
        .clone_request(copier(&Arc::default()));

    let started = Instant::now();
    let error = layer
        .layer(service)
        .oneshot(Upload::Streamed(1))
        .await
        .unwrap_err();

    assert!(error.is::<TimedOut>(), "{error}");
    assert_eq!(started.elapsed(), secs(2));
    assert_eq!(seen.lock().unwrap().len(), 1);
    let report = reports.only();
    assert_eq!(report.attempt_count(), 1);
    assert_eq!(report.attempts()[0].deadline(), Some(secs(2)));
}

#[tokio::test(start_paused = true)]
async fn a_copy_refused_after_the_first_sends_the_original_last_and_never_panics() {
    let (service, seen) = uploads(|_| Err(Fault(0)), ms(0));
    let calls = Arc::new(Mutex::new(0));
    let count = Arc::clone(&calls);
    // Copies once, then refuses: the original goes with the second attempt.
    let fickle = move |upload: &Upload| {
        let mut calls = count.lock().unwrap();
        *calls += 1;
        match upload {
            Upload::Buffered(id) if *calls == 1 => Some(Upload::Buffered(*id + 100)),
            _ => None,
        }
    };
    let reports = Reports::default();
    let layer = ResilientLayer::new()
        .retries(3)
        .backoff(Backoff::none())
        .on_report(reports.hook())
        .clone_request(fickle);

    let error = layer
        .layer(service)
        .oneshot(Upload::Buffered(1))
        .await
        .unwrap_err();

    assert_eq!(error.downcast_ref::<Fault>(), Some(&Fault(0)));
    assert_eq!(
        *seen.lock().unwrap(),
        [Upload::Buffered(101), Upload::Buffered(1)]
    );
    let report = reports.only();
    assert_eq!(report.attempt_count(), 2);
    assert_eq!(report.stop_reason(), StopReason::NotRetryable);
    assert_eq!(
        failures(&report),
        [
            failed(FailureKind::Operation, true, "fault on call 0"),
            failed(
                FailureKind::Operation,
                false,
                "fault on call 0 (not retried: the request can't be cloned)"
            ),
        ]
    );
}

/// The kinds of a report's attempts, and how each failed attempt failed.
fn kinds(report: &ExecutionReport) -> Vec<(AttemptKind, Option<FailureKind>)> {
    report
        .attempts()
        .iter()
        .map(|a| (a.kind(), a.error().map(|e| e.kind())))
        .collect()
}

/// A call still running at the hedge delay gets a second one beside it,
/// exactly then; the hedge's answer wins, the first is cancelled, and no
/// retry was spent.
#[tokio::test(start_paused = true)]
async fn a_slow_call_is_hedged_at_the_delay_and_the_hedge_wins() {
    let script = Script::new(Ok::<u32, Fault>).slow(|n| if n == 1 { secs(10) } else { ms(50) });
    let reports = Reports::default();
    let service = ResilientLayer::new()
        .retries(1)
        .hedge(ms(200))
        .on_report(reports.hook())
        .layer(script.clone());

    let start = Instant::now();
    assert_eq!(service.oneshot(7u32).await.unwrap(), 2);

    assert_eq!(start.elapsed(), ms(250));
    assert_eq!(script.calls(), [Duration::ZERO, ms(200)]);
    let report = reports.only();
    assert_eq!(
        kinds(&report),
        [
            (AttemptKind::Primary, Some(FailureKind::Cancelled)),
            (AttemptKind::Hedge, None)
        ]
    );
    assert_eq!(report.attempts()[1].started_at(), ms(200));
    assert_eq!((report.attempt_count(), report.retry_count()), (2, 0));
}

/// `hedge_if` decides per request: a request it refuses runs one attempt
/// at a time, however slow; one it accepts is hedged.
#[tokio::test(start_paused = true)]
async fn hedge_if_keeps_the_requests_it_refuses_to_one_attempt_at_a_time() {
    let layer = ResilientLayer::new()
        .hedge(ms(200))
        .max_hedges(2)
        .hedge_if(|request: &u32| request.is_multiple_of(2));
    let slow_first = |n| if n == 1 { secs(10) } else { ms(50) };

    let refused = Script::new(Ok::<u32, Fault>).slow(slow_first);
    let start = Instant::now();
    assert_eq!(layer.layer(refused.clone()).oneshot(7u32).await.unwrap(), 1);
    assert_eq!(start.elapsed(), secs(10));
    assert_eq!(refused.calls(), [Duration::ZERO]);

    let accepted = Script::new(Ok::<u32, Fault>).slow(slow_first);
    let start = Instant::now();
    assert_eq!(
        layer.layer(accepted.clone()).oneshot(8u32).await.unwrap(),
        2
    );
    assert_eq!(start.elapsed(), ms(250));
    assert_eq!(accepted.calls(), [Duration::ZERO, ms(200)]);
}
