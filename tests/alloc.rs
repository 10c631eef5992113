//! The success path allocates nothing: 1 000 successful calls of each kind,
//! `timeout` and `budget` set, a circuit breaker consulted or permits
//! taken from limiters, hedged calls whose first attempt answers before the
//! hedge delay (a hedged call allocates only once a hedge starts), the full
//! report built, under a counting global allocator.
//!
//! With the `metrics` feature, each call records two series through the
//! `metrics` facade (an attempt counter and the duration histogram), into
//! a recorder installed here that keeps them as an exporter does: found by
//! key in a map, counted in atomics. The keys are the operation's own,
//! made on their first use from labels its `static` holds, so a call
//! allocates nothing there either, its first one included (counted before
//! the recorder is installed, which allocates to store new series); the
//! recorder's counts show that every call was recorded. `.ci/run` also
//! runs this test without the feature, with `metrics` alone (where the
//! first call is counted: the dashboard's registry of operations allocates
//! on it), and with `dashboard` alone: the
//! dashboard's counts are atomics, so they add none (an operation's first
//! call, which registers it, is the warm-up call below).
//!
//! Runs without the test harness so no other thread allocates meanwhile.

use std::alloc::System;
use std::hint::black_box;
use std::sync::LazyLock;

use resilient::limit::{AdaptiveLimit, Bulkhead, RateLimiter};
use resilient::{CircuitBreaker, CircuitOpen, LimitExceeded, TimedOut, resilient};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[derive(Debug)]
struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failure")
    }
}

impl From<TimedOut> for Failure {
    fn from(_: TimedOut) -> Self {
        Failure
    }
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
fn blocking(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), budget = "30s", max_elapsed = "20s")]
fn blocking_with_budget(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
async fn plain_async(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timeout = "10s", budget = "30s")]
async fn async_with_limits(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

/// Hedged, answering at once: long before the hedge delay.
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), hedge = "10s")]
async fn hedged(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

/// Hedged, answering on its second poll, by when the hedge's timer runs.
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), hedge = "10s", max_hedges = 2)]
async fn hedged_after_a_poll(x: u64) -> Result<u64, Failure> {
    pending_once().await;
    Ok(x + 1)
}

