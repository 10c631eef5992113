//! The reqwest middleware's cost on a successful local request, beside
//! reqwest-retry's `RetryTransientMiddleware`, in one run: a GET to an
//! axum server on 127.0.0.1 answering 200, through a bare
//! `reqwest::Client`, through reqwest-middleware with no middleware, with
//! `ResilientMiddleware`, and with `RetryTransientMiddleware`, each allowed
//! three retries.
//!
//! `cargo bench --bench reqwest`. BENCHMARKS.md has a run.

use std::hint::black_box;

use axum::Router;
use axum::routing::get;
use criterion::{Criterion, criterion_group, criterion_main};
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use reqwest_retry::RetryTransientMiddleware;
use reqwest_retry::policies::ExponentialBackoff;
use resilient::reqwest::ResilientMiddleware;

fn success(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let url = runtime.block_on(async {
        let app = Router::new().route("/", get(|| async { "ok" }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}/")
    });

    let bare = reqwest::Client::new();
    let chain = |middleware: Option<Box<dyn FnOnce(ClientBuilder) -> ClientBuilder>>| {
        let builder = ClientBuilder::new(reqwest::Client::new());
        match middleware {
            Some(add) => add(builder).build(),
            None => builder.build(),
        }
    };
    let empty = chain(None);
    let ours = chain(Some(Box::new(|b| b.with(ResilientMiddleware::new().retries(3)))));
    let theirs = chain(Some(Box::new(|b| {
        b.with(RetryTransientMiddleware::new_with_policy(
            ExponentialBackoff::builder().build_with_max_retries(3),
        ))
    })));

    let mut g = c.benchmark_group("reqwest success");
    g.bench_function("reqwest::Client", |b| {
        b.to_async(&runtime).iter(|| async {
            let response = bare.get(black_box(&url)).send().await.unwrap();
            black_box(response.status())
        })
    });
    let through = |client: &ClientWithMiddleware| {
        let client = client.clone();
        let url = url.clone();
        move || {
            let client = client.clone();
            let url = url.clone();
            async move {
                let response = client.get(black_box(&url)).send().await.unwrap();
                black_box(response.status())
            }
        }
    };
    g.bench_function("reqwest-middleware, no middleware", |b| {
        b.to_async(&runtime).iter(through(&empty))
    });
    g.bench_function("ResilientMiddleware retries=3", |b| {
        b.to_async(&runtime).iter(through(&ours))
    });
    g.bench_function("reqwest-retry RetryTransientMiddleware, 3 retries", |b| {
        b.to_async(&runtime).iter(through(&theirs))
    });
    g.finish();
}

criterion_group!(benches, success);
criterion_main!(benches);
