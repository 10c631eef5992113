#![deny(warnings)]
#![allow(dead_code, non_camel_case_types)]

//! The expansion names nothing that the user's own items could shadow.

use resilient::{TimedOut, resilient};

mod core {}
mod resilient_private {}

struct Duration;
struct Outcome;
struct Attempt;
struct TokioClock;
struct Option;
struct bool;
fn operation() {}

#[allow(unused_macros)]
macro_rules! matches {
    ($($tokens:tt)*) => {
        compile_error!("the expansion must use `::core::matches!`")
    };
}

#[derive(Debug, PartialEq)]
enum Error {
    Timeout,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("timeout")
    }
}

impl From<TimedOut> for Error {
    fn from(_: TimedOut) -> Self {
        Error::Timeout
    }
}

#[resilient(retries = 1, retry_on = [Timeout], backoff = none, budget = "1s")]
fn blocking(value: u32) -> Result<u32, Error> {
    let __resilient_op = value;
    let __resilient_exec = 1;
    Ok(__resilient_op + __resilient_exec)
}

#[resilient(retries = 1, retry_on = [Timeout], timeout = "1s", budget = "1s")]
async fn non_blocking(value: u32) -> Result<u32, Error> {
    let __resilient_error = value;
    Ok(__resilient_error)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    assert_eq!(blocking(1).into_result(), Ok(2));
    assert_eq!(non_blocking(3).await.into_result(), Ok(3));
}
