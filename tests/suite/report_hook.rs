//! `report = hook`: the function keeps its declared `Result` and hands the
//! report to the hook before returning, once per call, so the attribute
//! fits trait impl methods and existing callers.

use std::sync::Mutex;
use std::time::Duration;

use resilient::{
    Attempt, AttemptKind, ExecutionReport, FakeClock, Operation, StopReason, resilient,
};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum ProviderError {
    #[error("busy")]
    Busy,
    #[error("no such id {0}")]
    Missing(u32),
}

/// What a hook saw of one report.
#[derive(Debug, PartialEq)]
struct Seen {
    name: String,
    attempts: u32,
    retries: u32,
    stop: StopReason,
    fallback: bool,
}

impl Seen {
    fn of(report: &ExecutionReport) -> Self {
        Seen {
            name: report.name().to_owned(),
            attempts: report.attempt_count(),
            retries: report.retry_count(),
            stop: report.stop_reason(),
            fallback: report.fallback_used(),
        }
    }
}

fn seen(name: &str, attempts: u32, retries: u32, stop: StopReason, fallback: bool) -> Seen {
    Seen {
        name: name.to_owned(),
        attempts,
        retries,
        stop,
        fallback,
    }
}

// ---- in a trait impl ----------------------------------------------------------------

trait Provider {
    fn get(&self, id: u32) -> Result<u32, ProviderError>;
    async fn get_async(&self, id: u32) -> Result<u32, ProviderError>;
}

static BLOCKING_REPORTS: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

fn record(report: &ExecutionReport) {
    BLOCKING_REPORTS.lock().unwrap().push(Seen::of(report));
}

struct Client {
    reports: Mutex<Vec<Seen>>,
}

impl Provider for Client {
    // Busy twice, then the answer; `Missing` is not retried.
    #[resilient(retries = 2, retry_on = [Busy], backoff = none, report = record)]
    fn get(&self, id: u32, #[attempt] attempt: Attempt) -> Result<u32, ProviderError> {
        match (id, attempt.number()) {
            (0, _) => Err(ProviderError::Missing(0)),
            (_, 1 | 2) => Err(ProviderError::Busy),
            _ => Ok(id * 10),
        }
    }

    // The hook may use the arguments, `self` included.
    #[resilient(retries = 2, backoff = constant("1s"), report = |report| self.reports.lock().unwrap().push(Seen::of(report)))]
    async fn get_async(&self, id: u32, #[attempt] attempt: Attempt) -> Result<u32, ProviderError> {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if attempt.number() == 1 {
            Err(ProviderError::Busy)
        } else {
            Ok(id + 1)
        }
    }
}

/// Callers that know only the trait.
fn through_the_trait(provider: &impl Provider, id: u32) -> Result<u32, ProviderError> {
    provider.get(id)
}

async fn through_the_trait_async(provider: &impl Provider, id: u32) -> Result<u32, ProviderError> {
    provider.get_async(id).await
}

#[test]
fn a_trait_impl_method_returns_its_declared_result_and_the_hook_sees_each_report() {
    let client = Client {
        reports: Mutex::new(Vec::new()),
    };
    assert_eq!(through_the_trait(&client, 4), Ok(40));
    assert_eq!(
        through_the_trait(&client, 0),
        Err(ProviderError::Missing(0))
    );
    assert_eq!(
        *BLOCKING_REPORTS.lock().unwrap(),
        [
            seen("get", 3, 2, StopReason::Succeeded, false),
            seen("get", 1, 0, StopReason::NotRetryable, false),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn an_async_trait_impl_method_returns_its_declared_result_and_the_hook_sees_the_report() {
    let client = Client {
        reports: Mutex::new(Vec::new()),
    };
    let start = tokio::time::Instant::now();
    assert_eq!(through_the_trait_async(&client, 6).await, Ok(7));
    assert_eq!(start.elapsed(), Duration::from_millis(1200));
    assert_eq!(
        *client.reports.lock().unwrap(),
        [seen("get_async", 2, 1, StopReason::Succeeded, false)]
    );
}

// ---- on an alias, with a fallback and a name ---------------------------------------------

type AppResult<T> = Result<T, ProviderError>;

static ALIAS_REPORTS: Mutex<Vec<ExecutionReport>> = Mutex::new(Vec::new());

fn keep(report: &ExecutionReport) {
    ALIAS_REPORTS.lock().unwrap().push(report.clone());
}

#[resilient(
    retries = 1,
    backoff = constant("2s"),
    clock = clock,
    fallback = stale,
    name = "quotes.latest",
    report = keep,
)]
fn latest(clock: &FakeClock, symbol: &str) -> AppResult<u32> {
    Err(ProviderError::Busy)
}

fn stale(_clock: &FakeClock, symbol: &str) -> AppResult<u32> {
    Ok(u32::try_from(symbol.len()).unwrap())
}

#[test]
fn an_alias_return_type_is_kept_and_the_hook_sees_the_fallback() {
    let clock = FakeClock::new();
    let result: AppResult<u32> = latest(&clock, "ACME");
    assert_eq!(result, Ok(4));
    let reports = ALIAS_REPORTS.lock().unwrap();
    let [report] = reports.as_slice() else {
        panic!("one report per call: {reports:?}")
    };
    assert_eq!(
        Seen::of(report),
        seen("quotes.latest", 3, 1, StopReason::AttemptsExhausted, true)
    );
    let kinds: Vec<_> = report.attempts().iter().map(|r| r.kind()).collect();
    use AttemptKind::{Fallback, Primary};
    assert_eq!(kinds, [Primary, Primary, Fallback]);
    assert_eq!(report.delays(), [Duration::from_secs(2)]);
}

// ---- the hook runs once per call, whatever the path -------------------------------------

#[test]
fn operation_hands_the_report_to_the_hook_once_on_every_path() {
    let calls = Mutex::new(Vec::new());
    let hook = |report: &ExecutionReport| calls.lock().unwrap().push(Seen::of(report));
    let operation = || {
        Operation::new()
            .name("cache.get")
            .max_attempts(2)
            .clock(FakeClock::new())
            .on_report(hook)
    };

    // A first attempt that succeeds: the engine's fast path.
    assert_eq!(
        operation().run(|_| Ok::<_, ProviderError>(1)).into_result(),
        Ok(1)
    );
    // Every attempt fails.
    let failed = operation().run(|_| Err::<u32, _>(ProviderError::Busy));
    assert_eq!(failed.into_result(), Err(ProviderError::Busy));
    // Every attempt fails, then a fallback: the hook sees it too.
    let operation = operation();
    let Err(mut exec) = operation.run_primary(|_| Err::<u32, _>(ProviderError::Busy)) else {
        panic!("every primary attempt fails");
    };
    exec.fallback_blocking(|_, _| Ok(9));
    assert_eq!(exec.finish().into_result(), Ok(9));

    assert_eq!(
        *calls.lock().unwrap(),
        [
            seen("cache.get", 1, 0, StopReason::Succeeded, false),
            seen("cache.get", 2, 1, StopReason::AttemptsExhausted, false),
            seen("cache.get", 3, 1, StopReason::AttemptsExhausted, true),
        ]
    );
}
