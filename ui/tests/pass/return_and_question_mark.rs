#![deny(warnings)]

use resilient::{Attempt, resilient};
use std::num::ParseIntError;

#[derive(Debug, PartialEq, thiserror::Error)]
enum ParseError {
    #[error("too early")]
    TooEarly,
    #[error(transparent)]
    Int(#[from] ParseIntError),
}

#[resilient(retries = 4, backoff = none)]
fn parse(text: &str, #[attempt] attempt: Attempt) -> Result<u32, ParseError> {
    if attempt.number() == 1 {
        return Err(ParseError::TooEarly);
    }
    let value: u32 = text.trim().parse()?;
    Ok(value)
}

#[resilient(retries = 2)]
async fn parse_async(text: &str, #[attempt] attempt: Attempt) -> Result<u32, ParseError> {
    if attempt.retry_number() == 0 {
        return Err(ParseError::TooEarly);
    }
    Ok(text.parse::<u32>()?)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let outcome = parse(" 42 ");
    assert_eq!(outcome.report().attempt_count(), 2);
    assert_eq!(outcome.into_result(), Ok(42));

    let outcome = parse("x");
    assert_eq!(
        outcome.report().attempt_count(),
        5,
        "`?` ends the attempt, not the operation"
    );
    assert!(matches!(outcome.into_result(), Err(ParseError::Int(_))));

    assert_eq!(parse_async("7").await.into_result(), Ok(7));
}
