//! `#[resilient]` end to end: counting, schedules, caps, jitter,
//! cancellation and panics, on virtual time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient::{
    Attempt, AttemptKind, Backoff, DelaySource, FailureKind, FakeClock, Jitter, RetryPolicy,
    StopReason, TimedOut, resilient,
};

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

const fn millis(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum ProviderError {
    #[error("timed out")]
    Timeout,
    #[error("transient failure {0}")]
    Transient(u32),
    #[error("invalid request")]
    Invalid { field: String },
}

impl From<TimedOut> for ProviderError {
    fn from(_: TimedOut) -> Self {
        ProviderError::Timeout
    }
}

// ---- counting -------------------------------------------------------------

#[resilient(retries = 3, backoff = none, clock = clock)]
fn always_fails(clock: &FakeClock, calls: &AtomicU32) -> Result<(), ProviderError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Err(ProviderError::Transient(1))
}

#[test]
fn retries_3_makes_4_attempts_and_3_retries() {
    let (clock, calls) = (FakeClock::new(), AtomicU32::new(0));
    let outcome = always_fails(&clock, &calls);
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(outcome.report().retry_count(), 3);
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
}

#[resilient(retries = 0)]
fn retries_zero(calls: &AtomicU32) -> Result<(), ProviderError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Err(ProviderError::Transient(0))
}

#[resilient]
fn no_options(calls: &AtomicU32) -> Result<(), ProviderError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Err(ProviderError::Transient(0))
}

#[test]
fn retries_0_and_no_retry_option_make_one_attempt() {
    for outcome in [
        retries_zero(&AtomicU32::new(0)),
        no_options(&AtomicU32::new(0)),
    ] {
        assert_eq!(outcome.report().attempt_count(), 1);
        assert_eq!(outcome.report().retry_count(), 0);
        assert_eq!(
            outcome.report().stop_reason(),
            StopReason::AttemptsExhausted
        );
        let flags: Vec<_> = outcome
            .report()
            .attempts()
            .iter()
            .map(|r| r.error().unwrap().retryable())
            .collect();
        assert_eq!(flags, [true]);
    }
}

fn cached(_clock: &FakeClock, calls: &AtomicU32) -> Result<String, ProviderError> {
    calls.fetch_add(100, Ordering::SeqCst);
    Ok("cached".into())
}

#[resilient(retries = 2, retry_on = [Transient], backoff = none, clock = clock, fallback = cached)]
fn with_fallback(clock: &FakeClock, calls: &AtomicU32) -> Result<String, ProviderError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Err(ProviderError::Transient(calls.load(Ordering::SeqCst)))
}

#[test]
fn fallback_is_an_attempt_never_a_retry() {
    let (clock, calls) = (FakeClock::new(), AtomicU32::new(0));
    let outcome = with_fallback(&clock, &calls);
    assert_eq!(calls.load(Ordering::SeqCst), 103);
    let report = outcome.report();
    assert_eq!(report.attempt_count(), 4);
    assert_eq!(report.retry_count(), 2);
    assert!(report.fallback_used());
    let kinds: Vec<_> = report.attempts().iter().map(|r| r.kind()).collect();
    use AttemptKind::{Fallback, Primary};
    assert_eq!(kinds, [Primary, Primary, Primary, Fallback]);
    assert_eq!(outcome.into_result().unwrap(), "cached");
}

#[resilient(retries = 3, retry_on = [Timeout, Transient], backoff = none)]
fn classified(#[attempt] attempt: Attempt) -> Result<(), ProviderError> {
    match attempt.number() {
        1 => Err(ProviderError::Transient(1)),
        2 => Err(ProviderError::Timeout),
        _ => Err(ProviderError::Invalid {
            field: "prompt".into(),
        }),
    }
}

#[test]
fn each_failure_records_its_retryable_flag_final_one_included() {
    let outcome = classified();
    let flags: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|r| r.error().unwrap().retryable())
        .collect();
    assert_eq!(flags, [true, true, false]);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert_eq!(outcome.report().retry_count(), 2);
}

// ---- schedule -------------------------------------------------------------

#[resilient(retries = 4, backoff = exponential(base = "1s", max = "1h", multiplier = 2.0, jitter = none), clock = clock)]
fn five_failures(clock: &FakeClock) -> Result<(), ProviderError> {
    Err(ProviderError::Transient(0))
}

