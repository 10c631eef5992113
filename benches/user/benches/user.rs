//! The user-shaped rows under criterion, side by side in one run:
//! `cargo bench -p resilient-user-bench`. The headline table of
//! BENCHMARKS.md comes from the `ratios` binary, which measures the same
//! functions in interleaved rounds.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use resilient_user_bench::shapes;

fn blocking(c: &mut Criterion) {
    let mut g = c.benchmark_group("user-shaped blocking");
    g.bench_function("direct call", |b| b.iter(|| shapes::fetch(black_box(7))));
    g.bench_function("two Instant::now()", |b| {
        b.iter(|| shapes::two_instants(black_box(7)))
    });
    g.bench_function("#[resilient] retry_on", |b| {
        b.iter(|| shapes::value(shapes::blocking(black_box(7))))
    });
    g.bench_function("#[resilient] retry_on timing=false", |b| {
        b.iter(|| shapes::value(shapes::blocking_untimed(black_box(7))))
    });
    g.bench_function("backon", |b| {
        b.iter(|| shapes::backon_blocking(black_box(7)))
    });
    g.finish();
}

fn asynchronous(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let mut g = c.benchmark_group("user-shaped async");
    g.bench_function("awaited call", |b| {
        b.to_async(&rt).iter(|| shapes::fetch_async(black_box(7)))
    });
    g.bench_function("bare tokio::time::timeout", |b| {
        b.to_async(&rt).iter(|| shapes::bare_timeout(black_box(7)))
    });
    g.bench_function("#[resilient] retry_on", |b| {
        b.to_async(&rt)
            .iter(|| async { shapes::value(shapes::asynchronous(black_box(7)).await) })
    });
    g.bench_function("#[resilient] retry_on timing=false", |b| {
        b.to_async(&rt)
            .iter(|| async { shapes::value(shapes::asynchronous_untimed(black_box(7)).await) })
    });
    g.bench_function("#[resilient] retry_on timeout+budget", |b| {
        b.to_async(&rt)
            .iter(|| async { shapes::value(shapes::asynchronous_limits(black_box(7)).await) })
    });
    g.bench_function("backon", |b| {
        b.to_async(&rt).iter(|| shapes::backon_async(black_box(7)))
    });
    g.finish();
}

criterion_group!(benches, blocking, asynchronous);
criterion_main!(benches);
