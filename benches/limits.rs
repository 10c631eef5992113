//! An uncontended permit of each limiter next to its peer, in one run:
//! `Bulkhead` acquire + release next to tokio's `Semaphore::try_acquire`
//! (and the permit's drop), `RateLimiter` next to governor's `check()`:
//! each with its own clock reading (`Instant::now()` for ours, the
//! time-stamp counter through quanta for governor), and the algorithm
//! alone at a given instant (governor on its fake clock).
//!
//! `cargo bench --bench limits`. See BENCHMARKS.md for a run.

use std::hint::black_box;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use resilient::limit::{Bulkhead, Completion, Limiter, RateLimiter};

fn concurrency(c: &mut Criterion) {
    let mut g = c.benchmark_group("uncontended concurrency permit");
    let bulkhead = Bulkhead::new(64);
    let now = Instant::now();
    g.bench_function("Bulkhead try_acquire + release", |b| {
        b.iter(|| {
            let taken = black_box(&bulkhead).try_acquire(now);
            bulkhead.release(now, Duration::ZERO, Completion::Succeeded);
            taken
        })
    });
    let semaphore = tokio::sync::Semaphore::new(64);
    g.bench_function("tokio Semaphore::try_acquire + drop", |b| {
        b.iter(|| drop(black_box(&semaphore).try_acquire()))
    });
    g.finish();
}

fn rate(c: &mut Criterion) {
    let mut g = c.benchmark_group("uncontended rate check");
    // Rates no run can exhaust: every check conforms.
    let ours = RateLimiter::per_second(u32::MAX).burst(u32::MAX);
    g.bench_function("RateLimiter try_acquire(Instant::now())", |b| {
        b.iter(|| black_box(&ours).try_acquire(Instant::now()))
    });
    let theirs = governor::RateLimiter::direct(governor::Quota::per_second(NonZeroU32::MAX));
    g.bench_function("governor check()", |b| {
        b.iter(|| black_box(&theirs).check())
    });
    // The algorithm alone, the clock read once: ours at a given instant,
    // governor on its fake clock (one atomic load).
    let now = Instant::now();
    g.bench_function("RateLimiter check_at(given instant)", |b| {
        b.iter(|| black_box(&ours).check_at(black_box(now)))
    });
    let fake = governor::clock::FakeRelativeClock::default();
    let theirs_fake = governor::RateLimiter::direct_with_clock(
        governor::Quota::per_second(NonZeroU32::MAX),
        fake,
    );
    g.bench_function("governor check(), fake clock", |b| {
        b.iter(|| black_box(&theirs_fake).check())
    });
    g.finish();
}

criterion_group!(limits, concurrency, rate);
criterion_main!(limits);