#[test]
fn no_sleep_after_final_attempt() {
    let clock = FakeClock::new();
    let outcome = five_failures(&clock);
    assert_eq!(clock.slept(), [1, 2, 4, 8].map(secs));
    assert_eq!(clock.elapsed(), secs(15));
    assert_eq!(outcome.report().delays(), clock.slept());
    assert_eq!(outcome.report().attempt_count(), 5);
}

// ---- two limits, on tokio's paused clock ------------------------------------

#[resilient(
    retries = 2,
    backoff = exponential(base = "1s", max = "1m", jitter = none),
    timeout = "10s",
    budget = "30s"
)]
async fn slow_with_budget() -> Result<(), ProviderError> {
    tokio::time::sleep(millis(9_500)).await;
    Err(ProviderError::Transient(0))
}

#[resilient(retries = 2, backoff = exponential(base = "1s", max = "1m", jitter = none), timeout = "10s")]
async fn slow_without_budget() -> Result<(), ProviderError> {
    tokio::time::sleep(millis(9_500)).await;
    Err(ProviderError::Transient(0))
}

#[tokio::test(start_paused = true)]
async fn budget_caps_the_third_deadline_at_8s_and_ends_by_30s() {
    let start = tokio::time::Instant::now();
    let outcome = slow_with_budget().await;
    let report = outcome.report();
    let starts: Vec<_> = report.attempts().iter().map(|r| r.started_at()).collect();
    let deadlines: Vec<_> = report.attempts().iter().map(|r| r.deadline()).collect();
    assert_eq!(starts, [secs(0), millis(10_500), secs(22)]);
    assert_eq!(deadlines, [Some(secs(10)), Some(secs(10)), Some(secs(8))]);
    assert_eq!(report.delays(), [secs(1), secs(2)]);
    assert_eq!(
        report.attempts()[2].error().unwrap().kind(),
        FailureKind::Timeout
    );
    assert_eq!(report.stop_reason(), StopReason::BudgetExhausted);
    assert_eq!(start.elapsed(), secs(30));
    assert_eq!(report.elapsed(), secs(30));
}

#[tokio::test(start_paused = true)]
async fn without_the_budget_the_same_schedule_ends_at_31_5s() {
    let start = tokio::time::Instant::now();
    let outcome = slow_without_budget().await;
    assert_eq!(start.elapsed(), millis(31_500));
    assert_eq!(outcome.report().attempts()[2].deadline(), Some(secs(10)));
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
}

// ---- the retry floor --------------------------------------------------------

#[resilient(retries = 5, backoff = constant("1s"), max_elapsed = "300s", min_retries = 2, clock = clock)]
fn slow_first(clock: &FakeClock, #[attempt] attempt: Attempt) -> Result<(), ProviderError> {
    clock.advance(if attempt.number() == 1 {
        secs(400)
    } else {
        secs(1)
    });
    Err(ProviderError::Transient(0))
}

#[test]
fn slow_first_attempt_still_gets_min_retries() {
    let clock = FakeClock::new();
    let outcome = slow_first(&clock);
    assert_eq!(outcome.report().retry_count(), 2);
    assert_eq!(clock.slept(), [secs(1), secs(1)]);
    assert_eq!(outcome.report().stop_reason(), StopReason::BudgetExhausted);
}

#[resilient(retries = 5, backoff = constant("1s"), max_elapsed = "300s", min_retries = 2, clock = clock)]
fn fast_attempts(clock: &FakeClock) -> Result<(), ProviderError> {
    clock.advance(secs(1));
    Err(ProviderError::Transient(0))
}

#[test]
fn the_floor_is_not_a_ceiling() {
    let clock = FakeClock::new();
    let outcome = fast_attempts(&clock);
    assert_eq!(outcome.report().retry_count(), 5);
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::AttemptsExhausted
    );
}

#[resilient(retries = 5, backoff = constant("1s"), budget = "500s", max_elapsed = "300s", min_retries = 3, clock = clock)]
fn floor_under_budget(clock: &FakeClock) -> Result<(), ProviderError> {
    clock.advance(secs(400));
    Err(ProviderError::Transient(0))
}

#[test]
fn budget_overrides_the_floor() {
    let clock = FakeClock::new();
    let outcome = floor_under_budget(&clock);
    assert_eq!(outcome.report().retry_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::BudgetExhausted);
}

