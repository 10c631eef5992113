// The functions `overhead.rs` measures and `profile.rs` runs under
// callgrind, written once so that the two measure the same code. Each
// binary `include!`s this file, so that they stay in its own codegen unit:
// a call into another crate or module would not be inlined as the peers'
// calls are. The includer brings `black_box` and `Duration` into scope.

use resilient::{CircuitOpen, TimedOut, resilient};

#[derive(Debug)]
struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failure")
    }
}

impl std::error::Error for Failure {}

impl From<TimedOut> for Failure {
    fn from(_: TimedOut) -> Self {
        Failure
    }
}

impl From<CircuitOpen> for Failure {
    fn from(_: CircuitOpen) -> Self {
        Failure
    }
}

/// The call every row makes.
#[inline(never)]
fn work(x: u64) -> Result<u64, Failure> {
    Ok(black_box(x).wrapping_mul(31))
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
fn resilient_blocking(x: u64) -> Result<u64, Failure> {
    work(x)
}

/// Off, as chaos is in production until switched on: what it costs is one
/// relaxed load of the switch per attempt.
static CHAOS_OFF: resilient::chaos::Chaos = resilient::chaos::Chaos::new().injection_rate(1.0);

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), chaos = &CHAOS_OFF, chaos_fault = Failure)]
fn resilient_blocking_chaos_off(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timing = false)]
fn resilient_blocking_untimed(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), clock = resilient::TscClock)]
fn resilient_blocking_tsc(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
async fn resilient_async(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timing = false)]
async fn resilient_async_untimed(x: u64) -> Result<u64, Failure> {
    work(x)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timeout = "10s", budget = "30s")]
async fn resilient_async_limits(x: u64) -> Result<u64, Failure> {
    work(x)
}

/// backon's equivalent of the attribute's options above.
fn backon_policy() -> backon::ExponentialBuilder {
    backon::ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(10))
        .with_max_times(3)
        .with_jitter()
}
