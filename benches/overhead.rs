//! Success-path overhead of `#[resilient]` next to a direct call and the
//! peers (backon, tokio-retry), in one run; plus the failure path on a fake
//! clock and the circuit breaker's closed path under two threads. The
//! blocking group also prices a `chaos` switch that is off.
//!
//! `cargo bench --bench overhead`. See BENCHMARKS.md for a run and what the
//! figures mean.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use resilient::{Backoff, CircuitBreaker, FakeClock, Jitter, Operation};

// The measured functions, shared with the other binary. Included as
// text, not as a module: a module is a codegen unit of its own, and a call
// across it would not be inlined as the peers' calls are.
include!("scenarios.rs");

fn blocking(c: &mut Criterion) {
    use backon::BlockingRetryable;
    let mut g = c.benchmark_group("blocking success");
    g.bench_function("direct call", |b| b.iter(|| work(black_box(7))));
    g.bench_function("two Instant::now() around the call", |b| {
        b.iter(|| {
            let start = std::time::Instant::now();
            let result = work(black_box(7));
            (black_box(start), std::time::Instant::now(), result)
        })
    });
    g.bench_function("#[resilient] retries=3", |b| {
        b.iter(|| resilient_blocking(black_box(7)).into_result())
    });
    g.bench_function("#[resilient] retries=3 timing=false", |b| {
        b.iter(|| resilient_blocking_untimed(black_box(7)).into_result())
    });
    g.bench_function("#[resilient] retries=3 chaos off", |b| {
        b.iter(|| resilient_blocking_chaos_off(black_box(7)).into_result())
    });
    g.bench_function("#[resilient] retries=3 clock=TscClock", |b| {
        b.iter(|| resilient_blocking_tsc(black_box(7)).into_result())
    });
    g.bench_function("backon", |b| {
        b.iter(|| (|| work(black_box(7))).retry(backon_policy()).call())
    });
    g.finish();
}

fn asynchronous(c: &mut Criterion) {
    use backon::Retryable;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let mut g = c.benchmark_group("async success");
    g.bench_function("direct call", |b| {
        b.to_async(&rt).iter(|| async { work(black_box(7)) })
    });
    g.bench_function("#[resilient] retries=3", |b| {
        b.to_async(&rt)
            .iter(|| async { resilient_async(black_box(7)).await.into_result() })
    });
    g.bench_function("tokio::time::timeout", |b| {
        b.to_async(&rt).iter(|| async {
            tokio::time::timeout(Duration::from_secs(10), async { work(black_box(7)) }).await
        })
    });
    g.bench_function("#[resilient] retries=3 timing=false", |b| {
        b.to_async(&rt)
            .iter(|| async { resilient_async_untimed(black_box(7)).await.into_result() })
    });
    g.bench_function("#[resilient] retries=3 timeout+budget", |b| {
        b.to_async(&rt)
            .iter(|| async { resilient_async_limits(black_box(7)).await.into_result() })
    });
    g.bench_function("backon", |b| {
        b.to_async(&rt).iter(|| async {
            (|| async { work(black_box(7)) })
                .retry(backon_policy())
                .sleep(tokio::time::sleep)
                .await
        })
    });
    g.bench_function("tokio-retry", |b| {
        b.to_async(&rt).iter(|| async {
            let strategy = tokio_retry::strategy::ExponentialBackoff::from_millis(100)
                .max_delay(Duration::from_secs(10))
                .map(tokio_retry::strategy::jitter)
                .take(3);
            tokio_retry::Retry::start(strategy, || async { work(black_box(7)) }).await
        })
    });
    g.finish();
}

fn failure_path(c: &mut Criterion) {
    let mut g = c.benchmark_group("failure path");
    g.bench_function("3 retries on FakeClock", |b| {
        let clock = FakeClock::new();
        b.iter(|| {
            Operation::new()
                .max_attempts(4)
                .backoff(
                    Backoff::exponential(Duration::from_millis(100), Duration::from_secs(10))
                        .jitter(Jitter::Full),
                )
                .clock(&clock)
                .run(|_| Err::<u64, _>(Failure))
        })
    });
    g.finish();
}

fn breaker(c: &mut Criterion) {
    let breaker = CircuitBreaker::builder()
        .failure_threshold(5)
        .break_duration(Duration::from_secs(30))
        .build()
        .expect("a valid breaker");
    let mut g = c.benchmark_group("circuit breaker");
    g.bench_function("try_acquire + record_success, two threads", |b| {
        b.iter_custom(|iters| {
            let run = || {
                let start = std::time::Instant::now();
                let now = start;
                for _ in 0..iters {
                    let permit = breaker.try_acquire(black_box(now)).expect("closed");
                    permit.record_success(now);
                }
                start.elapsed()
            };
            std::thread::scope(|s| {
                let other = s.spawn(run);
                let mine = run();
                mine.max(other.join().expect("bench thread"))
            })
        })
    });
    g.bench_function("whole operation through it, two threads", |b| {
        b.iter_custom(|iters| {
            let run = || {
                let start = std::time::Instant::now();
                for i in 0..iters {
                    let outcome = Operation::new()
                        .circuit_breaker(&breaker)
                        .run(|_| work(black_box(i)));
                    black_box(outcome.into_result().ok());
                }
                start.elapsed()
            };
            std::thread::scope(|s| {
                let other = s.spawn(run);
                let mine = run();
                mine.max(other.join().expect("bench thread"))
            })
        })
    });
    g.finish();
}

criterion_group!(benches, blocking, asynchronous, failure_path, breaker);
criterion_main!(benches);
