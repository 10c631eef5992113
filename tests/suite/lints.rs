//! Expansions of every option and function shape compile without a warning
//! under `deny(warnings)` and clippy's `all` and `pedantic` groups (CI runs
//! clippy over this file with `-D warnings`), and generated paths can't be
//! shadowed by a user's `core` or `std` module.
#![deny(warnings)]
#![deny(clippy::all, clippy::pedantic)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use resilient::{
    Attempt, CircuitBreaker, CircuitOpen, ExecutionReport, FakeClock, RetryEvent, RetryPolicy,
    RetryThrottle, TimedOut, ValidationFailed, resilient,
};

#[derive(Debug, PartialEq, Eq)]
pub enum Error {
    Timeout,
    Transient(u32),
    Open,
    Invalid,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<TimedOut> for Error {
    fn from(_: TimedOut) -> Self {
        Error::Timeout
    }
}

impl From<CircuitOpen> for Error {
    fn from(_: CircuitOpen) -> Self {
        Error::Open
    }
}

impl From<ValidationFailed> for Error {
    fn from(_: ValidationFailed) -> Self {
        Error::Invalid
    }
}

static BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(CircuitBreaker::default);

fn is_transient(error: &Error) -> bool {
    matches!(error, Error::Transient(_))
}

fn hint(error: &Error) -> Option<Duration> {
    match error {
        Error::Transient(secs) => Some(Duration::from_secs(u64::from(*secs))),
        _ => None,
    }
}

#[allow(clippy::ptr_arg)] // `validate` takes `Fn(&T)` with `T = String`
fn non_empty(text: &String) -> bool {
    !text.is_empty()
}

fn log_retry(event: &RetryEvent<'_>) {
    assert!(event.attempt() >= 1);
}

/// Declared next to annotated functions: the expansion must not resolve
/// `core::…` or `std::…` to these.
#[allow(dead_code)]
mod shadowing {
    mod core {}
    mod std {}
    #[allow(non_snake_case)]
    mod resilient {}

    use super::{Error, FakeClock};
    use ::resilient::resilient;

    #[resilient(retries = 2, backoff = constant("1ms"), budget = "1s", clock = clock)]
    pub fn shadowed(clock: &FakeClock) -> Result<u8, Error> {
        Ok(1)
    }

    #[resilient(
        retries = 2,
        timeout = "1s",
        budget = "2s",
        max_elapsed = "1s",
        min_retries = 1
    )]
    pub async fn shadowed_async() -> Result<u8, Error> {
        Ok(1)
    }

    // The hedged run and a fallback chain have code paths of their own.
    #[resilient(retries = 1, hedge = "1ms", max_hedges = 2, fallback = [first, second])]
    pub async fn shadowed_hedged(n: u8) -> Result<u8, Error> {
        Ok(n)
    }

    #[resilient(retries = 1, fallback = [first_blocking, second_blocking], report = |_| ())]
    pub fn shadowed_chain(n: u8) -> Result<u8, Error> {
        Ok(n)
    }

    #[allow(clippy::unused_async)] // a fallback has the signature of the function it stands in for
    async fn first(n: u8) -> Result<u8, Error> {
        Err(Error::Transient(n.into()))
    }

    #[allow(clippy::unused_async)] // a fallback has the signature of the function it stands in for
    async fn second(n: u8) -> Result<u8, Error> {
        Ok(n)
    }

    fn first_blocking(n: u8) -> Result<u8, Error> {
        Err(Error::Transient(n.into()))
    }

    #[allow(clippy::unnecessary_wraps)] // a fallback has the signature of the function it stands in for
    fn second_blocking(n: u8) -> Result<u8, Error> {
        Ok(n)
    }
}

#[resilient(
    retries = 3,
    retry_on = [Timeout, Error::Transient],
    backoff = exponential(base = "10ms", max = "1s", multiplier = 3.0, jitter = equal),
    timeout = "2s",
    budget = "10s",
    max_elapsed = "5s",
    min_retries = 1,
    rate_limit = hint,
    max_rate_limit_wait = "30s",
    circuit_breaker = &BREAKER,
    validate = non_empty,
    on_retry = log_retry,
    fallback = cached,
)]
pub async fn every_option(prompt: &str, #[attempt] attempt: Attempt) -> Result<String, Error> {
    Ok(format!("{prompt} #{}", attempt.number()))
}