#[resilient(retries = 3, backoff = constant("2s"), budget = "10s", clock = clock)]
fn nine_seconds(clock: &FakeClock) -> Result<(), ProviderError> {
    clock.advance(secs(9));
    Err(ProviderError::Transient(0))
}

#[test]
fn never_sleeps_into_a_retry_past_the_budget() {
    let clock = FakeClock::new();
    let outcome = nine_seconds(&clock);
    assert_eq!(clock.slept(), []);
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::BudgetExhausted);
}

// ---- jitter -----------------------------------------------------------------

#[resilient(retry = policy, clock = clock)]
fn with_policy(policy: &RetryPolicy, clock: &FakeClock) -> Result<(), ProviderError> {
    Err(ProviderError::Transient(0))
}

#[test]
fn seeded_jitter_gives_the_exact_schedule() {
    let policy = RetryPolicy::builder()
        .max_attempts(4)
        .backoff(Backoff::exponential(secs(1), secs(60)))
        .jitter_seed(7)
        .build()
        .unwrap();
    let clock = FakeClock::new();
    let _ = with_policy(&policy, &clock);
    assert_eq!(
        clock.slept(),
        [
            Duration::from_nanos(55_360_436),
            Duration::from_nanos(344_231_709),
            Duration::from_nanos(2_870_304_513),
        ]
    );
}

#[resilient(retries = 200, backoff = exponential(base = "1s", max = "30s", jitter = full), clock = clock)]
fn full_jitter(clock: &FakeClock) -> Result<(), ProviderError> {
    Err(ProviderError::Transient(0))
}

#[test]
fn full_jitter_stays_within_zero_and_nominal() {
    let clock = FakeClock::new();
    let _ = full_jitter(&clock);
    let slept = clock.slept();
    assert_eq!(slept.len(), 200);
    let nominal = Backoff::exponential(secs(1), secs(30)).jitter(Jitter::None);
    for (n, d) in (1..).zip(&slept) {
        assert!(*d <= nominal.nominal_delay(n), "retry {n}: {d:?}");
    }
    // Full jitter really spreads: not every delay sits at the nominal value.
    assert!(slept.iter().any(|d| *d < secs(15)));
}

#[resilient(retries = 10_000, backoff = exponential(base = "1ms", max = "30s", multiplier = 1e9), clock = clock)]
fn huge_multiplier(clock: &FakeClock) -> Result<(), ProviderError> {
    Err(ProviderError::Transient(0))
}

#[test]
fn ten_thousand_retries_with_multiplier_1e9_stay_below_max() {
    let clock = FakeClock::new();
    let outcome = huge_multiplier(&clock);
    assert_eq!(outcome.report().retry_count(), 10_000);
    assert!(clock.slept().iter().all(|d| *d <= secs(30)));
    let sources: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .filter_map(|r| r.delay_before())
        .map(|d| d.source())
        .collect();
    assert!(sources.iter().all(|s| *s == DelaySource::Backoff));
}

// ---- cancellation and panics -----------------------------------------------

async fn never_fallback(calls: Arc<AtomicU32>) -> Result<(), ProviderError> {
    calls.fetch_add(100, Ordering::SeqCst);
    Ok(())
}

#[resilient(retries = 5, backoff = constant("10s"), fallback = never_fallback)]
async fn cancelled(calls: Arc<AtomicU32>) -> Result<(), ProviderError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Err(ProviderError::Transient(0))
}

#[tokio::test(start_paused = true)]
async fn dropping_the_future_while_it_waits_stops_everything() {
    let calls = Arc::new(AtomicU32::new(0));
    let task = tokio::spawn(cancelled(calls.clone()));
    tokio::time::sleep(secs(15)).await; // attempts at 0 s and 10 s; waiting for 20 s
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    tokio::time::sleep(secs(3600)).await;
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "no further attempt and no fallback"
    );
}

#[resilient(retries = 5, backoff = none)]
fn panics(calls: &AtomicU32) -> Result<(), ProviderError> {
    calls.fetch_add(1, Ordering::SeqCst);
    panic!("bug in the body");
}