/// Pending once, and woken at once: an attempt that is not over on its
/// first poll. (Not `tokio::task::yield_now`, whose wake-up the runtime
/// queues in a list it allocates in each `block_on`.)
async fn pending_once() {
    let mut polled = false;
    std::future::poll_fn(|cx| {
        if std::mem::replace(&mut polled, true) {
            std::task::Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await;
}

#[resilient(retries = 1, backoff = none)]
fn fails_once(#[attempt] attempt: resilient::Attempt, x: u64) -> Result<u64, Failure> {
    if attempt.number() == 1 {
        Err(Failure)
    } else {
        Ok(x + 1)
    }
}

/// A call through a breaker takes the engine's general path: it must not
/// allocate on success either.
static BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(CircuitBreaker::default);

impl From<CircuitOpen> for Failure {
    fn from(_: CircuitOpen) -> Self {
        Failure
    }
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), circuit_breaker = &BREAKER)]
async fn async_breaker(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), circuit_breaker = &BREAKER)]
fn blocking_breaker(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

/// A call with `limit` takes and returns its permits in atomics: a
/// bulkhead's count, a rate limiter's cell, an adaptive limit's sample.
static POOL: Bulkhead = Bulkhead::new(8);
static QUOTA: RateLimiter = RateLimiter::per_second(1_000_000_000);
static ADAPTIVE: LazyLock<AdaptiveLimit> = LazyLock::new(AdaptiveLimit::gradient2);

impl From<LimitExceeded> for Failure {
    fn from(_: LimitExceeded) -> Self {
        Failure
    }
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), limit = [&POOL, &QUOTA, &*ADAPTIVE])]
async fn async_limited(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), limit = [&POOL, &QUOTA, &*ADAPTIVE], limit_wait = "1s")]
fn blocking_limited(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

const CALLS: u64 = 1_000;

/// A recorder that keeps its series as an exporter does: each found by its
/// key in a map, under a lock, its value in an atomic. A histogram keeps
/// only its number of samples: an exporter's buckets allocate blocks as
/// they fill, which is the exporter's cost, whoever records.
#[cfg(feature = "metrics")]
mod recorder {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::{Arc, LazyLock, Mutex, PoisonError};

    use metrics::{
        Counter, CounterFn, Gauge, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
        SharedString, Unit,
    };

    /// A counter's count, or a histogram's number of samples.
    #[derive(Default)]
    struct Value(AtomicU64);

    impl CounterFn for Value {
        fn increment(&self, by: u64) {
            self.0.fetch_add(by, Relaxed);
        }

        fn absolute(&self, value: u64) {
            self.0.fetch_max(value, Relaxed);
        }
    }

    impl HistogramFn for Value {
        fn record(&self, _: f64) {
            self.0.fetch_add(1, Relaxed);
        }
    }

    static SERIES: LazyLock<Mutex<HashMap<Key, Arc<Value>>>> = LazyLock::new(Default::default);

    fn value_of(key: &Key) -> Arc<Value> {
        let mut series = SERIES.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(value) = series.get(key) {
            return Arc::clone(value);
        }
        Arc::clone(series.entry(key.clone()).or_default())
    }

    pub struct Kept;

    impl Recorder for Kept {
        fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
        fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

        fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
            Counter::from_arc(value_of(key))
        }

        fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
            Gauge::noop()
        }

        fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
            Histogram::from_arc(value_of(key))
        }
    }

    /// The value of the series `name` labelled `labels`, in that order.
    pub fn value(name: &str, labels: &[(&str, &str)]) -> Option<u64> {
        let series = SERIES.lock().unwrap_or_else(PoisonError::into_inner);
        series.iter().find_map(|(key, value)| {
            let labelled = key
                .labels()
                .map(|label| (label.key(), label.value()))
                .eq(labels.iter().copied());
            (key.name() == name && labelled).then(|| value.0.load(Relaxed))
        })
    }
}

/// Allocations made by `f`, after one warm-up call (first-use
/// initialisation of thread-locals and the runtime is not the success path).
fn allocations(mut f: impl FnMut(u64) -> u64) -> usize {
    black_box(f(0));
    let region = Region::new(GLOBAL);
    for i in 0..CALLS {
        assert_eq!(black_box(f(black_box(i))), i + 1);
    }
    region.change().allocations
}

/// Bytes `f` left allocated, after one warm-up call: what its reports
/// own must be freed when `into_result` drops them.
fn bytes_kept(mut f: impl FnMut(u64) -> u64) -> isize {
    black_box(f(0));
    let region = Region::new(GLOBAL);
    for i in 0..CALLS {
        assert_eq!(black_box(f(black_box(i))), i + 1);
    }
    let change = region.change();
    change.bytes_allocated as isize - change.bytes_deallocated as isize
}

/// Prints the result of the case `name`, which passes when `count` of
/// `what` in [`CALLS`] calls is zero, and returns whether it passed.
fn zero(name: &str, count: i64, what: &str) -> bool {
    let verdict = if count == 0 { "ok" } else { "FAILED" };
    println!("test {name} ... {verdict} ({count} {what} in {CALLS} calls)");
    count == 0
}

