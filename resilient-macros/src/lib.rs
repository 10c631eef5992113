//! The `#[resilient]` attribute of the [`resilient`](https://docs.rs/resilient)
//! crate. Depend on `resilient`, which re-exports it; this crate only
//! generates code that calls into `resilient`'s runtime.
//!
//! The attribute is read in three steps, one module each: `attr` parses the
//! options, `valid` checks them against each other and against the function,
//! `expand` writes the wrapped function.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod attr;
mod duration;
mod errors;
mod expand;
mod options;
mod signature;
mod suggest;
mod valid;

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Makes a function resilient: each call runs its body as many times as the
/// options allow, and returns a `resilient::Outcome<T, E>` holding the result
/// and a report of every attempt.
///
/// The function must return a `Result<T, E>` (aliases such as `io::Result<T>`
/// included). It may be a `fn` or an `async fn`, free or a method (`&self`,
/// `&mut self`, `self: Arc<Self>`), generic, with `impl Trait` arguments.
/// Each attempt runs the original body again; `return` and `?` end the
/// attempt, not the operation.
///
/// ```no_run
/// use resilient::resilient;
/// # #[derive(Debug)]
/// # enum ProviderError { Timeout, Transient, BadRequest }
/// # impl std::fmt::Display for ProviderError {
/// #     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "{self:?}") }
/// # }
/// # async fn complete(_: &str) -> Result<String, ProviderError> { Err(ProviderError::BadRequest) }
///
/// #[resilient(retries = 3, retry_on = [Timeout, Transient], backoff = exponential(base = "100ms"))]
/// async fn call_provider(prompt: &str) -> Result<String, ProviderError> {
///     complete(prompt).await
/// }
///
/// # async fn run() -> Result<(), ProviderError> {
/// let outcome = call_provider("hi").await;
/// println!("{} attempts", outcome.report().attempt_count());
/// let text = outcome.into_result()?;
/// # let _ = text;
/// # Ok(())
/// # }
/// ```
///
/// # Options
///
/// | option | value |
/// |---|---|
/// | `retries` | integer literal: retries after the first attempt (`max_attempts` is `retries + 1`); without it, one attempt |
/// | `retry_on` | `[Timeout, MyError::Transient, …]`: the enum variants that are retried, whatever their fields; a bare name is a variant of the `E` in `Result<T, E>` |
/// | `retry_if` | expression `Fn(&E) -> bool`: which errors are retried |
/// | `backoff` | `exponential(base = "100ms", max = "10s", multiplier = 2.0, jitter = full)` (each argument optional; `jitter` is `full`, `equal` or `none`), `constant("1s")`, `none`, or an expression of type `Backoff` |
/// | `retry` | expression of type `RetryPolicy`: a whole policy, instead of `retries`, `retry_on`, `retry_if` and `backoff` |
/// | `timeout` | duration: time allowed to each attempt (`async fn` only); an expired attempt fails with `E::from(TimedOut)` |
/// | `budget` | duration: hard cap on the whole operation |
/// | `max_elapsed` | duration: soft cap, honoured once `min_retries` retries have run |
/// | `min_retries` | integer literal, at most `retries` |
/// | `rate_limit` | expression `Fn(&E) -> Option<Duration>`: a server-given wait, which doesn't use up `retries` |
/// | `max_rate_limit_wait` | duration: total time the `rate_limit` waits may take |
/// | `circuit_breaker` | expression of type `&CircuitBreaker` |
/// | `validate` | path to a `fn(&T) -> bool`; a failed check is `E::from(ValidationFailed)` |
/// | `fallback` | path to a function called with the same arguments (the receiver first) once the attempts have failed |
/// | `clock` | expression implementing `Clock`; `TokioClock` for an `async fn` and `SystemClock` for a `fn` by default |
/// | `on_retry` | expression `Fn(&RetryEvent)`, called before each wait |
/// | `crate` | `"path::to::resilient"`, for a re-exported runtime |
///
/// A duration is a string literal with a unit, checked at compile time
/// (`"250ms"`, `"10s"`, `"1.5s"`, `"2m"`; units `ns`, `us`, `ms`, `s`, `m`,
/// `h`), or any expression of type `std::time::Duration`. Option expressions
/// are evaluated on every call, inside the function: `budget = self.budget`
/// works.
///
/// A parameter marked `#[attempt]` (of type `resilient::Attempt`) is supplied
/// by the runtime and removed from the function's signature:
///
/// ```
/// use resilient::{Attempt, resilient};
/// use std::num::ParseIntError;
///
/// #[resilient(retries = 2, backoff = none)]
/// fn parse(text: &str, #[attempt] attempt: Attempt) -> Result<u32, ParseIntError> {
///     println!("attempt {} at parsing {text:?}", attempt.number());
///     text.trim().parse()
/// }
///
/// let outcome = parse(" 42 ");
/// assert_eq!(outcome.report().attempt_count(), 1);
/// assert_eq!(outcome.into_result(), Ok(42));
///
/// assert_eq!(parse("x").report().attempt_count(), 3);
/// ```
///
/// Misuse that the attribute can see (a missing `retries`, conflicting
/// options, a malformed duration, a `timeout` on a blocking fn, …) is a
/// compile error pointing at the option, saying what to write instead.
#[proc_macro_attribute]
pub fn resilient(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
