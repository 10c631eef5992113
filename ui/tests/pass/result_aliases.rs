//! Any return type that is a `Result` once resolved: an alias of any name,
//! a generic alias, an alias through a trait's associated types. Bare
//! `retry_on` names resolve against the alias's error type.
#![deny(warnings)]

use resilient::{FakeClock, resilient};
use std::cell::Cell;

#[derive(Debug, PartialEq, thiserror::Error)]
enum AppError {
    #[error("timed out")]
    Timeout,
    #[error("busy for {0}s")]
    Busy(u32),
    #[error("invalid {field}")]
    Invalid { field: &'static str },
}

type AppResult<T> = Result<T, AppError>;

/// Fails with `errors` in turn, then succeeds with `value`.
fn script<T>(calls: &Cell<usize>, errors: &[AppError], value: T) -> Result<T, AppError> {
    let call = calls.get();
    calls.set(call + 1);
    match errors.get(call) {
        Some(AppError::Timeout) => Err(AppError::Timeout),
        Some(AppError::Busy(secs)) => Err(AppError::Busy(*secs)),
        Some(AppError::Invalid { field }) => Err(AppError::Invalid { field }),
        None => Ok(value),
    }
}

#[resilient(retries = 3, retry_on = [Timeout, Busy], backoff = none, clock = clock.clone())]
fn named(clock: &FakeClock, calls: &Cell<usize>, errors: &[AppError]) -> AppResult<u32> {
    script(calls, errors, 7)
}

type Either<T, E = AppError> = Result<T, E>;

#[resilient(retries = 3, retry_on = [Timeout, AppError::Invalid], backoff = none, clock = clock.clone())]
fn generic<T: Copy>(
    clock: &FakeClock,
    calls: &Cell<usize>,
    errors: &[AppError],
    value: T,
) -> Either<T> {
    script(calls, errors, value)
}

trait Api {
    type Ok;
    type Err;
}

struct Production;

impl Api for Production {
    type Ok = String;
    type Err = AppError;
}

type ApiResult<A> = Result<<A as Api>::Ok, <A as Api>::Err>;

#[resilient(retries = 2, retry_on = [Busy], backoff = none)]
async fn through_a_trait(calls: &Cell<usize>, errors: &[AppError]) -> ApiResult<Production> {
    script(calls, errors, "done".to_owned())
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let clock = FakeClock::new();

    let calls = Cell::new(0);
    let outcome = named(&clock, &calls, &[AppError::Timeout, AppError::Busy(1)]);
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.into_result(), Ok(7));

    let calls = Cell::new(0);
    let invalid = AppError::Invalid { field: "id" };
    let outcome = named(&clock, &calls, &[invalid]);
    assert_eq!(
        outcome.report().attempt_count(),
        1,
        "`Invalid` is not retried"
    );

    let calls = Cell::new(0);
    let errors = [AppError::Timeout, AppError::Invalid { field: "id" }];
    let outcome = generic(&clock, &calls, &errors, 'x');
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.into_result(), Ok('x'));

    let calls = Cell::new(0);
    let outcome = through_a_trait(&calls, &[AppError::Busy(1), AppError::Busy(2)]).await;
    assert_eq!(outcome.report().attempt_count(), 3);
    assert_eq!(outcome.into_result().as_deref(), Ok("done"));

    let calls = Cell::new(0);
    let outcome = through_a_trait(&calls, &[AppError::Timeout]).await;
    assert_eq!(
        outcome.report().attempt_count(),
        1,
        "`Timeout` is not retried"
    );
}
