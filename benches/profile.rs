//! Runs one success path many times, for instruction counts under
//! callgrind: `valgrind --tool=callgrind target/release/examples/profile blocking`.
//! The scenarios are those of `overhead.rs` (`scenarios.rs`), and the
//! reqwest chains of `reqwest.rs` (`reqwest_clients.rs`).

use std::hint::black_box;
use std::time::Duration;

// The measured functions, shared with the other binary. Included as
// text, not as a module: a module is a codegen unit of its own, and a call
// across it would not be inlined as the peers' calls are.
include!("scenarios.rs");

// The reqwest chains of `reqwest.rs`.
include!("reqwest_clients.rs");

#[inline(never)]
fn two_clock_reads(x: u64) -> (std::time::Instant, std::time::Instant, Result<u64, Failure>) {
    let start = std::time::Instant::now();
    let result = work(x);
    (start, std::time::Instant::now(), result)
}

#[inline(never)]
fn operation_once(x: u64) -> Result<u64, Failure> {
    resilient::Operation::new()
        .max_attempts(4)
        .backoff(resilient::Backoff::exponential(
            std::time::Duration::from_millis(100),
            std::time::Duration::from_secs(10),
        ))
        .name("operation_once")
        .run(|_| work(x))
        .into_result()
}

async fn operation_async_once(x: u64) -> Result<u64, Failure> {
    resilient::Operation::new()
        .max_attempts(4)
        .clock(resilient::TokioClock)
        .run_async(async |_| work(x))
        .await
        .into_result()
}

#[inline(never)]
fn untimed_once(x: u64) -> Result<u64, Failure> {
    resilient_blocking_untimed(x).into_result()
}

#[inline(never)]
fn blocking_once(x: u64) -> Result<u64, Failure> {
    resilient_blocking(x).into_result()
}

async fn timeout_once(x: u64) -> Result<Result<u64, Failure>, tokio::time::error::Elapsed> {
    tokio::time::timeout(std::time::Duration::from_secs(10), async { work(x) }).await
}

const CALLS: u64 = 100_000;

/// Requests per reqwest scenario: each is a round trip through the local
/// server, thousands of times a call's instructions.
const REQUESTS: u64 = 2_000;

/// The reqwest scenarios: `REQUESTS` GETs to a local server through one
/// chain, client and server on one thread. What every scenario shares
/// (start-up, the server, one connection) cancels out in the difference
/// of two scenarios' counts.
fn reqwest_scenario(chain: &str) -> bool {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let chains = Chains::new();
    let client = match chain {
        "reqwest_empty" => &chains.empty,
        "reqwest_resilient" => &chains.resilient,
        "reqwest_retry" => &chains.reqwest_retry,
        _ => return false,
    };
    rt.block_on(async {
        let url = local_server().await;
        for _ in 0..REQUESTS {
            black_box(get(client, &url).await);
        }
    });
    true
}

/// The limiters of `limits.rs` and their peers, under callgrind: an
/// uncontended permit or rate check, `CALLS` times. `false` if `scenario`
/// is none of them.
fn limiter_scenario(scenario: &str) -> bool {
    use resilient::limit::{Bulkhead, Completion, Limiter, RateLimiter};
    use std::num::NonZeroU32;
    use std::time::Instant;
    // Rates no run can exhaust, as in `limits.rs`.
    let ours = || RateLimiter::per_second(u32::MAX).burst(u32::MAX);
    let quota = governor::Quota::per_second(NonZeroU32::MAX);
    match scenario {
        // The start-up alone, to subtract from the others.
        "limiter_startup" => {}
        "rate_limiter" => {
            let ours = ours();
            (0..CALLS).for_each(|_| {
                black_box(black_box(&ours).try_acquire(Instant::now()).is_ok());
            });
        }
        "rate_limiter_at" => {
            let (ours, now) = (ours(), Instant::now());
            (0..CALLS).for_each(|_| {
                black_box(black_box(&ours).check_at(black_box(now)).is_ok());
            });
        }
        "governor" => {
            let theirs = governor::RateLimiter::direct(quota);
            (0..CALLS).for_each(|_| {
                black_box(black_box(&theirs).check().is_ok());
            });
        }
        "governor_fake" => {
            let clock = governor::clock::FakeRelativeClock::default();
            let theirs = governor::RateLimiter::direct_with_clock(quota, clock);
            (0..CALLS).for_each(|_| {
                black_box(black_box(&theirs).check().is_ok());
            });
        }
        "bulkhead" => {
            let (bulkhead, now) = (Bulkhead::new(64), Instant::now());
            (0..CALLS).for_each(|_| {
                black_box(black_box(&bulkhead).try_acquire(now).is_ok());
                bulkhead.release(now, Duration::ZERO, Completion::Succeeded);
            });
        }
        "semaphore" => {
            let semaphore = tokio::sync::Semaphore::new(64);
            (0..CALLS).for_each(|_| drop(black_box(&semaphore).try_acquire()));
        }
        _ => return false,
    }
    true
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    if reqwest_scenario(&scenario) || limiter_scenario(&scenario) {
        return;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    match scenario.as_str() {
        "blocking" => (0..CALLS).for_each(|i| {
            black_box(blocking_once(i).ok());
        }),
        "blocking_chaos_off" => (0..CALLS).for_each(|i| {
            black_box(resilient_blocking_chaos_off(i).into_result().ok());
        }),
        "operation" => (0..CALLS).for_each(|i| {
            black_box(operation_once(i).ok());
        }),
        "operation_async" => rt.block_on(async {
            for i in 0..CALLS {
                black_box(operation_async_once(i).await.ok());
            }
        }),
        "tsc" => (0..CALLS).for_each(|i| {
            black_box(resilient_blocking_tsc(i).into_result().ok());
        }),
        "untimed" => (0..CALLS).for_each(|i| {
            black_box(untimed_once(i).ok());
        }),
        "async_untimed" => rt.block_on(async {
            for i in 0..CALLS {
                black_box(resilient_async_untimed(i).await.into_result().ok());
            }
        }),
        "async_backon" => rt.block_on(async {
            use backon::Retryable;
            for i in 0..CALLS {
                let result = (|| async { work(i) })
                    .retry(backon_policy())
                    .sleep(tokio::time::sleep)
                    .await;
                black_box(result.ok());
            }
        }),
        "direct" => (0..CALLS).for_each(|i| {
            black_box(work(i).ok());
        }),
        "clock" => (0..CALLS).for_each(|i| {
            let (start, end, result) = two_clock_reads(i);
            black_box((start, end, result.ok()));
        }),
        "async" => rt.block_on(async {
            for i in 0..CALLS {
                black_box(resilient_async(i).await.into_result().ok());
            }
        }),
        "limits" => rt.block_on(async {
            for i in 0..CALLS {
                black_box(resilient_async_limits(i).await.into_result().ok());
            }
        }),
        "timeout" => rt.block_on(async {
            for i in 0..CALLS {
                black_box(timeout_once(i).await.ok());
            }
        }),
        other => eprintln!(
            "unknown scenario {other:?}: blocking, untimed, tsc, operation, clock, direct, async, async_untimed, async_backon, operation_async, limits, timeout, reqwest_empty, reqwest_resilient, reqwest_retry, limiter_startup, rate_limiter, rate_limiter_at, governor, governor_fake, bulkhead, semaphore"
        ),
    }
}
