#![deny(warnings)]

use resilient::resilient;
use std::fmt::{Debug, Display};

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("empty")]
struct Empty;

#[resilient(retries = 1, backoff = none)]
fn first<T>(items: &[T]) -> Result<T, Empty>
where
    T: Clone + Debug + PartialEq,
{
    items.first().cloned().ok_or(Empty)
}

#[resilient(retries = 1, backoff = none)]
fn apply(f: impl Fn(u32) -> u32, value: u32) -> Result<u32, Empty> {
    Ok(f(value))
}

#[resilient(retries = 2)]
async fn describe<D>(value: &D, suffix: impl Display + Sync) -> Result<String, Empty>
where
    D: Display + Sync + ?Sized,
{
    Ok(format!("{value}{suffix}"))
}

#[resilient(retries = 1, backoff = none, fallback = fallback_len)]
fn generic_error<E: Debug + Display + Clone>(error: E) -> Result<usize, E> {
    Err(error.clone())
}

fn fallback_len<E: Debug + Display>(error: E) -> Result<usize, E> {
    Ok(error.to_string().len())
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    assert_eq!(first(&[3, 4]).into_result(), Ok(3));
    assert_eq!(first::<u8>(&[]).report().attempt_count(), 2);
    assert_eq!(apply(|x| x + 1, 1).into_result(), Ok(2));
    assert_eq!(describe("a", 1).await.into_result(), Ok("a1".to_owned()));
    assert_eq!(generic_error("four".to_owned()).into_result(), Ok(4));
}