#[test]
fn a_panic_is_not_retried() {
    let calls = AtomicU32::new(0);
    let caught = std::panic::catch_unwind(|| panics(&calls));
    assert!(caught.is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

// ---- shapes -------------------------------------------------------------------

struct Client {
    calls: u32,
    budget: Duration,
}

impl Client {
    #[resilient(retries = 2, backoff = none, budget = self.budget)]
    async fn fetch(&mut self, path: &str) -> Result<String, ProviderError> {
        self.calls += 1;
        if self.calls < 3 {
            return Err(ProviderError::Transient(self.calls));
        }
        Ok(format!("{path} after {}", self.calls))
    }

    #[resilient(retries = 1, backoff = none)]
    fn peek(&self, n: u32) -> Result<u32, ProviderError> {
        Ok(n + self.calls)
    }
}

#[tokio::test(start_paused = true)]
async fn mut_self_methods_retry_and_stay_send() {
    let handle = tokio::spawn(async {
        let mut client = Client {
            calls: 0,
            budget: secs(5),
        };
        let outcome = client.fetch("/v1").await;
        (client.calls, outcome.into_result())
    });
    assert_eq!(handle.await.unwrap(), (3, Ok("/v1 after 3".to_owned())));
    let client = Client {
        calls: 1,
        budget: secs(1),
    };
    assert_eq!(client.peek(1).into_result(), Ok(2));
}

#[resilient(retries = 2, backoff = none)]
fn generic<T: std::str::FromStr>(text: impl AsRef<str>) -> Result<T, ProviderError> {
    let parsed = text
        .as_ref()
        .parse::<T>()
        .map_err(|_| ProviderError::Invalid {
            field: "text".into(),
        })?;
    Ok(parsed)
}

#[test]
fn generics_impl_trait_and_question_mark() {
    assert_eq!(generic::<u8>("7").into_result(), Ok(7));
    let outcome = generic::<u8>("x");
    assert_eq!(
        outcome.report().attempt_count(),
        3,
        "every error retried by default"
    );
}

// ---- validation and events --------------------------------------------------

#[derive(Debug, PartialEq, thiserror::Error)]
enum AnswerError {
    #[error("empty answer")]
    Empty,
    #[error("provider down")]
    Down,
}

impl From<resilient::ValidationFailed> for AnswerError {
    fn from(_: resilient::ValidationFailed) -> Self {
        AnswerError::Empty
    }
}

#[allow(clippy::ptr_arg)] // `validate` takes `fn(&T)`, here `T = String`
fn non_empty(answer: &String) -> bool {
    !answer.is_empty()
}

#[resilient(
    retries = 3,
    retry_on = [Empty],
    backoff = constant("1s"),
    validate = non_empty,
    on_retry = |event: &resilient::RetryEvent<'_>| events.lock().unwrap().push((event.attempt(), event.kind(), event.delay())),
    clock = clock,
)]
fn answer(
    clock: &FakeClock,
    events: &std::sync::Mutex<Vec<(u32, FailureKind, Duration)>>,
    #[attempt] attempt: Attempt,
) -> Result<String, AnswerError> {
    match attempt.number() {
        1 | 2 => Ok(String::new()),
        3 => Ok("forty-two".into()),
        _ => Err(AnswerError::Down),
    }
}

#[test]
fn a_value_failing_validation_is_a_retryable_failure_heard_by_on_retry() {
    let (clock, events) = (FakeClock::new(), std::sync::Mutex::new(Vec::new()));
    let outcome = answer(&clock, &events);
    let kinds: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|r| r.error().map(|e| (e.kind(), e.retryable())))
        .collect();
    assert_eq!(
        kinds,
        [
            Some((FailureKind::Validation, true)),
            Some((FailureKind::Validation, true)),
            None
        ]
    );
    assert_eq!(
        *events.lock().unwrap(),
        [
            (1, FailureKind::Validation, secs(1)),
            (2, FailureKind::Validation, secs(1))
        ]
    );
    assert_eq!(clock.slept(), [secs(1), secs(1)]);
    assert_eq!(outcome.into_result().unwrap(), "forty-two");
}

// ---- `mut` parameters ---------------------------------------------------------

#[resilient(retries = 2, backoff = none, clock = clock)]
fn counts_up(
    clock: &FakeClock,
    mut count: u32,
    seen: &std::sync::Mutex<Vec<u32>>,
) -> Result<u32, ProviderError> {
    count += 1;
    seen.lock().unwrap().push(count);
    Err(ProviderError::Transient(count))
}