#[allow(clippy::unused_async)] // a fallback has the signature of the function it stands in for
async fn cached(prompt: &str) -> Result<String, Error> {
    if prompt.is_empty() {
        return Err(Error::Invalid);
    }
    Ok(prompt.to_owned())
}

#[resilient(retries = 1, retry_if = is_transient, backoff = none, clock = clock.clone())]
pub fn blocking(clock: &FakeClock, n: u32) -> Result<u32, Error> {
    Ok(n)
}

#[resilient(retry = policy, clock = clock)]
pub fn with_policy(policy: &RetryPolicy, clock: &FakeClock) -> std::io::Result<u32> {
    Ok(1)
}

pub struct Service {
    budget: Duration,
}

impl Service {
    #[resilient(retries = 1, backoff = constant("1ms"), budget = self.budget)]
    pub async fn by_ref(&self) -> Result<u32, Error> {
        Ok(1)
    }

    #[resilient(retries = 1, backoff = none, fallback = Self::by_value)]
    pub fn by_mut(&mut self, n: u32) -> Result<u32, Error> {
        self.budget += Duration::from_millis(u64::from(n));
        Ok(n)
    }

    fn by_value(&mut self, n: u32) -> Result<u32, Error> {
        if self.budget.is_zero() {
            Err(Error::Transient(n))
        } else {
            Ok(n + 1)
        }
    }

    #[resilient(retries = 1, backoff = none)]
    pub async fn shared(self: Arc<Self>) -> Result<Duration, Error> {
        Ok(self.budget)
    }
}

#[resilient(retries = 1, backoff = none)]
pub fn generic<T: Clone>(value: &T, extra: impl Into<u32> + Copy) -> Result<(T, u32), Error> {
    Ok((value.clone(), extra.into()))
}

pub type AppResult<T> = Result<T, Error>;

#[resilient(
    retries = 2,
    retry_on = [Timeout, Transient],
    backoff = exponential,
    rate_limit = hint,
    max_rate_limit_retries = 3,
)]
pub fn aliased((mut a, b): (u32, u32), #[attempt] attempt: Attempt) -> AppResult<u32> {
    a += b;
    Ok(a + attempt.number())
}

#[resilient(retries = 1, backoff = none, fallback = from_cache)]
pub fn counted(mut count: u32) -> AppResult<u32> {
    count += 1;
    Err(Error::Transient(count))
}

#[allow(clippy::unnecessary_wraps)] // a fallback has the signature of the function it stands in for
fn from_cache(count: u32, attempt: Attempt) -> AppResult<u32> {
    Ok(count + attempt.number())
}

#[derive(Clone)]
pub struct Counter {
    count: u32,
}

impl Counter {
    #[resilient(retries = 1, backoff = none, fallback = Self::cached)]
    pub async fn bump(mut self, step: u32) -> AppResult<u32> {
        self.count += step;
        Ok(self.count)
    }

    #[allow(clippy::unused_async)] // a fallback has the signature of the function it stands in for
    async fn cached(self, step: u32, attempt: Attempt) -> AppResult<u32> {
        Ok(self.count + step + attempt.number())
    }
}

static REPORTED: AtomicU32 = AtomicU32::new(0);

static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.1);

fn log_report(report: &ExecutionReport) {
    assert!(report.attempt_count() >= 1);
}

#[resilient(
    retries = 2,
    retry_on = [Transient],
    backoff = none,
    name = "lints.chained",
    fallback = [stale, empty],
    throttle = &THROTTLE,
    report = log_report,
)]
/// With `report`, the declared `Result` is kept, and with it the user's
/// own lints about it.
///
/// # Errors
///
/// When every candidate fails.
pub fn chained(key: &str, count: u32) -> Result<String, Error> {
    Err(Error::Transient(
        count + u32::try_from(key.len()).unwrap_or(0),
    ))
}

