use resilient::{ExecutionReport, RetryEvent, resilient};
use std::cell::Cell;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
enum ApiError {
    #[error("busy")]
    Busy,
}

// Hooks named by path: functions, taken as function pointers.
fn hint(_: &ApiError) -> Option<Duration> {
    Some(Duration::ZERO)
}
fn log(_: &ExecutionReport) {}
fn listen(_: &RetryEvent<'_>) {}

#[resilient(retries = 1, retry_after = hint, report = log, on_retry = listen)]
fn by_function() -> Result<u32, ApiError> {
    Err(ApiError::Busy)
}

// Hooks named by a parameter: closures that capture, kept as they are.
#[resilient(retries = 1, rate_limit = wait, report = report, on_retry = on_retry)]
fn by_parameter(
    wait: impl Fn(&ApiError) -> Option<Duration>,
    report: impl Fn(&ExecutionReport),
    on_retry: impl Fn(&RetryEvent<'_>),
) -> Result<u32, ApiError> {
    Err(ApiError::Busy)
}

#[test]
fn runs() {
    assert!(by_function().is_err());
    let reports = Cell::new(0);
    let retries = Cell::new(0);
    let hints = Cell::new(0);
    let outcome = by_parameter(
        |_| {
            hints.set(hints.get() + 1);
            None
        },
        |_| reports.set(reports.get() + 1),
        |_| retries.set(retries.get() + 1),
    );
    assert!(outcome.is_err());
    assert_eq!((hints.get(), reports.get(), retries.get()), (2, 1, 1));
}