#[test]
fn each_attempt_starts_from_the_callers_mut_argument() {
    let (clock, seen) = (FakeClock::new(), std::sync::Mutex::new(Vec::new()));
    let outcome = counts_up(&clock, 0, &seen);
    assert_eq!(*seen.lock().unwrap(), [1, 1, 1]);
    assert_eq!(outcome.into_result(), Err(ProviderError::Transient(1)));
}

#[resilient(retries = 2, backoff = none)]
async fn fills_up(mut buffer: Vec<u8>, (mut a, b): (u8, u8)) -> Result<Vec<u8>, ProviderError> {
    a += b;
    buffer.push(a);
    if buffer.len() < 3 {
        return Err(ProviderError::Transient(
            u32::try_from(buffer.len()).unwrap(),
        ));
    }
    Ok(buffer)
}

#[tokio::test(start_paused = true)]
async fn async_attempts_start_from_the_callers_mut_arguments_even_in_patterns() {
    let outcome = fills_up(vec![9], (1, 2)).await;
    let errors: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|r| r.error().unwrap().message().to_owned())
        .collect();
    assert_eq!(errors, ["transient failure 2"; 3]);
    assert_eq!(outcome.into_result(), Err(ProviderError::Transient(2)));
    assert_eq!(
        fills_up(vec![7, 8], (1, 2)).await.into_result(),
        Ok(vec![7, 8, 3])
    );
}

#[derive(Clone)]
struct Tally {
    count: u32,
}

impl Tally {
    #[resilient(retries = 2, backoff = none, fallback = Self::cached)]
    fn bump(mut self, seen: &std::sync::Mutex<Vec<u32>>) -> Result<u32, ProviderError> {
        self.count += 1;
        seen.lock().unwrap().push(self.count);
        Err(ProviderError::Transient(self.count))
    }

    fn cached(self, _seen: &std::sync::Mutex<Vec<u32>>) -> Result<u32, ProviderError> {
        Ok(self.count)
    }
}

#[test]
fn mut_self_by_value_is_fresh_per_attempt_and_the_fallback_gets_the_callers() {
    let seen = std::sync::Mutex::new(Vec::new());
    let outcome = Tally { count: 10 }.bump(&seen);
    assert_eq!(*seen.lock().unwrap(), [11, 11, 11]);
    assert_eq!(outcome.into_result(), Ok(10));
}

// ---- Retry-After -----------------------------------------------------------------

#[derive(Debug, thiserror::Error)]
#[error("429: retry after {0:?}")]
struct TooManyRequests(Duration);

#[resilient(rate_limit = |e: &TooManyRequests| Some(e.0), max_rate_limit_retries = 2, clock = clock)]
fn capped_rate_limit(clock: &FakeClock, calls: &AtomicU32) -> Result<(), TooManyRequests> {
    let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
    Err(TooManyRequests(secs(u64::from(call))))
}

#[resilient(rate_limit = |e: &TooManyRequests| Some(e.0), clock = clock)]
fn default_rate_limit(clock: &FakeClock, calls: &AtomicU32) -> Result<(), TooManyRequests> {
    calls.fetch_add(1, Ordering::SeqCst);
    Err(TooManyRequests(millis(1)))
}

#[test]
fn max_rate_limit_retries_caps_the_retry_after_path() {
    let (clock, calls) = (FakeClock::new(), AtomicU32::new(0));
    let outcome = capped_rate_limit(&clock, &calls);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.report().retry_count(), 2);
    assert_eq!(clock.slept(), [secs(1), secs(2)]);
    let sources: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .filter_map(|r| r.delay_before().map(|d| d.source()))
        .collect();
    assert_eq!(sources, [DelaySource::RetryAfter; 2]);
    assert_eq!(
        outcome.report().stop_reason(),
        StopReason::RateLimitExhausted
    );

    let (clock, calls) = (FakeClock::new(), AtomicU32::new(0));
    let outcome = default_rate_limit(&clock, &calls);
    assert_eq!(outcome.report().attempt_count(), 11, "10 by default");
    assert_eq!(clock.slept(), [millis(1); 10]);
}

// ---- a fallback that takes the attempt ---------------------------------------------

fn cached_with_attempt(calls: &AtomicU32, attempt: Attempt) -> Result<String, ProviderError> {
    calls.fetch_add(100, Ordering::SeqCst);
    Ok(format!(
        "attempt {} after {} retries, fallback: {}",
        attempt.number(),
        attempt.retry_number(),
        attempt.is_fallback()
    ))
}

