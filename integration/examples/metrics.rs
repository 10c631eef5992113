//! The quickstart's flaky provider, with its metrics exported as
//! Prometheus text: what a dashboard scraping the service would get.
//!
//! Run with `cargo run -p resilient-integration --example metrics`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use metrics_exporter_prometheus::PrometheusBuilder;
use resilient::{CircuitBreaker, CircuitOpen, TimedOut, resilient};

/// What the provider can fail with.
#[derive(Debug, thiserror::Error)]
enum ProviderError {
    #[error("request timed out")]
    Timeout,
    #[error("provider overloaded (503)")]
    Transient,
    #[error("circuit open")]
    Open,
}

impl From<TimedOut> for ProviderError {
    fn from(_: TimedOut) -> Self {
        ProviderError::Timeout
    }
}

impl From<CircuitOpen> for ProviderError {
    fn from(_: CircuitOpen) -> Self {
        ProviderError::Open
    }
}

static CALLS: AtomicU32 = AtomicU32::new(0);

static BREAKER: std::sync::LazyLock<CircuitBreaker> = std::sync::LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("provider")
        .failure_threshold(5)
        .build()
        .expect("a valid breaker")
});

/// The simulated provider: the first call hangs, the second is refused,
/// every later one answers.
async fn provider(prompt: &str) -> Result<String, ProviderError> {
    match CALLS.fetch_add(1, Ordering::SeqCst) {
        0 => std::future::pending().await,
        1 => Err(ProviderError::Transient),
        _ => {
            tokio::time::sleep(Duration::from_millis(10)).await;
            Ok(format!("Hello! You said {prompt:?}."))
        }
    }
}

#[resilient(
    name = "provider.complete",
    retries = 3,
    retry_on = [Timeout, Transient],
    backoff = exponential(base = "50ms", max = "1s"),
    timeout = "200ms",
    circuit_breaker = &BREAKER,
)]
async fn call_provider(prompt: &str) -> Result<String, ProviderError> {
    provider(prompt).await
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let prometheus = PrometheusBuilder::new()
        .install_recorder()
        .expect("no other recorder is installed");
    for prompt in ["hi", "again"] {
        let outcome = call_provider(prompt).await;
        println!("{}\n", outcome.report());
    }
    // A break ends with no call to notice it: set every breaker's gauge to
    // its state now, right before rendering the scrape.
    resilient::metrics::refresh();
    println!("{}", prometheus.render());
}
