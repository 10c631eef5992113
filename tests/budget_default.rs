//! The process's retry budget (`throttle::budget_default`, a
//! configuration's `[throttles.default]`): every operation without a
//! throttle of its own keeps its retries within it, whatever shape its
//! function expands to. A binary of its own: the budget is the whole
//! process's, and the other suites' retries must not meet it. Its tests
//! take turns.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use resilient::throttle::{self, Unlimited};
use resilient::{FakeClock, Operation, RetryThrottle, Retryable, StopReason, resilient};

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

static TURNS: Mutex<()> = Mutex::new(());

/// This test's turn, with no default in force at its start.
fn turn() -> MutexGuard<'static, ()> {
    let turn = TURNS.lock().unwrap_or_else(PoisonError::into_inner);
    throttle::clear_budget_default();
    #[cfg(feature = "config")]
    resilient::config::clear();
    turn
}

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("down")]
struct Down;

/// A blocking function that always fails, whose every option is a
/// constant: its expansion runs the first attempt outside the engine.
#[resilient(retries = 3, backoff = none)]
fn always_down() -> Result<(), Down> {
    Err(Down)
}

/// The same on a clock of the caller's: its operation is built per call.
#[resilient(retries = 3, backoff = constant("1s"), clock = clock)]
fn always_down_on(clock: &FakeClock) -> Result<(), Down> {
    Err(Down)
}

#[resilient(retries = 3, backoff = none)]
fn always_up() -> Result<u32, Down> {
    Ok(1)
}

#[resilient(retries = 3, backoff = constant("1s"))]
async fn always_down_async() -> Result<(), Down> {
    Err(Down)
}

fn attempts(calls: impl Iterator<Item = u32>) -> u32 {
    calls.sum()
}

#[test]
fn in_a_brownout_the_backend_receives_at_most_the_budgets_extra_load() {
    let _turn = turn();
    // Without a default, each of 100 failing calls makes 4 attempts.
    assert_eq!(
        attempts((0..100).map(|_| always_down().report().attempt_count())),
        400
    );

    static BUDGET: RetryThrottle = RetryThrottle::new(10, 0.1);
    throttle::budget_default(&BUDGET);
    let clock = FakeClock::new();
    // 10 tokens, a retry while more than 5 are left: the first call fails
    // 4 times (10 -> 6), the second once (6 -> 5) and is refused its
    // retry; every later call runs its first attempt only.
    let first = always_down_on(&clock);
    assert_eq!(first.report().attempt_count(), 4);
    assert_eq!(clock.slept(), [secs(1); 3]);
    let second = always_down_on(&clock);
    assert_eq!(second.report().attempt_count(), 1);
    assert_eq!(second.report().stop_reason(), StopReason::Throttled);
    assert_eq!(clock.slept(), [secs(1); 3], "no wait after a refusal");
    let rest = attempts((0..98).map(|_| always_down().report().attempt_count()));
    assert_eq!(rest, 98, "the budget is shared by every function");
    assert_eq!(BUDGET.tokens(), 0.0);

    // Successes refill it, whichever path their call took: 61 of them
    // add 6.1 tokens, and one retry is allowed again (6.1 -> 5.1 -> 4.1).
    for _ in 0..61 {
        assert_eq!(always_up().into_result(), Ok(1));
    }
    assert!((BUDGET.tokens() - 6.1).abs() < 1e-9, "{}", BUDGET.tokens());
    assert_eq!(always_down().report().attempt_count(), 2);

    throttle::clear_budget_default();
    assert!(throttle::budget_default_in_force().is_none());
    assert_eq!(always_down().report().attempt_count(), 4);
}

#[test]
fn operations_closures_and_async_functions_keep_within_it_and_a_throttle_of_their_own_opts_out() {
    let _turn = turn();
    static BUDGET: RetryThrottle = RetryThrottle::new(4, 0.1);
    throttle::budget_default(&BUDGET);

    // 4 tokens: one retry (4 -> 3 -> 2), then none.
    let clock = FakeClock::new();
    let op = Operation::new().max_attempts(5).clock(clock.clone());
    assert_eq!(op.run(|_| Err::<(), _>(Down)).report().attempt_count(), 2);
    assert_eq!(clock.slept().len(), 1);
    static POLICY: resilient::RetryPolicy = resilient::RetryPolicy::builder()
        .max_attempts(5)
        .build_const();
    let closure = (|| Err::<(), _>(Down)).retry(&POLICY).call();
    assert_eq!(closure.report().attempt_count(), 1);
    assert_eq!(closure.report().stop_reason(), StopReason::Throttled);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    let outcome = runtime.block_on(always_down_async());
    assert_eq!(outcome.report().attempt_count(), 1);
    assert_eq!(outcome.report().stop_reason(), StopReason::Throttled);

    // A throttle of its own, `Unlimited` for none, keeps it out.
    let own = Operation::new()
        .max_attempts(5)
        .clock(clock.clone())
        .throttle(&Unlimited);
    assert_eq!(own.run(|_| Err::<(), _>(Down)).report().attempt_count(), 5);
    assert_eq!(clock.slept().len(), 5);
    assert_eq!(
        BUDGET.tokens(),
        0.0,
        "an opted-out operation spends nothing"
    );
    throttle::clear_budget_default();
}

#[cfg(feature = "config")]
#[test]
fn a_configurations_throttles_default_turns_it_on_and_code_takes_precedence() {
    let _turn = turn();
    resilient::config::install_toml("[throttles.default]\nmax_tokens = 4\ntoken_ratio = 0.5\n")
        .unwrap();
    let configured = throttle::budget_default_in_force().expect("configured");
    assert_eq!(configured.level(), Some((4.0, 4.0)));
    assert_eq!(always_down().report().attempt_count(), 2);
    assert_eq!(always_down().report().attempt_count(), 1);
    assert_eq!(configured.level(), Some((1.0, 4.0)));

    // Another entry keeps the count (cut to the new maximum) and applies
    // its numbers.
    resilient::config::install_toml("[throttles.default]\nmax_tokens = 2\n").unwrap();
    assert_eq!(configured.level(), Some((1.0, 2.0)));

    // One set in code takes precedence while it is set.
    static BUDGET: RetryThrottle = RetryThrottle::new(10, 0.1);
    throttle::budget_default(&BUDGET);
    assert_eq!(always_down().report().attempt_count(), 4);
    throttle::clear_budget_default();
    assert_eq!(always_down().report().attempt_count(), 1);

    // A configuration without the entry turns it off.
    resilient::config::install_toml("[throttles.other]\nmax_tokens = 2\n").unwrap();
    assert!(throttle::budget_default_in_force().is_none());
    assert_eq!(always_down().report().attempt_count(), 4);
    resilient::config::clear();
}