#[resilient(retries = 2, backoff = none, fallback = cached_with_attempt)]
fn down(calls: &AtomicU32) -> Result<String, ProviderError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Err(ProviderError::Timeout)
}

#[test]
fn a_fallback_taking_an_attempt_learns_it_is_the_fallback() {
    let calls = AtomicU32::new(0);
    let outcome = down(&calls);
    assert_eq!(calls.load(Ordering::SeqCst), 103);
    assert_eq!(
        outcome.into_result().unwrap(),
        "attempt 4 after 2 retries, fallback: true"
    );
}

async fn cached_async(key: &str, attempt: Attempt) -> Result<String, ProviderError> {
    Ok(format!(
        "{key} from fallback attempt {}: {}",
        attempt.number(),
        attempt.is_fallback()
    ))
}

#[resilient(retries = 1, backoff = none, fallback = cached_async)]
async fn down_async(key: &str) -> Result<String, ProviderError> {
    Err(ProviderError::Invalid { field: key.into() })
}

struct Store {
    name: &'static str,
}

impl Store {
    #[resilient(retries = 1, backoff = none, fallback = Self::cached)]
    fn get(&self, key: u32) -> Result<String, ProviderError> {
        Err(ProviderError::Transient(key))
    }

    fn cached(&self, key: u32, attempt: Attempt) -> Result<String, ProviderError> {
        Ok(format!(
            "{}[{key}] at attempt {}: {}",
            self.name,
            attempt.number(),
            attempt.is_fallback()
        ))
    }

    #[resilient(retries = 2, backoff = none, fallback = Self::cached_async)]
    async fn get_async(&self, key: u32) -> Result<String, ProviderError> {
        Err(ProviderError::Transient(key))
    }

    async fn cached_async(&self, key: u32, attempt: Attempt) -> Result<String, ProviderError> {
        self.cached(key, attempt)
    }
}

#[tokio::test(start_paused = true)]
async fn async_and_method_fallbacks_taking_an_attempt_learn_it_too() {
    assert_eq!(
        down_async("k").await.into_result().unwrap(),
        "k from fallback attempt 3: true"
    );
    let store = Store { name: "store" };
    assert_eq!(
        store.get(7).into_result().unwrap(),
        "store[7] at attempt 3: true"
    );
    let outcome = store.get_async(8).await;
    let kinds: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|r| r.kind())
        .collect();
    use AttemptKind::{Fallback, Primary};
    assert_eq!(kinds, [Primary, Primary, Primary, Fallback]);
    assert_eq!(
        outcome.into_result().unwrap(),
        "store[8] at attempt 4: true"
    );
}

// ---- async retries, `Send` or not ------------------------------------------

fn assert_send<F: std::future::Future + Send>(future: F) -> F {
    future
}

/// Fails with the attempt's number until the attempt `ok_at`, noting each
/// attempt and the time it began in `seen`.
fn script(
    attempt: &Attempt,
    ok_at: u32,
    started: tokio::time::Instant,
) -> Result<u32, ProviderError> {
    if attempt.number() < ok_at {
        Err(ProviderError::Transient(attempt.number()))
    } else {
        Ok(u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX))
    }
}

// Arguments that are `Send` and `Sync`, one a unique borrow the body writes
// through: the function's future is `Send`, its retries included.
#[resilient(retries = 3, backoff = exponential(base = "100ms", jitter = none), timeout = "1s")]
async fn through_send_arguments(
    started: tokio::time::Instant,
    seen: &mut Vec<u32>,
    #[attempt] attempt: Attempt,
) -> Result<u32, ProviderError> {
    tokio::task::yield_now().await;
    seen.push(attempt.number());
    script(&attempt, 3, started)
}

// An argument that isn't `Sync` (a `&Cell`): the function's future isn't
// `Send`, and its retries run all the same.
#[resilient(retries = 3, backoff = exponential(base = "100ms", jitter = none), timeout = "1s")]
async fn through_a_cell(
    started: tokio::time::Instant,
    seen: &std::cell::Cell<u32>,
    #[attempt] attempt: Attempt,
) -> Result<u32, ProviderError> {
    tokio::task::yield_now().await;
    seen.set(seen.get() * 10 + attempt.number());
    script(&attempt, 3, started)
}

