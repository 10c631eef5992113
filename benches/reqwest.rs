//! The reqwest middleware's cost on a successful local request, beside
//! reqwest-retry's `RetryTransientMiddleware`, in one run: a GET to an
//! axum server on 127.0.0.1 answering 200, through reqwest-middleware with
//! no middleware, with `ResilientMiddleware`, and with
//! `RetryTransientMiddleware`, each allowed three retries. Client and
//! server share one thread, so that another process's load moves every
//! row alike.
//!
//! `cargo bench -p resilient-bench --bench reqwest`. BENCHMARKS.md has a
//! run, and the instruction counts of the same chains under callgrind
//! (`profile.rs`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

// The server and the chains, shared with `profile.rs`.
include!("reqwest_clients.rs");

fn success(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = runtime.block_on(local_server());
    let chains = Chains::new();

    let mut g = c.benchmark_group("reqwest success");
    let rows = [
        ("reqwest-middleware, no middleware", &chains.empty),
        ("ResilientMiddleware retries=3", &chains.resilient),
        (
            "reqwest-retry RetryTransientMiddleware, 3 retries",
            &chains.reqwest_retry,
        ),
    ];
    for (name, client) in rows {
        g.bench_function(name, |b| b.to_async(&runtime).iter(|| get(client, &url)));
    }
    g.finish();
}

criterion_group!(benches, success);
criterion_main!(benches);
