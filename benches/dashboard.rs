//! What the dashboard's counting costs a call that succeeds at once: one
//! atomic add to the operation's latency bucket, no allocation, no lock.
//!
//! The same functions are measured in two builds, without and with the
//! feature, and criterion compares them:
//!
//! ```sh
//! cargo bench -p resilient-bench --bench dashboard -- --save-baseline plain
//! cargo bench -p resilient-bench --bench dashboard --features dashboard -- --baseline plain
//! ```
//!
//! "one relaxed fetch_add" is the floor: what the count itself costs.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use resilient::{FakeClock, Operation, resilient};

#[derive(Debug)]
struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failure")
    }
}

#[inline(never)]
fn work(x: u64) -> u64 {
    x.wrapping_mul(31).wrapping_add(7)
}

#[resilient(retries = 3)]
fn counted(x: u64) -> Result<u64, Failure> {
    Ok(work(x))
}

#[resilient(retries = 3, timing = false)]
fn counted_untimed(x: u64) -> Result<u64, Failure> {
    Ok(work(x))
}

fn success(c: &mut Criterion) {
    let feature = if cfg!(feature = "dashboard") {
        "on"
    } else {
        "off"
    };
    let mut g = c.benchmark_group("dashboard counting");
    println!("feature dashboard: {feature}");
    g.bench_function("one relaxed fetch_add", |b| {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        b.iter(|| COUNT.fetch_add(black_box(1), Ordering::Relaxed))
    });
    g.bench_function("#[resilient] retries=3", |b| {
        b.iter(|| counted(black_box(7)).into_result())
    });
    g.bench_function("#[resilient] retries=3 timing=false", |b| {
        b.iter(|| counted_untimed(black_box(7)).into_result())
    });
    // An operation built by hand finds its counts by name, under a read lock.
    let clock = FakeClock::new();
    g.bench_function("Operation named, by hand", |b| {
        b.iter(|| {
            Operation::new()
                .name("bench.by_hand")
                .max_attempts(4)
                .clock(&clock)
                .run(|_| Ok::<_, Failure>(work(black_box(7))))
                .into_result()
        })
    });
    g.finish();
}

criterion_group!(benches, success);
criterion_main!(benches);
