#![deny(warnings)]

use resilient::{FakeClock, resilient};
use std::cell::Cell;
use std::fmt;
use std::io;

#[resilient(
    retries = 2,
    retry_if = |e: &io::Error| e.kind() == io::ErrorKind::Interrupted,
    clock = clock.clone(),
)]
fn read(clock: &FakeClock, calls: &Cell<u32>) -> io::Result<Vec<u8>> {
    calls.set(calls.get() + 1);
    if calls.get() == 1 {
        return Err(io::Error::from(io::ErrorKind::Interrupted));
    }
    Ok(vec![1, 2, 3])
}

#[resilient]
fn write_all() -> fmt::Result {
    Ok(())
}

#[derive(Debug, thiserror::Error)]
#[error("app error")]
struct AppError;

mod app {
    pub type Result<T> = std::result::Result<T, super::AppError>;
}

#[resilient(retries = 1)]
async fn load() -> app::Result<u8> {
    Ok(8)
}

#[resilient(retries = 1, retry_on = [io::ErrorKind::Interrupted], clock = clock.clone())]
fn kind(clock: &FakeClock) -> Result<u8, io::ErrorKind> {
    Err(io::ErrorKind::Interrupted)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let clock = FakeClock::new();
    let calls = Cell::new(0);
    let outcome = read(&clock, &calls);
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(outcome.into_result().unwrap(), [1, 2, 3]);

    assert!(write_all().into_result().is_ok());
    assert_eq!(load().await.into_result().unwrap(), 8);
    assert_eq!(kind(&clock).report().attempt_count(), 2);
}
