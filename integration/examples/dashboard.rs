//! The dashboard, live, against a simulated flaky dependency: four
//! operations called in a loop, one of them behind a breaker whose
//! dependency goes down for 8 s every 30 s.
//!
//! Run with `cargo run -p resilient-integration --example dashboard`, then
//! open <http://127.0.0.1:3000/resilience> (set `PORT` for another port).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use resilient::{CircuitBreaker, CircuitOpen, RetryThrottle, TimedOut, resilient};

#[derive(Debug, thiserror::Error)]
enum DependencyError {
    #[error("dependency unavailable (503)")]
    Unavailable,
    #[error("timed out")]
    Timeout,
    #[error("circuit open")]
    Open,
}

impl From<TimedOut> for DependencyError {
    fn from(_: TimedOut) -> Self {
        DependencyError::Timeout
    }
}

impl From<CircuitOpen> for DependencyError {
    fn from(_: CircuitOpen) -> Self {
        DependencyError::Open
    }
}

/// A cheap, seedable noise source: the simulation needs no better.
fn noise() -> f64 {
    static STATE: AtomicU64 = AtomicU64::new(0x2545_f491_4f6c_dd1d);
    let mut x = STATE.load(Ordering::Relaxed);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    STATE.store(x, Ordering::Relaxed);
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// The simulated dependency: answers after `latency` (±50 %), failing
/// `failure_rate` of the calls.
async fn dependency(latency: Duration, failure_rate: f64) -> Result<u64, DependencyError> {
    tokio::time::sleep(latency.mul_f64(0.5 + noise())).await;
    if noise() < failure_rate {
        Err(DependencyError::Unavailable)
    } else {
        Ok(1)
    }
}

static STARTED: std::sync::LazyLock<Instant> = std::sync::LazyLock::new(Instant::now);

/// Whether the payments dependency is in its outage: 8 s out of every 30.
fn payments_down() -> bool {
    STARTED.elapsed().as_secs() % 30 >= 22
}

static PAYMENTS: std::sync::LazyLock<CircuitBreaker> = std::sync::LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("payments")
        .failure_threshold(5)
        .break_duration(Duration::from_secs(3))
        .build()
        .expect("a valid breaker")
});

static RECOMMENDATIONS: RetryThrottle = RetryThrottle::new(10, 0.1);

#[resilient(name = "inventory.reserve", retries = 2, backoff = exponential(base = "10ms", max = "100ms"))]
async fn inventory_reserve() -> Result<u64, DependencyError> {
    dependency(Duration::from_millis(12), 0.15).await
}

#[resilient(name = "payments.charge", circuit_breaker = &PAYMENTS, timeout = "200ms")]
async fn payments_charge() -> Result<u64, DependencyError> {
    let failure_rate = if payments_down() { 1.0 } else { 0.02 };
    dependency(Duration::from_millis(40), failure_rate).await
}

async fn cached_results() -> Result<u64, DependencyError> {
    Ok(0)
}

#[resilient(name = "search.query", retries = 1, backoff = none, timeout = "80ms", fallback = cached_results)]
async fn search_query() -> Result<u64, DependencyError> {
    dependency(Duration::from_millis(50), 0.2).await
}

#[resilient(name = "recommendations.fetch", retries = 3, backoff = constant("20ms"), throttle = &RECOMMENDATIONS)]
async fn recommendations_fetch() -> Result<u64, DependencyError> {
    dependency(Duration::from_millis(8), 0.08).await
}

/// Calls `call` about `per_second` times a second, forever.
fn load<F, Fut>(per_second: u32, call: F)
where
    F: Fn() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(1) / per_second);
        loop {
            every.tick().await;
            tokio::spawn(call());
        }
    });
}

#[tokio::main]
async fn main() {
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}"))
        .await
        .expect("the port is free");
    std::sync::LazyLock::force(&STARTED);
    load(40, || async {
        let _ = inventory_reserve().await;
    });
    load(25, || async {
        let _ = payments_charge().await;
    });
    load(15, || async {
        let _ = search_query().await;
    });
    load(20, || async {
        let _ = recommendations_fetch().await;
    });
    println!("dashboard: http://127.0.0.1:{port}/resilience");
    let app = Router::new().nest_service("/resilience", resilient::dashboard::router());
    axum::serve(listener, app).await.expect("the server runs");
}
