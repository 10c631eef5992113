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
/// and a report of every attempt; or, with
/// [`report`](#keeping-the-signature-report), the declared `Result<T, E>`,
/// the report going to a hook.
///
/// The function must return a `Result<T, E>` (aliases such as `io::Result<T>`
/// included). It may be a `fn` or an `async fn`, free or a method (`&self`,
/// `&mut self`, `self: Arc<Self>`), generic, with `impl Trait` arguments.
/// Each attempt runs the original body again; `return` and `?` end the
/// attempt, not the operation.
///
/// ```
/// use resilient::{Attempt, TimedOut, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// enum ProviderError {
///     #[error("timed out")]
///     Timeout,
///     #[error("overloaded")]
///     Transient,
///     #[error("bad request")]
///     BadRequest,
/// }
///
/// // `timeout` turns an attempt that runs too long into this error.
/// impl From<TimedOut> for ProviderError {
///     fn from(_: TimedOut) -> Self {
///         ProviderError::Timeout
///     }
/// }
///
/// #[resilient(retries = 3, retry_on = [Timeout, Transient], backoff = exponential(base = "100ms", jitter = none), timeout = "10s")]
/// async fn call_provider(prompt: &str, #[attempt] attempt: Attempt) -> Result<String, ProviderError> {
///     // Stands in for a network call: overloaded twice, then an answer.
///     if prompt.is_empty() {
///         return Err(ProviderError::BadRequest);
///     }
///     if attempt.number() < 3 {
///         return Err(ProviderError::Transient);
///     }
///     Ok(format!("echo: {prompt}"))
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), ProviderError> {
/// let outcome = call_provider("hi").await;
/// assert_eq!(outcome.report().attempt_count(), 3);
/// assert_eq!(outcome.report().delays(), [Duration::from_millis(100), Duration::from_millis(200)]);
/// let text = outcome.into_result()?;
/// assert_eq!(text, "echo: hi");
///
/// // `BadRequest` is not in `retry_on`: one attempt.
/// assert_eq!(call_provider("").await.report().attempt_count(), 1);
/// # Ok(())
/// # }
/// ```
///
/// Each option below has a section with an example; all of them run as tests.
///
/// # Options
///
/// | option | value |
/// |---|---|
/// | [`retries`](#which-errors-are-retried-retries-retry_on-retry_if) | integer literal: retries after the first attempt (`retries = N` makes at most `N + 1` attempts), or `unbounded` with a `budget` or `max_elapsed` to end them; without it, one attempt |
/// | [`retry_on`](#which-errors-are-retried-retries-retry_on-retry_if) | `[Timeout, MyError::Transient, …]`: the enum variants that are retried, whatever their fields; a bare name is a variant of the `E` in `Result<T, E>`. Needs `retries`. Default: every error is retried |
/// | [`retry_if`](#which-errors-are-retried-retries-retry_on-retry_if) | expression `Fn(&E) -> bool`: which errors are retried, for errors that are not enums. Needs `retries`; not with `retry_on` |
/// | [`backoff`](#the-wait-between-attempts-backoff) | `exponential(base = "100ms", max = "10s", multiplier = 2.0, jitter = full)` (each argument optional, these are the defaults; `max_delay` is another name of `max`; `jitter` is `full`, `equal`, `none`, `decorrelated` or `additive`), `constant("1s")`, `none`, or an expression of type `Backoff`. Needs `retries`. Default: `exponential()` |
/// | [`jitter_seed`](#the-wait-between-attempts-backoff) | expression of type `u64`: seeds the jitter, so that a test can assert the exact jittered schedule. Needs `retries`; not with `retry` (seed the policy instead) |
/// | [`retry`](#a-shared-policy-retry) | expression of type `RetryPolicy`: a whole policy, instead of `retries`, `retry_on`, `retry_if` and `backoff` |
/// | [`timeout`](#time-limits-timeout-budget) | duration: time allowed to each attempt (`async fn` only); an expired attempt fails with `E::from(TimedOut)` |
/// | [`budget`](#time-limits-timeout-budget) | duration: hard cap on the whole operation; no attempt starts and no wait runs past it, and an `async fn`'s attempt is cut at it (so it needs `E: From<TimedOut>` there) |
/// | [`max_elapsed`](#a-soft-cap-with-a-floor-max_elapsed-min_retries) | duration: soft cap, honoured once `min_retries` retries have run |
/// | [`max_delay`](#the-wait-between-attempts-backoff) | duration: the longest delay before a retry, whatever the backoff; also `exponential(max_delay = …)`, another name of its `max`. Needs `retries`; not with `retry` (set it on the policy) |
/// | [`min_retries`](#a-soft-cap-with-a-floor-max_elapsed-min_retries) | integer literal, at most `retries`: the retries that run even past `max_elapsed` |
/// | [`retry_after`](#server-hints-retry_after-max_retry_after_wait-max_retry_after_retries) | expression `Fn(&E) -> Option<Duration>`: the server's Retry-After hint, a wait taken instead of the backoff and without using up `retries`. Read only for an error that is retried: a hint on any other is ignored, and that error ends the call. Formerly `rate_limit`, still accepted |
/// | [`max_retry_after_wait`](#server-hints-retry_after-max_retry_after_wait-max_retry_after_retries) | duration: total time the `retry_after` waits may take (default 60 s). Needs `retry_after`. Formerly `max_rate_limit_wait`, still accepted |
/// | [`max_retry_after_retries`](#server-hints-retry_after-max_retry_after_wait-max_retry_after_retries) | integer literal: how many `retry_after` waits may run (default 10), apart from `retries`. Needs `retry_after`. Formerly `max_rate_limit_retries`, still accepted |
/// | [`nested`](#calls-inside-calls-nested) | `"no_retry"`: a resilient call made inside any attempt of this one (if it has retries), its last included, makes one attempt and leaves the retry to this one (stop reason `LeftToCaller`), as do the calls inside it. `"retry"`, the default: calls inside retry as their own options say |
/// | [`circuit_breaker`](#a-shared-circuit-breaker-circuit_breaker) | expression of type `&CircuitBreaker`, usually a `static`; a rejected attempt fails with `E::from(CircuitOpen)` |
/// | [`throttle`](#a-retry-budget-shared-between-calls-throttle) | expression of type `&RetryThrottle`, usually a `static`, or any `&impl RetryBudget`: retries stop, with `StopReason::Throttled`, while the calls sharing it fail too often |
/// | [`limit`](#admission-control-limit-limit_wait) | expression of type `&L` for any `L: Limiter` (a `Bulkhead`, `RateLimiter`, `AdaptiveLimit`, `AdaptiveRate`, …), usually a `static`, or a list `[&A, &B]` taken in order: each attempt (not the fallback) holds a permit from each while it runs; a refused attempt doesn't run, and the call fails with `E::from(LimitExceeded)`, stop reason `LimitExceeded`, without a retry |
/// | [`limit_wait`](#admission-control-limit-limit_wait) | duration: how long an attempt may wait for its permits (default 0: don't wait); the wait counts against `budget`. Needs `limit` |
/// | [`validate`](#checking-values-validate) | path to a `fn(&T) -> bool`; a failed check is `E::from(ValidationFailed)` |
/// | [`fallback`](#when-every-attempt-fails-fallback) | path to a function called with the same arguments (the receiver first), then, if it takes them, the error that ended the attempts (`&E`) and the `Attempt`, once the attempts have failed; or a list of them, `[replica, cache]`, tried in order until one succeeds |
/// | [`fallback_on`](#only-for-some-errors-fallback_on-fallback_if) | `[Unavailable, MyError::Timeout, …]`: the variants the fallback answers; any other error is returned as it is. Needs `fallback`. Default: every error |
/// | [`fallback_if`](#only-for-some-errors-fallback_on-fallback_if) | expression `Fn(&E) -> bool`: which errors the fallback answers. Needs `fallback`; not with `fallback_on` |
/// | [`chaos`](#chaos-on-purpose-chaos-chaos_fault-chaos_outcome-chaos_latency) | expression: a `&Chaos` switch (`resilient::chaos`), usually a `static`, that decides attempt by attempt whether to inject; or `[&A, &B]`, one switch per kind, in the order fault, outcome, latency. Needs one of the three below |
/// | [`chaos_fault`](#chaos-on-purpose-chaos-chaos_fault-chaos_outcome-chaos_latency) | an `E`, or a closure returning one that captures nothing: an injected attempt fails with it, without running the body. Needs `chaos` |
/// | [`chaos_outcome`](#chaos-on-purpose-chaos-chaos_fault-chaos_outcome-chaos_latency) | a `T`, or a closure returning one that captures nothing: an injected attempt succeeds with it, without running the body. Needs `chaos` |
/// | [`chaos_latency`](#chaos-on-purpose-chaos-chaos_fault-chaos_outcome-chaos_latency) | duration: an injected attempt waits that long first, on the operation's clock and inside its deadline. Needs `chaos` |
/// | [`hedge`](#against-slow-attempts-hedge-max_hedges) | duration, `async fn` only: when an attempt is still running after it, another starts beside it; the first success wins |
/// | [`max_hedges`](#against-slow-attempts-hedge-max_hedges) | integer literal: how many hedged attempts may run beside an attempt (default 1). Needs `hedge` |
/// | [`idempotency`](#once-per-key-idempotency-idempotency_key-idempotency_ttl) | expression: a reference to an idempotency store (`&MemoryStore<T>`, usually a `static`; `&RedisStore` with feature `redis`, async only): the whole operation runs at most once per key. Needs `idempotency_key`; the error type converts `IdempotencyInFlight` and `StoreError` |
/// | [`idempotency_key`](#once-per-key-idempotency-idempotency_key-idempotency_ttl) | expression `impl Into<String>`, from the arguments: the key |
/// | [`idempotency_ttl`](#once-per-key-idempotency-idempotency_key-idempotency_ttl) | duration: how long a success is replayed (default 24 h); `"0s"` stores nothing, but calls in flight at once still join |
/// | [`idempotency_fingerprint`](#the-same-key-with-other-parameters-idempotency_fingerprint) | expression `impl Hash` (bytes too), from the arguments: a key reused with another fingerprint fails with `E::from(IdempotencyConflict)` |
/// | [`on_retry`](#hearing-about-retries-on_retry) | expression `Fn(&RetryEvent)`, or `Fn(&RetryEvent, &E)` (a closure of two parameters, or a function named by path) that sees the typed error too, called before each wait |
/// | [`name`](#naming-the-operation-name) | expression of type `&'static str` or `String`, usually a literal: the name the report and its events carry; names made at run time are counted apart up to a limit (1 000 by default), the rest together. Default: the function's identifier |
/// | [`report`](#keeping-the-signature-report) | expression `Fn(&ExecutionReport)`: the function keeps its declared `Result<T, E>` and hands the report of each call to it |
/// | [`clock`](#time-in-tests-clock) | expression implementing `Clock`; `TokioClock` for an `async fn` and `SystemClock` for a `fn` by default |
/// | [`timing`](#no-clock-readings-timing) | `false`: the report measures no time, and no clock is read to measure it. Not with `timeout`, `budget`, `max_elapsed` or `retry_after` |
/// | [`crate`](#a-re-exported-runtime-crate) | `"path::to::resilient"`, for a re-exported runtime |
///
/// A duration is a string literal with a unit, checked at compile time
/// (`"250ms"`, `"10s"`, `"1.5s"`, `"2m"`; units `ns`, `us`, `ms`, `s`, `m`,
/// `h`), or any expression of type `std::time::Duration`. Option expressions
/// are evaluated on every call, inside the function, with its arguments in
/// scope: `budget = self.budget` and `clock = clock.clone()` work. A call or
/// a closure is evaluated exactly once a call; a value that only reads (a
/// literal, a path, a borrow, a field of `&self`) may be read again after a
/// failed attempt, so that a call that succeeds at once never stores the
/// operation.
///
/// A parameter marked [`#[attempt]`](#the-attempts-context-attempt) is
/// filled in by the runtime: the body learns which attempt it is running.
///
/// Misuse that the attribute can see (a missing `retries`, conflicting
/// options, a malformed duration, a `timeout` on a blocking fn, …) is a
/// compile error pointing at the option, saying what to write instead.
///
/// ## Which errors are retried: `retries`, `retry_on`, `retry_if`
///
/// `retries = N` allows `N` retries after the first attempt. Without
/// `retry_on` or `retry_if`, every error is retried; `retry_on` lists the
/// variants worth another try, and any other error ends the call at once.
///
/// ```
/// use resilient::{Attempt, StopReason, resilient};
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// enum FetchError {
///     #[error("busy, {queued} requests queued")]
///     Busy { queued: u32 },
///     #[error("unavailable")]
///     Unavailable,
///     #[error("{0} not found")]
///     NotFound(String),
/// }
///
/// #[resilient(retries = 3, retry_on = [Busy, FetchError::Unavailable], backoff = none)]
/// fn fetch(key: &str, #[attempt] attempt: Attempt) -> Result<String, FetchError> {
///     match (key, attempt.number()) {
///         ("hot", _) => Err(FetchError::Busy { queued: 9 }),
///         (_, 1) => Err(FetchError::Unavailable),
///         _ => Err(FetchError::NotFound(key.to_owned())),
///     }
/// }
///
/// // Always busy: the first attempt and 3 retries.
/// let hot = fetch("hot");
/// assert_eq!(hot.report().attempt_count(), 4);
/// assert_eq!(hot.report().retry_count(), 3);
/// assert_eq!(hot.report().stop_reason(), StopReason::AttemptsExhausted);
///
/// // `NotFound` is not in `retry_on`: the second attempt's error ends the call.
/// let cold = fetch("user:7");
/// assert_eq!(cold.report().attempt_count(), 2);
/// assert_eq!(cold.report().stop_reason(), StopReason::NotRetryable);
/// assert_eq!(cold.into_result(), Err(FetchError::NotFound("user:7".into())));
/// ```
///
/// For an error that is not an enum, `retry_if` takes a classifier: a path
/// to a function or a closure (write the closure's parameter type,
/// `|e: &io::Error| …`). `retry_on` on such an error is refused. The
/// attribute sees the error type's name, not its declaration, so it says
/// so itself for the types it knows by name: `io::Error` and `io::Result`
/// (with the `e.kind()` test to write), `anyhow::Error`, `eyre::Report`,
/// `String`, `Box<…>`, references and trait objects, and, by their whole
/// path, `tonic::Status` (with the `e.code()` test),
/// `resilient::http::HttpError` (with `resilient::http::retryable`),
/// `reqwest::Error`, `hyper::Error`, `serde_json::Error`,
/// `redis::RedisError`, tokio's `Elapsed` and `JoinError`, and the recipe
/// library's parse errors. On a struct of your own, or one imported under a
/// shorter name, the compiler reports the name as an "ambiguous associated
/// type".
///
/// ```
/// use resilient::{Attempt, StopReason, resilient};
/// use std::io;
///
/// fn is_transient(error: &io::Error) -> bool {
///     matches!(error.kind(), io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock)
/// }
///
/// #[resilient(retries = 2, retry_if = is_transient, backoff = none)]
/// fn read_config(#[attempt] attempt: Attempt) -> io::Result<String> {
///     match attempt.number() {
///         1 => Err(io::ErrorKind::Interrupted.into()),
///         _ => Err(io::ErrorKind::NotFound.into()),
///     }
/// }
///
/// let outcome = read_config();
/// assert_eq!(outcome.report().attempt_count(), 2);
/// assert_eq!(outcome.report().stop_reason(), StopReason::NotRetryable);
/// assert_eq!(outcome.into_result().unwrap_err().kind(), io::ErrorKind::NotFound);
/// ```
///
/// ## The wait between attempts: `backoff`
///
/// The delay before retry `n` is `base × multiplier^(n−1)`, capped at `max`.
/// The default jitter, `full`, draws each delay uniformly between zero and
/// that value, so that many clients don't retry in step; `equal` keeps at
/// least half of it, `none` waits exactly. No delay follows the last attempt.
///
/// ```
/// use resilient::{Backoff, Jitter, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("busy")]
/// struct Busy;
///
/// #[resilient(retries = 4, backoff = exponential(base = "100ms", max = "300ms", jitter = none))]
/// async fn exponential() -> Result<(), Busy> {
///     Err(Busy)
/// }
///
/// #[resilient(retries = 2, backoff = constant("1s"))]
/// async fn constant() -> Result<(), Busy> {
///     Err(Busy)
/// }
///
/// // Any `Backoff` value, here with equal jitter.
/// #[resilient(retries = 3, backoff = Backoff::exponential(Duration::from_secs(1), Duration::from_secs(10)).jitter(Jitter::Equal))]
/// async fn jittered() -> Result<(), Busy> {
///     Err(Busy)
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let millis = Duration::from_millis;
/// assert_eq!(exponential().await.report().delays(), [100, 200, 300, 300].map(millis));
/// assert_eq!(constant().await.report().delays(), [Duration::from_secs(1); 2]);
///
/// // Equal jitter: each delay between half its nominal value and all of it.
/// let delays = jittered().await.report().delays();
/// for (delay, nominal) in delays.iter().zip([1, 2, 4].map(Duration::from_secs)) {
///     assert!(nominal / 2 <= *delay && *delay <= nominal);
/// }
/// # }
/// ```
///
/// The jitter draws from a generator seeded per call. `jitter_seed = N`
/// seeds it with `N` instead, so that a test can assert the exact jittered
/// schedule (the same as `Operation::jitter_seed(N)` draws):
///
/// ```
/// use resilient::{Backoff, FakeClock, Operation, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("busy")]
/// struct Busy;
///
/// #[resilient(retries = 3, backoff = exponential(base = "100ms"), jitter_seed = 7, clock = clock)]
/// fn save(clock: &FakeClock) -> Result<(), Busy> {
///     Err(Busy)
/// }
///
/// let clock = FakeClock::new();
/// let _ = save(&clock);
/// let jittered = clock.slept();
///
/// let again = FakeClock::new();
/// let _ = save(&again);
/// assert_eq!(again.slept(), jittered, "the same seed, the same delays");
///
/// let same = FakeClock::new();
/// let _ = Operation::new()
///     .max_attempts(4)
///     .backoff(Backoff::exponential(Duration::from_millis(100), Backoff::DEFAULT_MAX))
///     .jitter_seed(7)
///     .clock(&same)
///     .run(|_| Err::<(), _>(Busy));
/// assert_eq!(same.slept(), jittered);
/// ```
///
/// `max_delay` caps every delay before a retry, whatever the backoff (a
/// constant one, or a `Backoff` value, too), before it is jittered. Inside
/// `exponential(…)` it is another name of `max`. A server's Retry-After
/// hint is not a backoff delay: `max_retry_after_wait` bounds those.
///
/// ```
/// use resilient::resilient;
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("busy")]
/// struct Busy;
///
/// #[resilient(retries = 3, backoff = constant("1s"), max_delay = "250ms")]
/// async fn capped() -> Result<(), Busy> {
///     Err(Busy)
/// }
///
/// #[resilient(retries = 4, backoff = exponential(base = "100ms", max_delay = "300ms", jitter = none))]
/// async fn exponential() -> Result<(), Busy> {
///     Err(Busy)
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let millis = Duration::from_millis;
/// assert_eq!(capped().await.report().delays(), [millis(250); 3]);
/// assert_eq!(exponential().await.report().delays(), [100, 200, 300, 300].map(millis));
/// # }
/// ```
///
/// ## A shared policy: `retry`
///
/// Build a `RetryPolicy` once, checked when it is built, and share it
/// between the functions that call the same service. It replaces `retries`,
/// `retry_on`, `retry_if` and `backoff`; the other options still apply.
///
/// ```
/// use resilient::{Backoff, RetryPolicy, resilient};
/// use std::sync::LazyLock;
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("unreachable")]
/// struct Unreachable;
///
/// static POLICY: LazyLock<RetryPolicy> = LazyLock::new(|| {
///     RetryPolicy::builder()
///         .max_attempts(3)
///         .backoff(Backoff::constant(Duration::from_millis(250)))
///         .build()
///         .expect("a valid policy")
/// });
///
/// #[resilient(retry = POLICY)]
/// async fn ping() -> Result<(), Unreachable> {
///     Err(Unreachable)
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let outcome = ping().await;
/// assert_eq!(outcome.report().attempt_count(), 3);
/// assert_eq!(outcome.report().delays(), [Duration::from_millis(250); 2]);
/// # }
/// ```
///
/// ## Time limits: `timeout`, `budget`
///
/// `timeout` bounds each attempt of an `async fn`; `budget` bounds the whole
/// call, waits included. Each attempt gets `min(timeout, budget − elapsed)`,
/// and no attempt starts, nor wait runs, past the budget. An attempt cut
/// short fails with `E::from(TimedOut)`.
///
/// ```
/// use resilient::{FailureKind, StopReason, TimedOut, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// enum LookupError {
///     #[error("timed out")]
///     Timeout,
/// }
///
/// impl From<TimedOut> for LookupError {
///     fn from(_: TimedOut) -> Self {
///         LookupError::Timeout
///     }
/// }
///
/// #[resilient(retries = 5, backoff = constant("1s"), timeout = "2s", budget = "4500ms")]
/// async fn lookup() -> Result<String, LookupError> {
///     // A call that hangs for a minute.
///     tokio::time::sleep(Duration::from_secs(60)).await;
///     Ok("found".to_owned())
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let outcome = lookup().await;
/// let report = outcome.report();
/// let millis = Duration::from_millis;
/// // Attempt 1 runs 0–2 s; after a 1 s wait, attempt 2 gets what is left of the budget.
/// let deadlines: Vec<_> = report.attempts().iter().map(|a| a.deadline()).collect();
/// assert_eq!(deadlines, [Some(millis(2000)), Some(millis(1500))]);
/// assert_eq!(report.attempts()[1].error().unwrap().kind(), FailureKind::Timeout);
/// assert_eq!(report.stop_reason(), StopReason::BudgetExhausted);
/// assert_eq!(report.elapsed(), millis(4500));
/// # }
/// ```
///
/// On a blocking `fn`, a running attempt can't be interrupted: `budget` stops
/// the retries, and the attempt can read its deadline from `#[attempt]`.
///
/// ## A soft cap with a floor: `max_elapsed`, `min_retries`
///
/// `max_elapsed` stops retrying once that much time has passed, but only after
/// `min_retries` retries have run: a slow first attempt still gets its
/// retries. Stopping for a cap ends with the last error and
/// `StopReason::BudgetExhausted`.
///
/// ```
/// use resilient::{Attempt, StopReason, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("export failed")]
/// struct ExportError;
///
/// #[resilient(retries = 5, backoff = constant("1s"), max_elapsed = "5m", min_retries = 2)]
/// async fn export(#[attempt] attempt: Attempt) -> Result<(), ExportError> {
///     // The first attempt is slow (a cold cache), the next ones quick.
///     let took = if attempt.number() == 1 { 400 } else { 1 };
///     tokio::time::sleep(Duration::from_secs(took)).await;
///     Err(ExportError)
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let outcome = export().await;
/// // 400 s is past the 5-minute cap, yet 2 retries still run.
/// assert_eq!(outcome.report().retry_count(), 2);
/// assert_eq!(outcome.report().stop_reason(), StopReason::BudgetExhausted);
/// assert_eq!(outcome.report().elapsed(), Duration::from_secs(404));
/// # }
/// ```
///
/// ## Calls inside calls: `nested`
///
/// Three layers that each make 4 attempts turn one failure at the bottom
/// into 4 × 4 × 4 = 64 calls. With `nested = "no_retry"` on a function
/// with retries, a resilient call made inside any of its attempts, the
/// last one included, doesn't retry its own failure: it returns its error
/// after one attempt, with `StopReason::LeftToCaller`, and this function
/// retries (or, on its last attempt, fails). The calls made inside that
/// call are held too: only the outermost function that retries does, and
/// the bottom is called once per attempt of it, 4 instead of 64.
///
/// ```
/// use resilient::{StopReason, resilient};
/// use std::sync::atomic::{AtomicU32, Ordering};
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// #[error("down")]
/// struct Down;
///
/// static CALLS: AtomicU32 = AtomicU32::new(0);
///
/// #[resilient(retries = 3, backoff = none)]
/// fn fetch() -> Result<(), Down> {
///     CALLS.fetch_add(1, Ordering::Relaxed);
///     Err(Down)
/// }
///
/// #[resilient(retries = 3, backoff = none, nested = "no_retry")]
/// fn handle() -> Result<StopReason, Down> {
///     let inner = fetch();
///     let stop = inner.report().stop_reason();
///     inner.into_result().map(|()| stop)
/// }
///
/// let outcome = handle();
/// assert_eq!(outcome.result(), &Err(Down));
/// // One call on each of `handle`'s 4 attempts, its last too: 4, where
/// // 4 × 4 would be 16.
/// assert_eq!(CALLS.load(Ordering::Relaxed), 4);
/// ```
///
/// ## Server hints: `retry_after`, `max_retry_after_wait`, `max_retry_after_retries`
///
/// When a server says how long to wait (HTTP 429 with `Retry-After`),
/// `retry_after` reads that hint from the error: the engine waits exactly
/// that long instead of the backoff, and the retry is not counted against
/// `retries`. `max_retry_after_wait` bounds the total of these waits (60 s
/// by default), and `max_retry_after_retries` their number (10 by default);
/// a hint that would overrun either, or the `budget`, is not waited for and
/// the call stops. The two counts are apart: a call makes at most
/// `retries + max_retry_after_retries + 1` attempts.
///
/// The three were called `rate_limit`, `max_rate_limit_wait` and
/// `max_rate_limit_retries`, names easily taken for the `RateLimiter` that
/// `limit` takes. The old names are still accepted and mean the same; an
/// option given under both names is given twice, which is an error.
///
/// The hint is read only for an error that is retried: an error that
/// `retry_on` or `retry_if` leaves out ends the call, and a hint on it is
/// ignored in silence. The attribute can't warn about it, since the hint
/// is a function whose variants it can't see; list in `retry_on` every
/// error the hint answers.
///
/// ```
/// use resilient::{Attempt, DelaySource, StopReason, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// enum ApiError {
///     #[error("rate limited, retry after {0:?}")]
///     RateLimited(Duration),
/// }
///
/// fn hinted(error: &ApiError) -> Option<Duration> {
///     match error {
///         ApiError::RateLimited(wait) => Some(*wait),
///     }
/// }
///
/// #[resilient(retries = 1, retry_after = hinted)]
/// async fn quote(#[attempt] attempt: Attempt) -> Result<u32, ApiError> {
///     match attempt.number() {
///         1 | 2 => Err(ApiError::RateLimited(Duration::from_secs(2))),
///         _ => Ok(42),
///     }
/// }
///
/// #[resilient(retries = 1, retry_after = hinted, max_retry_after_wait = "3s")]
/// async fn impatient() -> Result<u32, ApiError> {
///     Err(ApiError::RateLimited(Duration::from_secs(2)))
/// }
///
/// #[resilient(retry_after = hinted, max_retry_after_retries = 2)]
/// async fn polite() -> Result<u32, ApiError> {
///     Err(ApiError::RateLimited(Duration::from_millis(100)))
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// // Two hinted waits, though `retries = 1`.
/// let outcome = quote().await;
/// assert_eq!(outcome.report().delays(), [Duration::from_secs(2); 2]);
/// let delay = outcome.report().attempts()[1].delay_before().unwrap();
/// assert_eq!(delay.source(), DelaySource::RetryAfter);
/// assert_eq!(outcome.into_result().unwrap(), 42);
///
/// // A second 2 s wait would pass the 3 s allowed.
/// let outcome = impatient().await;
/// assert_eq!(outcome.report().delays(), [Duration::from_secs(2)]);
/// assert_eq!(outcome.report().stop_reason(), StopReason::RateLimitExhausted);
///
/// // Two hinted waits are allowed, not a third, though each is short.
/// let outcome = polite().await;
/// assert_eq!(outcome.report().attempt_count(), 3);
/// assert_eq!(outcome.report().delays(), [Duration::from_millis(100); 2]);
/// assert_eq!(outcome.report().stop_reason(), StopReason::RateLimitExhausted);
/// # }
/// ```
///
/// ## A shared circuit breaker: `circuit_breaker`
///
/// A `CircuitBreaker` is shared state, usually a `static`: after enough
/// failures it opens, and every function consulting it fails at once with
/// `E::from(CircuitOpen)`, without running its body, until the break is
/// over. A rejection ends the call with `StopReason::CircuitOpen`: it is
/// never retried, whatever `retry_on` or `retry_if` say, and the fallback
/// (if any) runs.
///
/// Each attempt that ran counts once: a success as a success, every
/// failure (an error, a timeout, an invalid value) as a failure, whether or
/// not it is retried, so that a dependency failing every request trips the
/// breaker however its errors are classified. Return an answer that means
/// the dependency works (a lookup's "not found") as an `Ok` value if it
/// must not count. Rejected attempts and dropped hedges count for nothing,
/// and take no token from a `throttle`.
///
/// ```
/// use resilient::{CircuitBreaker, CircuitOpen, FailureKind, StopReason, resilient};
/// use std::sync::LazyLock;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// enum StockError {
///     #[error("warehouse down")]
///     Down,
///     #[error("circuit open")]
///     CircuitOpen,
/// }
///
/// impl From<CircuitOpen> for StockError {
///     fn from(_: CircuitOpen) -> Self {
///         StockError::CircuitOpen
///     }
/// }
///
/// // One breaker for the warehouse, whichever function calls it.
/// static WAREHOUSE: LazyLock<CircuitBreaker> = LazyLock::new(|| {
///     CircuitBreaker::builder()
///         .failure_threshold(2)
///         .break_duration(Duration::from_secs(30))
///         .build()
///         .expect("a valid breaker")
/// });
///
/// static CALLS: AtomicU32 = AtomicU32::new(0);
///
/// #[resilient(retries = 3, retry_on = [Down], backoff = none, circuit_breaker = &WAREHOUSE)]
/// async fn stock() -> Result<u32, StockError> {
///     CALLS.fetch_add(1, Ordering::SeqCst);
///     Err(StockError::Down)
/// }
///
/// #[resilient(retries = 3, retry_on = [Down], backoff = none, circuit_breaker = &WAREHOUSE)]
/// async fn reserve() -> Result<(), StockError> {
///     CALLS.fetch_add(1, Ordering::SeqCst);
///     Ok(())
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// // Two failures open the breaker; the third attempt is rejected unrun.
/// let outcome = stock().await;
/// let kinds: Vec<_> = outcome.report().attempts().iter().map(|a| a.error().unwrap().kind()).collect();
/// assert_eq!(kinds, [FailureKind::Operation, FailureKind::Operation, FailureKind::CircuitOpen]);
/// assert_eq!(CALLS.load(Ordering::SeqCst), 2);
///
/// // Another function on the same breaker fails at once, without calling out.
/// let outcome = reserve().await;
/// assert_eq!(outcome.report().stop_reason(), StopReason::CircuitOpen);
/// assert!(matches!(outcome.into_result(), Err(StockError::CircuitOpen)));
/// assert_eq!(CALLS.load(Ordering::SeqCst), 2);
/// # }
/// ```
///
/// ## A retry budget shared between calls: `throttle`
///
/// `retries` bounds what one call does; a `RetryThrottle` bounds the
/// retries of every call that shares it, so that when a dependency fails
/// for everyone, its clients stop multiplying the load (gRPC's retry
/// throttling). It holds `max_tokens` tokens and starts full: a retryable
/// failure takes one, a success gives back `token_ratio`, and a retry (or a
/// hedge) starts only while more than half remain. The first attempt of a
/// call always runs.
///
/// ```
/// use resilient::{RetryThrottle, StopReason, resilient};
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("overloaded")]
/// struct Overloaded;
///
/// // One throttle for the payment service, whichever function calls it.
/// static PAYMENTS: RetryThrottle = RetryThrottle::new(4, 0.1);
///
/// #[resilient(retries = 5, backoff = none, throttle = &PAYMENTS)]
/// fn charge() -> Result<(), Overloaded> {
///     Err(Overloaded)
/// }
///
/// // 4 tokens: the first failure leaves 3, more than half, so a retry
/// // runs; its failure leaves 2, and retries stop.
/// let outcome = charge();
/// assert_eq!(outcome.report().attempt_count(), 2);
/// assert_eq!(outcome.report().stop_reason(), StopReason::Throttled);
///
/// // The next call makes its first attempt only.
/// assert_eq!(charge().report().attempt_count(), 1);
/// assert_eq!(PAYMENTS.tokens(), 1.0);
/// ```
///
/// Any `&impl RetryBudget` serves, an `Arc<RetryThrottle>` in a field
/// included: `throttle = &self.throttle`.
///
/// ## Admission control: `limit`, `limit_wait`
///
/// Retries, breakers and throttles protect a dependency from its callers'
/// failures; limits protect it from load. `limit` takes a limiter of
/// `resilient::limit`, or a list of them taken in order:
/// every attempt (primary, retry or hedge, not the fallback) takes a
/// permit from each before it starts and returns it when it ends; a call
/// backing off holds none. An attempt refused a permit doesn't run: the
/// call fails with `E::from(LimitExceeded)`, stops with
/// `StopReason::LimitExceeded` and is not retried, though its fallback
/// runs. `limit_wait` lets the attempt wait for a permit first, within the
/// budget; the wait is the attempt's `queued()` time in the report.
///
/// ```
/// use resilient::limit::{Bulkhead, RateLimiter};
/// use resilient::{LimitExceeded, StopReason, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// enum DbError {
///     #[error("busy: {0}")]
///     Busy(LimitExceeded),
/// }
///
/// impl From<LimitExceeded> for DbError {
///     fn from(refusal: LimitExceeded) -> Self {
///         DbError::Busy(refusal)
///     }
/// }
///
/// // The database falls over beyond 32 connections; the reports endpoint
/// // may send 2 queries a second to it.
/// static POOL: Bulkhead = Bulkhead::new(32).named("pool");
/// static REPORTS: RateLimiter = RateLimiter::per_second(2).burst(1).named("reports");
///
/// #[resilient(limit = [&POOL, &REPORTS], limit_wait = "1s")]
/// async fn monthly_report() -> Result<&'static str, DbError> {
///     Ok("report")
/// }
///
/// #[resilient(limit = &REPORTS)]
/// async fn quick_report() -> Result<&'static str, DbError> {
///     Ok("quick")
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// assert_eq!(monthly_report().await.into_result(), Ok("report"));
///
/// // The reports' cell is spent: without a wait, the next call is refused.
/// let refused = quick_report().await;
/// assert_eq!(refused.report().stop_reason(), StopReason::LimitExceeded);
/// let Err(DbError::Busy(refusal)) = refused.result() else { panic!() };
/// assert_eq!(refusal.limiter(), "reports");
/// assert_eq!(refusal.retry_after(), Some(Duration::from_millis(500)));
///
/// // With `limit_wait`, the call waits for the next cell, 500 ms.
/// let waited = monthly_report().await;
/// assert_eq!(waited.report().attempts()[0].queued(), Duration::from_millis(500));
/// assert_eq!(POOL.available(), 32);
/// # }
/// ```
///
/// ## Checking values: `validate`
///
/// A successful value that fails the check becomes `E::from(ValidationFailed)`,
/// an error like any other: retried when it is retryable.
///
/// ```
/// use resilient::{Attempt, FailureKind, ValidationFailed, resilient};
///
/// #[derive(Debug, thiserror::Error)]
/// enum SensorError {
///     #[error("implausible reading")]
///     Implausible,
/// }
///
/// impl From<ValidationFailed> for SensorError {
///     fn from(_: ValidationFailed) -> Self {
///         SensorError::Implausible
///     }
/// }
///
/// fn plausible(celsius: &f64) -> bool {
///     (-50.0..=60.0).contains(celsius)
/// }
///
/// #[resilient(retries = 2, backoff = none, validate = plausible)]
/// fn temperature(#[attempt] attempt: Attempt) -> Result<f64, SensorError> {
///     // The sensor glitches on its first read.
///     Ok(if attempt.number() == 1 { 999.0 } else { 21.5 })
/// }
///
/// let outcome = temperature();
/// let first = outcome.report().attempts()[0].error().unwrap();
/// assert_eq!(first.kind(), FailureKind::Validation);
/// assert_eq!(outcome.into_result().unwrap(), 21.5);
/// ```
///
/// ## When every attempt fails: `fallback`
///
/// The fallback runs once, after the attempts end in failure for any reason
/// (a non-retryable error, the retries used up, a cap, an open circuit). It
/// must take the function's parameters in the same order (a method's
/// receiver first), then, if it wants them, the error that ended the
/// attempts (`&E`) and an `Attempt`; it returns the same `Result<T, E>`,
/// and is `async` exactly when the function is. It counts as an attempt,
/// never as a retry, and its result is the call's result.
///
/// ```
/// use resilient::{AttemptKind, resilient};
/// use std::collections::HashMap;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("catalog down, looking up {0}")]
/// struct CatalogDown(String);
///
/// struct Catalog {
///     cache: HashMap<u32, String>,
/// }
///
/// impl Catalog {
///     #[resilient(retries = 1, backoff = none, fallback = Self::cached)]
///     async fn name(&self, id: u32) -> Result<String, CatalogDown> {
///         Err(CatalogDown(format!("item {id}")))
///     }
///
///     // Same parameters, receiver first; same `Result`; `async` like `name`.
///     async fn cached(&self, id: u32) -> Result<String, CatalogDown> {
///         self.cache.get(&id).cloned().ok_or(CatalogDown(format!("item {id}")))
///     }
/// }
///
/// // A blocking function takes a blocking fallback.
/// #[resilient(retries = 1, backoff = none, fallback = unknown)]
/// fn stock(shelf: &str) -> Result<u32, CatalogDown> {
///     Err(CatalogDown(format!("shelf {shelf}")))
/// }
///
/// fn unknown(_shelf: &str) -> Result<u32, CatalogDown> {
///     Ok(0)
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let catalog = Catalog { cache: HashMap::from([(7, "kettle".to_owned())]) };
/// let outcome = catalog.name(7).await;
/// let kinds: Vec<_> = outcome.report().attempts().iter().map(|a| a.kind()).collect();
/// assert_eq!(kinds, [AttemptKind::Primary, AttemptKind::Primary, AttemptKind::Fallback]);
/// assert_eq!(outcome.report().retry_count(), 1);
/// assert!(outcome.report().fallback_used());
/// assert_eq!(outcome.into_result().unwrap(), "kettle");
///
/// assert_eq!(stock("top").into_result().unwrap(), 0);
/// # }
/// ```
///
/// A list of fallbacks is a chain: each runs only if the one before it
/// failed, and the first success ends it. Every candidate records its
/// attempt, failure included; the last one's error is the call's. Each
/// candidate but the last gets clones of the arguments, so a chain needs
/// arguments that are `Clone` (references are).
///
/// ```
/// use resilient::{AttemptKind, resilient};
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// #[error("{0} down")]
/// struct Down(&'static str);
///
/// #[resilient(retries = 1, backoff = none, fallback = [from_replica, from_cache])]
/// fn price(sku: String) -> Result<String, Down> {
///     Err(Down("primary"))
/// }
///
/// fn from_replica(_sku: String) -> Result<String, Down> {
///     Err(Down("replica"))
/// }
///
/// fn from_cache(sku: String) -> Result<String, Down> {
///     Ok(format!("{sku}: 12.50 (cached)"))
/// }
///
/// let outcome = price("kettle".to_owned());
/// let report = outcome.report();
/// let kinds: Vec<_> = report.attempts().iter().map(|a| a.kind()).collect();
/// use AttemptKind::{Fallback, Primary};
/// assert_eq!(kinds, [Primary, Primary, Fallback, Fallback]);
/// assert_eq!(report.retry_count(), 1);
/// assert_eq!(report.attempts()[2].error().unwrap().message(), "replica down");
/// assert_eq!(outcome.into_result().unwrap(), "kettle: 12.50 (cached)");
/// ```
///
/// A fallback that takes the error can answer some errors and pass the
/// others on: here a missing item stays a `NotFound`, and only an outage
/// is answered from the cache.
///
/// ```
/// use resilient::resilient;
///
/// #[derive(Debug, Clone, PartialEq, thiserror::Error)]
/// enum ShopError {
///     #[error("upstream unavailable")]
///     Unavailable,
///     #[error("item {0} not found")]
///     NotFound(u32),
/// }
///
/// #[resilient(retries = 1, retry_on = [Unavailable], backoff = none, fallback = cached)]
/// fn stock(id: u32) -> Result<u32, ShopError> {
///     if id == 404 { Err(ShopError::NotFound(id)) } else { Err(ShopError::Unavailable) }
/// }
///
/// // The function's parameters, then the error that ended the attempts.
/// fn cached(id: u32, error: &ShopError) -> Result<u32, ShopError> {
///     match error {
///         ShopError::Unavailable => Ok(id % 10),
///         other => Err(other.clone()),
///     }
/// }
///
/// assert_eq!(stock(17).into_result(), Ok(7));
/// assert_eq!(stock(404).into_result(), Err(ShopError::NotFound(404)));
/// ```
///
/// ## Only for some errors: `fallback_on`, `fallback_if`
///
/// By default the fallback answers every error. `fallback_on` lists the
/// variants it answers, named as in `retry_on`; `fallback_if` takes a test
/// `Fn(&E) -> bool` for errors that are not enums. Any other error is
/// returned as it is, no fallback runs, and the report says so:
/// `fallback_used()` is `false`. With a chain, the test decides once,
/// on the error that ended the attempts, whether the chain runs.
///
/// ```
/// use resilient::resilient;
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// enum ShopError {
///     #[error("upstream unavailable")]
///     Unavailable,
///     #[error("item {0} not found")]
///     NotFound(u32),
/// }
///
/// #[resilient(retries = 1, backoff = none, fallback = cached, fallback_on = [Unavailable])]
/// fn stock(id: u32) -> Result<u32, ShopError> {
///     if id == 404 { Err(ShopError::NotFound(id)) } else { Err(ShopError::Unavailable) }
/// }
///
/// fn cached(id: u32) -> Result<u32, ShopError> {
///     Ok(id % 10)
/// }
///
/// fn is_outage(error: &ShopError) -> bool {
///     matches!(error, ShopError::Unavailable)
/// }
///
/// #[resilient(fallback = cached, fallback_if = is_outage)]
/// fn price(id: u32) -> Result<u32, ShopError> {
///     Err(ShopError::NotFound(id))
/// }
///
/// let outage = stock(17);
/// assert!(outage.report().fallback_used());
/// assert_eq!(outage.into_result(), Ok(7));
///
/// let missing = stock(404);
/// assert!(!missing.report().fallback_used());
/// assert_eq!(missing.into_result(), Err(ShopError::NotFound(404)));
///
/// assert_eq!(price(5).into_result(), Err(ShopError::NotFound(5)));
/// ```
///
/// ## Chaos on purpose: `chaos`, `chaos_fault`, `chaos_outcome`, `chaos_latency`
///
/// A fallback that never ran is a guess. `chaos = &SWITCH` names a
/// [`Chaos`](../resilient/chaos/struct.Chaos.html) switch, usually a
/// `static`, which decides attempt by attempt whether to inject (Polly's
/// rule: enabled, and a draw below its rate). `chaos_fault` fails an
/// injected attempt with an `E`, `chaos_outcome` succeeds it with a `T`,
/// both without running the body; `chaos_latency` makes it wait first, on
/// the operation's clock and inside its deadline, so a `timeout` cuts it.
/// Fallbacks are never injected, and the report tells each injected
/// attempt (`AttemptRecord::injected`). The switch is flipped at run time
/// (`set_enabled`, `set_injection_rate`), from any thread; while it is off,
/// an attempt pays one relaxed atomic load.
///
/// One switch serves every kind written and draws once per attempt; a list,
/// `chaos = [&FAULTS, &SLOW]`, gives each kind its own switch, in the order
/// fault, outcome, latency. A fault and an outcome need a switch each: an
/// attempt either fails or succeeds. The value of `chaos_fault` or
/// `chaos_outcome` is evaluated anew for each injection; a closure there
/// must capture nothing.
///
/// ```
/// use resilient::chaos::{Chaos, Injection};
/// use resilient::resilient;
/// use std::time::Duration;
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// enum PriceError {
///     #[error("pricing unavailable")]
///     Unavailable,
/// }
///
/// // Off until a test, a staging config or an admin endpoint switches it on.
/// static PRICING: Chaos = Chaos::new().injection_rate(1.0);
/// static SLOW: Chaos = Chaos::new().injection_rate(1.0);
///
/// #[resilient(retries = 2, backoff = none, fallback = list_price,
///             chaos = &PRICING, chaos_fault = PriceError::Unavailable)]
/// async fn price(sku: &str) -> Result<u32, PriceError> {
///     Ok(1_250)
/// }
///
/// async fn list_price(_sku: &str) -> Result<u32, PriceError> {
///     Ok(1_000)
/// }
///
/// #[resilient(chaos = [&PRICING, &SLOW], chaos_outcome = || 0, chaos_latency = "2s")]
/// async fn discount(sku: &str) -> Result<u32, PriceError> {
///     Ok(5)
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// assert_eq!(price("A-1").await.into_result(), Ok(1_250));
///
/// // Every primary attempt injected: the fallback is proven to serve.
/// PRICING.set_enabled(true);
/// let outcome = price("A-1").await;
/// let injected: Vec<_> = outcome.report().attempts().iter().map(|a| a.injected()).collect();
/// assert_eq!(injected, [Some(Injection::Fault), Some(Injection::Fault), Some(Injection::Fault), None]);
/// assert_eq!(outcome.into_result(), Ok(1_000));
///
/// // Each kind draws on its own switch: a fake outcome, two seconds late.
/// SLOW.set_enabled(true);
/// let start = tokio::time::Instant::now();
/// assert_eq!(discount("A-1").await.into_result(), Ok(0));
/// assert_eq!(start.elapsed(), Duration::from_secs(2));
/// # }
/// ```
///
/// ## Against slow attempts: `hedge`, `max_hedges`
///
/// When most calls answer quickly but a few hang, waiting for a timeout
/// wastes the caller's time. With `hedge`, an attempt still running after
/// that delay gets a twin: a hedged attempt starts beside it, and the first
/// to succeed wins; the others are dropped. `max_hedges` (default 1) is how
/// many hedges may run beside an attempt, one more after each delay. A
/// hedge is counted in `attempt_count`, never in `retry_count`, and is
/// recorded as `AttemptKind::Hedge`; a dropped attempt is recorded with
/// `FailureKind::Cancelled`. If every attempt of the round fails, the
/// retry rules apply as usual.
///
/// Each hedge adds load to the service that is already slow: keep the
/// delay near the latency that most calls beat (a high percentile), and
/// consider a [`throttle`](#a-retry-budget-shared-between-calls-throttle),
/// which hedges consult too. Only an `async fn` can run two attempts at
/// once.
///
/// ```
/// use resilient::{Attempt, AttemptKind, FailureKind, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("unreachable")]
/// struct Unreachable;
///
/// #[resilient(hedge = "200ms", max_hedges = 2)]
/// async fn lookup(key: &str, #[attempt] attempt: Attempt) -> Result<String, Unreachable> {
///     // The replicas asked first hang for 5 s; the third answers in 50 ms.
///     let took = if attempt.number() < 3 { 5_000 } else { 50 };
///     tokio::time::sleep(Duration::from_millis(took)).await;
///     Ok(format!("{key} from replica {}", attempt.number()))
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let start = tokio::time::Instant::now();
/// let outcome = lookup("user:7").await;
/// // Hedges at 200 ms and 400 ms; the second answers at 450 ms.
/// assert_eq!(start.elapsed(), Duration::from_millis(450));
/// let report = outcome.report();
/// let kinds: Vec<_> = report.attempts().iter().map(|a| a.kind()).collect();
/// assert_eq!(kinds, [AttemptKind::Primary, AttemptKind::Hedge, AttemptKind::Hedge]);
/// assert_eq!(report.retry_count(), 0);
/// let dropped = report.attempts()[0].error().unwrap().kind();
/// assert_eq!(dropped, FailureKind::Cancelled);
/// assert_eq!(outcome.into_result().unwrap(), "user:7 from replica 3");
/// # }
/// ```
///
/// ## Once per key: `idempotency`, `idempotency_key`, `idempotency_ttl`
///
/// A side effect (a payment, an e-mail) runs once per key, whoever calls
/// and however often: a stored success is replayed without running
/// anything, a call that finds the key running elsewhere waits for it (no
/// longer than `budget`) and returns its value, and a failure stores
/// nothing. Only a success of the function's own attempts is stored; a
/// fallback's value is returned, not stored. The report says which
/// happened: `report.idempotency()`.
///
/// ```
/// use resilient::idempotency::{IdempotencyInFlight, IdempotencyStatus, MemoryStore, StoreError};
/// use resilient::resilient;
/// use std::sync::atomic::{AtomicU32, Ordering};
///
/// #[derive(Debug, thiserror::Error)]
/// enum MailError {
///     #[error("another send of this mail is running")]
///     InFlight(#[from] IdempotencyInFlight),
///     #[error("idempotency store: {0}")]
///     Store(#[from] StoreError),
/// }
///
/// static SENT: MemoryStore<u32> = MemoryStore::new();
/// static MAILS: AtomicU32 = AtomicU32::new(0);
///
/// #[resilient(idempotency = &SENT, idempotency_key = format!("welcome:{user}"), idempotency_ttl = "168h")]
/// fn send_welcome(user: u64) -> Result<u32, MailError> {
///     Ok(MAILS.fetch_add(1, Ordering::SeqCst) + 1) // the mail goes out
/// }
///
/// assert_eq!(send_welcome(7).report().idempotency(), Some(IdempotencyStatus::Executed));
/// let again = send_welcome(7);
/// assert_eq!(again.report().idempotency(), Some(IdempotencyStatus::Replayed));
/// assert_eq!(again.into_result().unwrap(), 1);
/// assert_eq!(MAILS.load(Ordering::SeqCst), 1, "one mail, whatever the calls");
/// ```
///
/// `idempotency_ttl = "0s"` stores nothing for later calls, but calls made
/// while one runs still join it. Inside the body,
/// `resilient::idempotency::current_claim()` gives the key and the claim's
/// fencing token, larger for every new claim of the key: pass it to a
/// downstream that refuses writes with a smaller one. A body that calls
/// its own key again fails at once with `IdempotencyInFlight`.
///
/// ### The same key with other parameters: `idempotency_fingerprint`
///
/// Any `impl Hash` of the call's parameters (bytes too): a call that reuses
/// a key with another fingerprint, while the first is in flight or stored,
/// fails with `E::from(IdempotencyConflict)` rather than get the first
/// call's receipt, as payment APIs answer. Needs `From<IdempotencyConflict>`.
///
/// ```
/// use resilient::idempotency::{IdempotencyConflict, IdempotencyInFlight, MemoryStore, StoreError};
/// use resilient::resilient;
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// enum PayError {
///     #[error("this key was used for another payment")]
///     KeyReused,
///     #[error("busy or store down")]
///     Unavailable,
/// }
/// impl From<IdempotencyConflict> for PayError {
///     fn from(_: IdempotencyConflict) -> Self { PayError::KeyReused }
/// }
/// impl From<IdempotencyInFlight> for PayError {
///     fn from(_: IdempotencyInFlight) -> Self { PayError::Unavailable }
/// }
/// impl From<StoreError> for PayError {
///     fn from(_: StoreError) -> Self { PayError::Unavailable }
/// }
///
/// static CHARGES: MemoryStore<String> = MemoryStore::new();
///
/// #[resilient(idempotency = &CHARGES, idempotency_key = key, idempotency_fingerprint = cents)]
/// fn charge(key: &str, cents: u64) -> Result<String, PayError> {
///     Ok(format!("charged {cents}"))
/// }
///
/// assert_eq!(charge("order-7", 4200).into_result().unwrap(), "charged 4200");
/// assert_eq!(charge("order-7", 4200).into_result().unwrap(), "charged 4200"); // replayed
/// assert_eq!(charge("order-7", 9900).into_result(), Err(PayError::KeyReused));
/// ```
///
/// ## Hearing about retries: `on_retry`
///
/// Called before each wait with a `RetryEvent`: which attempt failed, how,
/// and how long the wait will be. A place for logs and metrics.
///
/// ```
/// use resilient::{RetryEvent, resilient};
/// use std::sync::Mutex;
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("connection reset")]
/// struct Reset;
///
/// static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());
///
/// fn log_retry(event: &RetryEvent<'_>) {
///     let line = format!("attempt {} failed; next in {:?}", event.attempt(), event.delay());
///     LOG.lock().unwrap().push(line);
/// }
///
/// #[resilient(retries = 2, backoff = constant("500ms"), on_retry = log_retry)]
/// async fn sync_orders() -> Result<(), Reset> {
///     Err(Reset)
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let outcome = sync_orders().await;
/// assert_eq!(outcome.report().delays(), [Duration::from_millis(500); 2]);
/// assert_eq!(
///     *LOG.lock().unwrap(),
///     ["attempt 1 failed; next in 500ms", "attempt 2 failed; next in 500ms"]
/// );
/// # }
/// ```
///
/// A closure of two parameters, or a function of `&RetryEvent` and `&E`,
/// also gets the error that caused the retry, typed:
///
/// ```
/// use resilient::{FakeClock, resilient};
/// use std::sync::Mutex;
///
/// #[derive(Debug, Clone, PartialEq)]
/// struct Refused { code: u16 }
///
/// static SEEN: Mutex<Vec<(u32, u16)>> = Mutex::new(Vec::new());
///
/// #[resilient(
///     retries = 2,
///     backoff = none,
///     clock = FakeClock::new(),
///     on_retry = |event, error| SEEN.lock().unwrap().push((event.attempt(), error.code))
/// )]
/// fn push() -> Result<(), Refused> {
///     Err(Refused { code: 503 })
/// }
///
/// let _ = push();
/// assert_eq!(*SEEN.lock().unwrap(), [(1, 503), (2, 503)]);
/// ```
///
/// ## Naming the operation: `name`
///
/// The report, its table and the `tracing` events (as their `operation`
/// field) carry the operation's name: the function's identifier, or
/// `name`. The value is an expression like any option's, so
/// `name = format!("shard.{id}")` works too.
///
/// **Cardinality.** With `metrics` or `dashboard`, each distinct name keeps
/// counts, a set of series and a dashboard tile for as long as the process
/// runs. Without `name`, the function has counts of its own, in a
/// `static`. Names given at run time are counted apart up to a limit, 1 000
/// by default (`resilient::cardinality::set_limit`); the calls of every
/// later name are counted under one name, `resilient.overflow`, and
/// `resilient::cardinality::folded()` (the gauge
/// `resilient_operation_names_folded`) says how many names went there. So
/// name a function after what it does (`name = format!("shard.{id}")` for a
/// handful of shards), never after a tenant, a user or a request: put those
/// in the report, a `tracing` span or a log line.
///
/// ```
/// use resilient::{Attempt, FakeClock, resilient};
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("busy")]
/// struct Busy;
///
/// #[resilient(retries = 1, backoff = constant("250ms"), clock = clock, name = "users.get")]
/// fn get_user(clock: &FakeClock, #[attempt] attempt: Attempt) -> Result<u32, Busy> {
///     if attempt.number() == 1 { Err(Busy) } else { Ok(7) }
/// }
///
/// #[resilient]
/// fn get_group() -> Result<u32, Busy> {
///     Ok(1)
/// }
///
/// let outcome = get_user(&FakeClock::new());
/// assert_eq!(outcome.report().name(), "users.get");
/// let table = outcome.report().to_string();
/// assert!(table.ends_with("users.get: 2 attempt(s), 1 retry, 250.0ms, stopped: succeeded"));
///
/// assert_eq!(get_group().report().name(), "get_group");
/// ```
///
/// ## Keeping the signature: `report`
///
/// By default the function returns an `Outcome<T, E>`, so that the caller
/// gets the report with the result. Where the signature is not the
/// function's to change (a trait's method, a function that callers already
/// use), `report = hook` keeps the declared `Result<T, E>` and hands the
/// report to `hook`, once per call, before returning. The hook is any
/// expression `Fn(&ExecutionReport)`: a function, or a closure that uses
/// the arguments (`report = |report| self.metrics.record(report)`).
///
/// ```
/// use resilient::{Attempt, ExecutionReport, resilient};
/// use std::sync::Mutex;
///
/// #[derive(Debug, PartialEq, thiserror::Error)]
/// #[error("busy")]
/// struct Busy;
///
/// trait Inventory {
///     fn stock(&self, sku: u32) -> Result<u32, Busy>;
/// }
///
/// static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());
///
/// fn log_report(report: &ExecutionReport) {
///     let line = format!("{}: {} attempt(s)", report.name(), report.attempt_count());
///     LOG.lock().unwrap().push(line);
/// }
///
/// struct Warehouse;
///
/// impl Inventory for Warehouse {
///     // The trait fixes the return type; `report` keeps it.
///     #[resilient(retries = 2, backoff = none, report = log_report)]
///     fn stock(&self, sku: u32, #[attempt] attempt: Attempt) -> Result<u32, Busy> {
///         if attempt.number() < 3 { Err(Busy) } else { Ok(sku % 10) }
///     }
/// }
///
/// let stock: Result<u32, Busy> = Warehouse.stock(42);
/// assert_eq!(stock, Ok(2));
/// assert_eq!(*LOG.lock().unwrap(), ["stock: 3 attempt(s)"]);
/// ```
///
/// An `async fn` in a trait's `impl` takes it the same way.
///
/// ## Time in tests: `clock`
///
/// Sleeps and deadlines go through a `Clock`. Pass one as an argument so
/// that a test can hand in a `FakeClock`: its sleeps return at once, and
/// it records every one of them.
///
/// ```
/// use resilient::{Clock, FakeClock, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("disk full")]
/// struct DiskFull;
///
/// // In production: `flush(&resilient::SystemClock)`.
/// #[resilient(retries = 3, backoff = exponential(base = "1s", jitter = none), clock = clock)]
/// fn flush(clock: &impl Clock) -> Result<(), DiskFull> {
///     Err(DiskFull)
/// }
///
/// let clock = FakeClock::new();
/// let outcome = flush(&clock);
/// assert_eq!(clock.slept(), [1, 2, 4].map(Duration::from_secs));
/// assert_eq!(outcome.report().elapsed(), Duration::from_secs(7));
/// ```
///
/// An `async fn` uses `TokioClock` by default, which follows tokio's paused
/// time: under `#[tokio::test(start_paused = true)]` its waits take no real
/// time, as in every async example here.
///
/// ## No clock readings: `timing`
///
/// Each attempt reads the clock when it starts and ends. A call on a hot
/// path that wants its counts but not those readings says `timing = false`:
/// the report keeps the attempts, their kinds, errors and retryable flags,
/// and the delays decided, but every time in it is zero. Waits still
/// happen, on the clock. The options measured on a clock (`timeout`,
/// `budget`, `max_elapsed`, `retry_after`) can't be combined with it.
///
/// ```
/// use resilient::{Attempt, FakeClock, resilient};
/// use std::time::Duration;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("cache miss")]
/// struct Miss;
///
/// #[resilient(retries = 2, backoff = constant("1ms"), clock = clock, timing = false)]
/// fn get(clock: &FakeClock, #[attempt] attempt: Attempt) -> Result<u32, Miss> {
///     clock.advance(Duration::from_millis(5)); // the work takes 5 ms
///     if attempt.number() == 1 { Err(Miss) } else { Ok(1) }
/// }
///
/// let clock = FakeClock::new();
/// let outcome = get(&clock);
/// assert_eq!(outcome.report().attempt_count(), 2);
/// assert_eq!(outcome.report().delays(), [Duration::from_millis(1)]);
/// assert_eq!(clock.slept(), [Duration::from_millis(1)]);
/// assert_eq!(outcome.report().elapsed(), Duration::ZERO);
/// assert_eq!(outcome.report().attempts()[1].started_at(), Duration::ZERO);
/// ```
///
/// ## A re-exported runtime: `crate`
///
/// The expansion names the runtime as `::resilient`. A crate that re-exports
/// `resilient` to its own users, who don't depend on it, says where it is:
///
/// ```
/// mod sdk {
///     // In a real SDK: `pub use resilient;` at the crate root.
///     pub use resilient;
/// }
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("offline")]
/// struct Offline;
///
/// #[sdk::resilient::resilient(crate = "sdk::resilient", retries = 2, backoff = none)]
/// fn connect() -> Result<(), Offline> {
///     Err(Offline)
/// }
///
/// let outcome: sdk::resilient::Outcome<(), Offline> = connect();
/// assert_eq!(outcome.report().attempt_count(), 3);
/// ```
///
/// ## The attempt's context: `#[attempt]`
///
/// A parameter marked `#[attempt]` (of type `resilient::Attempt`) is supplied
/// by the runtime and removed from the function's signature: callers don't
/// pass it. It tells the body `number()` (from 1), `retry_number()` (0 on the
/// first attempt), `deadline()` (the time granted to this attempt, with
/// `timeout` or `budget`) and `is_fallback()`.
///
/// ```
/// use resilient::{Attempt, resilient};
/// use std::num::ParseIntError;
///
/// #[resilient(retries = 2, backoff = none, budget = "10s")]
/// fn parse(text: &str, #[attempt] attempt: Attempt) -> Result<u32, ParseIntError> {
///     assert_eq!(attempt.retry_number(), attempt.number() - 1);
///     assert!(attempt.deadline().unwrap() <= std::time::Duration::from_secs(10));
///     text.trim().parse()
/// }
///
/// let outcome = parse(" 42 ");
/// assert_eq!(outcome.report().attempt_count(), 1);
/// assert_eq!(outcome.into_result(), Ok(42));
///
/// assert_eq!(parse("x").report().attempt_count(), 3);
/// ```
#[proc_macro_attribute]
pub fn resilient(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