fn stale(key: &str, count: u32) -> Result<String, Error> {
    if count == 0 {
        return Err(Error::Invalid);
    }
    Ok(format!("{key}: stale"))
}

#[allow(clippy::unnecessary_wraps)] // a fallback has the signature of the function it stands in for
fn empty(_key: &str, _count: u32, attempt: Attempt) -> Result<String, Error> {
    Ok(format!("empty at {}", attempt.number()))
}

#[resilient(
    retries = 1,
    hedge = "10ms",
    max_hedges = 2,
    timeout = "1s",
    name = format!("hedged.{prompt}"),
    fallback = [cached, cached],
)]
pub async fn hedged(prompt: &str) -> Result<String, Error> {
    Ok(prompt.to_owned())
}

#[resilient(retries = 1, backoff = constant("1ms"), clock = clock, timing = false, report = |report| { REPORTED.fetch_add(report.attempt_count(), Ordering::Relaxed); })]
/// # Errors
///
/// Always: the attempts fail.
pub fn untimed(clock: &FakeClock) -> AppResult<u32> {
    Err(Error::Transient(1))
}

trait Provider {
    fn get(&self, id: u32) -> Result<u32, Error>;
    async fn get_async(&self, id: u32) -> AppResult<u32>;
}

impl Provider for Service {
    #[resilient(retries = 1, backoff = none, report = log_report)]
    fn get(&self, id: u32) -> Result<u32, Error> {
        Ok(id + u32::try_from(self.budget.as_secs()).unwrap_or(0))
    }

    #[resilient(retries = 1, hedge = "1ms", report = log_report)]
    async fn get_async(&self, id: u32) -> AppResult<u32> {
        Ok(id)
    }
}

#[tokio::test(start_paused = true)]
async fn every_expansion_runs() {
    assert_eq!(
        every_option("hi").await.into_result(),
        Ok("hi #1".to_owned())
    );
    let clock = FakeClock::new();
    assert_eq!(blocking(&clock, 4).into_result(), Ok(4));
    let policy = RetryPolicy::builder().max_attempts(2).build().unwrap();
    assert_eq!(with_policy(&policy, &clock).into_result().unwrap(), 1);
    let mut service = Service {
        budget: Duration::from_secs(1),
    };
    assert_eq!(service.by_ref().await.into_result(), Ok(1));
    assert_eq!(service.by_mut(2).into_result(), Ok(2));
    assert_eq!(
        Arc::new(service).shared().await.into_result(),
        Ok(Duration::from_millis(1002))
    );
    assert_eq!(generic(&'x', 3u8).into_result(), Ok(('x', 3)));
    assert_eq!(aliased((2, 3)).into_result(), Ok(6));
    assert_eq!(counted(1).into_result(), Ok(4));
    assert_eq!(Counter { count: 1 }.bump(2).await.into_result(), Ok(3));
    assert_eq!(shadowing::shadowed(&clock).into_result(), Ok(1));
    assert_eq!(shadowing::shadowed_async().await.into_result(), Ok(1));
    assert_eq!(shadowing::shadowed_hedged(3).await.into_result(), Ok(3));
    assert_eq!(shadowing::shadowed_chain(4), Ok(4));
    assert_eq!(chained("k", 1), Ok("k: stale".to_owned()));
    // The first call left the throttle at 7 tokens: one retry, then refused.
    assert_eq!(chained("k", 0), Ok("empty at 4".to_owned()));
    let outcome = hedged("hi").await;
    assert_eq!(outcome.report().name(), "hedged.hi");
    assert_eq!(outcome.into_result(), Ok("hi".to_owned()));
    assert_eq!(untimed(&clock), Err(Error::Transient(1)));
    assert_eq!(REPORTED.load(Ordering::Relaxed), 2);
    let service = Service {
        budget: Duration::from_secs(2),
    };
    assert_eq!(service.get(1), Ok(3));
    assert_eq!(service.get_async(5).await, Ok(5));
}
