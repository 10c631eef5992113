//! reqwest-middleware with `ResilientMiddleware` in place of reqwest-retry's
//! `RetryTransientMiddleware`: a local server answers 503, then 429 with
//! `Retry-After: 1`, then 200, and each response carries its report.
//!
//! Run with `cargo run -p resilient-integration --example reqwest_middleware`.

#[path = "support/scripted_server.rs"]
mod scripted_server;

use std::time::Duration;

use resilient::reqwest::ResilientMiddleware;
use resilient::{Backoff, ExecutionReport, Jitter};

#[tokio::main]
async fn main() -> Result<(), reqwest_middleware::Error> {
    let (addr, log) = scripted_server::start().await;

    // The one line that changes when coming from reqwest-retry.
    let resilient = ResilientMiddleware::new()
        .name("flaky.get")
        .retries(3)
        .backoff(
            Backoff::exponential(Duration::from_millis(50), Duration::from_secs(1))
                .jitter(Jitter::None),
        )
        .timeout(Duration::from_secs(2))
        .budget(Duration::from_secs(10));
    let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(resilient)
        .build();

    for path in ["/flaky", "/missing"] {
        let response = client.get(format!("http://{addr}{path}")).send().await?;
        let report = response.extensions().get::<ExecutionReport>().cloned();
        println!("GET {path} -> {}", response.status());
        if let Some(report) = report {
            println!("{report}\n");
        }
    }
    println!("the server saw {} request(s)", log.requests().len());
    Ok(())
}