/// Functions with an entry of their own in the installed configuration
/// (feature `config`): their first success reads it from their `static`.
#[cfg(feature = "config")]
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
fn configured_blocking(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[cfg(feature = "config")]
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
async fn configured_async(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

#[cfg(feature = "config")]
#[resilient(retries = 3, timeout = "1s", backoff = exponential(base = "100ms", max = "10s"))]
async fn configured_timed_async(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

/// A function called once, before the recorder is installed.
#[resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
fn called_once(x: u64) -> Result<u64, Failure> {
    Ok(x + 1)
}

/// Allocations made by `f`'s first call.
fn first_call_allocations(f: impl FnOnce() -> u64) -> usize {
    let region = Region::new(GLOBAL);
    black_box(f());
    region.change().allocations
}

fn main() {
    // An operation's first call makes its series exist at zero and its
    // keys: from the labels its `static` holds, so that this allocates
    // nothing either (as long as no recorder stores them: none is
    // installed yet). The dashboard's registry of operations does
    // allocate on a first call.
    let first_call = first_call_allocations(|| called_once(1).into_result().unwrap());
    #[cfg(feature = "metrics")]
    if metrics::set_global_recorder(recorder::Kept).is_err() {
        panic!("a recorder was installed already");
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let cases: [(&str, usize); 12] = [
        (
            "async hedged, answering before the hedge",
            allocations(|x| rt.block_on(hedged(x)).into_result().unwrap()),
        ),
        (
            "async hedged, answering on its second poll",
            allocations(|x| {
                let outcome = rt.block_on(hedged_after_a_poll(x));
                assert_eq!(outcome.report().attempt_count(), 1);
                outcome.into_result().unwrap()
            }),
        ),
        (
            "Operation::hedge, answering before the hedge",
            allocations(|x| {
                let call = resilient::Operation::new()
                    .max_attempts(4)
                    .clock(resilient::TokioClock)
                    .hedge(std::time::Duration::from_secs(10))
                    .run_async(async |_| Ok::<u64, Failure>(x + 1));
                rt.block_on(call).into_result().unwrap()
            }),
        ),
        (
            "async with limit",
            allocations(|x| rt.block_on(async_limited(x)).into_result().unwrap()),
        ),
        (
            "blocking with limit and limit_wait",
            allocations(|x| blocking_limited(x).into_result().unwrap()),
        ),
        (
            "Operation::run_async through a breaker",
            allocations(|x| {
                // Named by hand: its counts and keys are found by name.
                let call = resilient::Operation::new()
                    .name("checkout")
                    .max_attempts(4)
                    .circuit_breaker(&BREAKER)
                    .clock(resilient::TokioClock)
                    .run_async(async |_| Ok::<u64, Failure>(x + 1));
                rt.block_on(call).into_result().unwrap()
            }),
        ),
        (
            "async breaker",
            allocations(|x| rt.block_on(async_breaker(x)).into_result().unwrap()),
        ),
        (
            "blocking breaker",
            allocations(|x| blocking_breaker(x).into_result().unwrap()),
        ),
        (
            "blocking",
            allocations(|x| {
                let outcome = blocking(x);
                assert_eq!(outcome.report().attempt_count(), 1);
                outcome.into_result().unwrap()
            }),
        ),
        (
            "blocking with budget",
            allocations(|x| blocking_with_budget(x).into_result().unwrap()),
        ),
        (
            "async",
            allocations(|x| rt.block_on(plain_async(x)).into_result().unwrap()),
        ),
        (
            "async with timeout and budget",
            allocations(|x| {
                let outcome = rt.block_on(async_with_limits(x));
                assert_eq!(
                    outcome.report().attempts()[0].deadline(),
                    Some(std::time::Duration::from_secs(10))
                );
                outcome.into_result().unwrap()
            }),
        ),
    ];
    // Past the limit on names, a call is counted under the overflow's name,
    // with the overflow's keys: it allocates nothing either.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    let past_the_limit = {
        resilient::cardinality::set_limit(resilient::cardinality::counted());
        allocations(|x| {
            resilient::Operation::new()
                .name("past.the.limit")
                .max_attempts(4)
                .run(|_| Ok::<u64, Failure>(x + 1))
                .into_result()
                .unwrap()
        })
    };
    // Under an installed configuration with an entry for the function, a
    // first success reads the entry's version, and the timeout and budget
    // it sets, from the function's `static`: no lookup, no lock, no
    // allocation.
    #[cfg(feature = "config")]
    let configured = {
        use resilient::SettingsSource;
        use std::time::Duration;
        let version = resilient::config::install_toml(
            "[operations.configured_blocking]\nretries = 5\nmax_delay = \"1s\"\n\
             timeout = \"2s\"\nbudget = \"5s\"\n\
             [operations.configured_async]\nretries = 5\njitter = \"none\"\n\
             [operations.configured_timed_async]\ntimeout = \"3s\"\nbudget = \"2s\"\n",
        )
        .expect("a valid configuration");
        let source = SettingsSource::Config { version };
        let granted = |report: &resilient::ExecutionReport| report.attempts()[0].deadline();
        let cases = [
            (
                "blocking, its own entry (timeout, budget) installed",
                allocations(|x| {
                    let outcome = configured_blocking(x);
                    assert_eq!(outcome.report().settings_source(), source);
                    assert_eq!(granted(outcome.report()), Some(Duration::from_secs(2)));
                    outcome.into_result().unwrap()
                }),
            ),
            (
                "async, its own entry (timeout, budget) installed",
                allocations(|x| {
                    let outcome = rt.block_on(configured_timed_async(x));
                    assert_eq!(outcome.report().settings_source(), source);
                    assert_eq!(granted(outcome.report()), Some(Duration::from_secs(2)));
                    outcome.into_result().unwrap()
                }),
            ),
            (
                "async, its own entry installed",
                allocations(|x| {
                    let outcome = rt.block_on(configured_async(x));
                    assert_eq!(outcome.report().settings_source(), source);
                    outcome.into_result().unwrap()
                }),
            ),
        ];
        resilient::config::clear();
        cases
    };
    // The control: a failure renders its message into the report, so the
    // counter must see allocations here, or it is not counting at all.
    let control = allocations(|x| fails_once(x).into_result().unwrap());
    let mut failed = 0;
    if control < CALLS as usize {
        failed += 1;
        println!("test control ... FAILED (a failing call should allocate; saw {control})");
    }
    // `into_result` forgets a report that owns nothing; one that owns its
    // name or a rendered error is dropped, and frees it.
    let kept = [
        (
            "into_result frees a report's rendered errors",
            bytes_kept(|x| fails_once(x).into_result().unwrap()),
        ),
        (
            "into_result frees a report's owned name",
            bytes_kept(|x| {
                resilient::Operation::new()
                    .name(format!("owned.{}", x % 2))
                    .max_attempts(4)
                    .run(|_| Ok::<u64, Failure>(x + 1))
                    .into_result()
                    .unwrap()
            }),
        ),
    ];
    for (name, bytes) in kept {
        failed += usize::from(!zero(name, bytes as i64, "bytes kept"));
    }
    #[cfg(feature = "metrics")]
    for operation in [
        "blocking",
        "hedged",
        "async_breaker",
        "blocking_limited",
        "checkout",
    ] {
        // The warm-up call and the counted ones.
        let calls = Some(CALLS + 1);
        let attempts = [
            ("operation", operation),
            ("kind", "primary"),
            ("outcome", "success"),
        ];
        let durations = [("operation", operation), ("stop_reason", "succeeded")];
        let recorded = (
            recorder::value("resilient_attempts_total", &attempts),
            recorder::value("resilient_operation_duration_seconds", &durations),
        );
        if recorded != (calls, calls) {
            failed += 1;
            println!("test recorded {operation} ... FAILED (attempts and durations {recorded:?})");
        }
    }
    let mut total = cases.len() + 3;
    if cfg!(not(feature = "dashboard")) {
        total += 1;
        if first_call == 0 {
            println!("test first call ... ok (0 allocations)");
        } else {
            failed += 1;
            println!("test first call ... FAILED ({first_call} allocations)");
        }
    }
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    {
        total += 1;
        let name = "Operation named past the limit on names";
        if past_the_limit == 0 {
            println!("test {name} ... ok (0 allocations in {CALLS} calls)");
        } else {
            failed += 1;
            println!("test {name} ... FAILED ({past_the_limit} allocations in {CALLS} calls)");
        }
    }
    #[cfg(feature = "config")]
    let cases = {
        total += configured.len();
        cases.into_iter().chain(configured)
    };
    for (name, count) in cases {
        failed += usize::from(!zero(name, count as i64, "allocations"));
    }
    println!("\nalloc: {} passed, {failed} failed", total - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}
