//! Runs one success path many times, for instruction counts under
//! callgrind: `valgrind --tool=callgrind target/release/examples/profile blocking`.
//! The scenarios are those of `overhead.rs`.

use std::hint::black_box;

use resilient::resilient;

#[derive(Debug)]
struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failure")
    }
}

impl From<resilient::TimedOut> for Failure {
    fn from(_: resilient::TimedOut) -> Self {
        Failure
    }
}

#[inline(never)]
fn work(x: u64) -> Result<u64, Failure> {
    Ok(black_box(x).wrapping_mul(31))
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
fn resilient_blocking(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timing = false)]
fn resilient_untimed(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timing = false)]
async fn resilient_async_untimed(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
async fn resilient_async(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timeout = "10s", budget = "30s")]
async fn resilient_async_limits(x: u64) -> Result<u64, Failure> {
    work(x)
}

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
    resilient_untimed(x).into_result()
}

#[inline(never)]
fn blocking_once(x: u64) -> Result<u64, Failure> {
    resilient_blocking(x).into_result()
}

async fn timeout_once(x: u64) -> Result<Result<u64, Failure>, tokio::time::error::Elapsed> {
    tokio::time::timeout(std::time::Duration::from_secs(10), async { work(x) }).await
}

const CALLS: u64 = 100_000;

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    match scenario.as_str() {
        "blocking" => (0..CALLS).for_each(|i| {
            black_box(blocking_once(i).ok());
        }),
        "operation" => (0..CALLS).for_each(|i| {
            black_box(operation_once(i).ok());
        }),
        "operation_async" => rt.block_on(async {
            for i in 0..CALLS {
                black_box(operation_async_once(i).await.ok());
            }
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
                let policy = backon::ExponentialBuilder::default()
                    .with_min_delay(std::time::Duration::from_millis(100))
                    .with_max_delay(std::time::Duration::from_secs(10))
                    .with_max_times(3)
                    .with_jitter();
                let result = (|| async { work(i) })
                    .retry(policy)
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
            "unknown scenario {other:?}: blocking, untimed, operation, clock, direct, async, async_untimed, async_backon, operation_async, limits, timeout"
        ),
    }
}