#[tokio::test(start_paused = true)]
async fn async_retries_with_send_arguments_keep_the_future_send_and_the_schedule() {
    let started = tokio::time::Instant::now();
    let mut seen = Vec::new();
    let outcome = assert_send(through_send_arguments(started, &mut seen)).await;
    let report = outcome.report();
    assert_eq!(report.delays(), [millis(100), millis(200)]);
    assert_eq!(report.attempt_count(), 3);
    assert_eq!(report.retry_count(), 2);
    assert!(
        report
            .attempts()
            .iter()
            .take(2)
            .all(|a| a.error().is_some_and(|e| e.retryable()))
    );
    assert_eq!(
        report
            .attempts()
            .iter()
            .map(|a| a.deadline())
            .collect::<Vec<_>>(),
        [Some(secs(1)); 3]
    );
    assert_eq!(outcome.into_result(), Ok(300));
    assert_eq!(seen, [1, 2, 3]);
}

#[tokio::test(start_paused = true)]
async fn async_retries_with_an_argument_that_is_not_sync_run_as_well() {
    let started = tokio::time::Instant::now();
    let seen = std::cell::Cell::new(0);
    let outcome = through_a_cell(started, &seen).await;
    assert_eq!(outcome.report().delays(), [millis(100), millis(200)]);
    assert_eq!(outcome.report().retry_count(), 2);
    assert_eq!(outcome.into_result(), Ok(300));
    assert_eq!(seen.get(), 123);
}

// A generic function: its future is `Send` for the types that make it so.
#[resilient(retries = 2, backoff = constant("50ms"))]
async fn generic_retries<T: Clone + Send + Sync>(
    value: &T,
    calls: &AtomicU32,
) -> Result<T, ProviderError> {
    tokio::task::yield_now().await;
    match calls.fetch_add(1, Ordering::Relaxed) {
        0 => Err(ProviderError::Timeout),
        _ => Ok(value.clone()),
    }
}

#[tokio::test(start_paused = true)]
async fn a_generic_async_fn_retries_with_a_send_future() {
    let calls = AtomicU32::new(0);
    let outcome = assert_send(generic_retries(&"v", &calls)).await;
    assert_eq!(outcome.report().delays(), [millis(50)]);
    assert_eq!(outcome.into_result(), Ok("v"));
    assert_eq!(calls.load(Ordering::Relaxed), 2);
}

// ---- the commonest blocking options, built by the shared `Recipe` -------

// `retries`, `retry_on` and `backoff` alone: the first attempt runs before
// the operation is built, and a failure builds it with the shared builder.
#[resilient(retries = 2, retry_on = [Transient], backoff = none)]
fn common_options(
    calls: &AtomicU32,
    fail_with: fn(u32) -> ProviderError,
) -> Result<u32, ProviderError> {
    match calls.fetch_add(1, Ordering::Relaxed) {
        n @ 0..2 => Err(fail_with(n)),
        n => Ok(n),
    }
}

#[test]
fn the_commonest_blocking_options_retry_what_retry_on_names_and_no_more() {
    let calls = AtomicU32::new(0);
    let outcome = common_options(&calls, ProviderError::Transient);
    let report = outcome.report();
    assert_eq!(report.name(), "common_options");
    assert_eq!(report.attempt_count(), 3);
    assert_eq!(report.retry_count(), 2);
    assert_eq!(report.delays(), [Duration::ZERO, Duration::ZERO]);
    assert_eq!(report.stop_reason(), StopReason::Succeeded);
    assert_eq!(
        report.attempts()[0].error().map(|e| e.message().to_owned()),
        Some("transient failure 0".to_owned())
    );
    assert_eq!(outcome.into_result(), Ok(2));

    let calls = AtomicU32::new(0);
    let outcome = common_options(&calls, |_| ProviderError::Timeout);
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
    assert!(
        outcome.report().attempts()[0]
            .error()
            .is_some_and(|e| !e.retryable())
    );
    assert_eq!(outcome.into_result(), Err(ProviderError::Timeout));

    // A first success is one attempt, named, with nothing slept.
    let calls = AtomicU32::new(2);
    let outcome = common_options(&calls, ProviderError::Transient);
    assert_eq!(outcome.report().name(), "common_options");
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().delays(), []);
    assert_eq!(outcome.into_result(), Ok(2));
}
