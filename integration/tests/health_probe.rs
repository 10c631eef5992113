//! The readiness route on a real server on 127.0.0.1: `200` and `UP`
//! while the breaker it watches is closed, `503` and `DOWN` once an
//! operation's failures open it, `UP` again once a probe closes it; a
//! breaker it doesn't watch is listed and can't make it down.
//!
//! Real time, bounded: every request has a 5 s timeout; the break is
//! 200 ms.

use std::sync::LazyLock;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use resilient::health::Probe;
use resilient::{CircuitBreaker, CircuitOpen, RetryThrottle, resilient};
use serde_json::Value;

static LEDGER: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("health.ledger")
        .failure_threshold(2)
        .break_duration(Duration::from_millis(200))
        .build()
        .expect("a valid breaker")
});

static REPORTS: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("health.reports")
        .failure_threshold(1)
        .build()
        .expect("a valid breaker")
});

static LEDGER_RETRIES: RetryThrottle = RetryThrottle::new(10, 0.1);

#[derive(Debug, thiserror::Error)]
enum LedgerError {
    #[error("ledger unavailable")]
    Unavailable,
    #[error("circuit open")]
    Open(#[from] CircuitOpen),
}

#[resilient(circuit_breaker = &LEDGER, throttle = &LEDGER_RETRIES)]
async fn post_entry(fail: bool) -> Result<(), LedgerError> {
    if fail {
        Err(LedgerError::Unavailable)
    } else {
        Ok(())
    }
}

#[resilient(circuit_breaker = &REPORTS)]
async fn render_report() -> Result<(), LedgerError> {
    Err(LedgerError::Unavailable)
}

async fn ready(base: &str) -> (StatusCode, Value) {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let response = client.get(format!("{base}/ready")).send().await.unwrap();
    let status = StatusCode::from_u16(response.status().as_u16()).unwrap();
    let body = response.text().await.unwrap();
    (status, serde_json::from_str(&body).unwrap())
}

fn ledger(body: &Value) -> &Value {
    &body["components"]["breakers"]["components"]["health.ledger"]
}

#[tokio::test]
async fn the_readiness_route_follows_the_breaker_it_watches() {
    LazyLock::force(&LEDGER);
    LazyLock::force(&REPORTS);
    let probe = Probe::new().breakers(["health.ledger"]);
    let app = Router::new().nest_service("/ready", resilient::dashboard::health(probe));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let (status, body) = ready(&base).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "UP");
    assert_eq!(ledger(&body)["details"]["state"], "closed");

    // A breaker it doesn't watch, open: listed, and still UP.
    assert!(render_report().await.into_result().is_err());
    let (status, body) = ready(&base).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let reports = &body["components"]["breakers"]["components"]["health.reports"];
    assert_eq!(reports["status"], "DOWN");
    assert_eq!(reports["details"]["decides"], false);

    // Two failures open the ledger's breaker: the probe answers 503.
    for _ in 0..2 {
        assert!(post_entry(true).await.into_result().is_err());
    }
    let (status, body) = ready(&base).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["status"], "DOWN");
    assert_eq!(body["components"]["breakers"]["status"], "DOWN");
    assert_eq!(ledger(&body)["status"], "DOWN");
    assert_eq!(ledger(&body)["details"]["state"], "open");
    assert_eq!(ledger(&body)["details"]["decides"], true);
    // The operation's retry throttle is listed as its last call left it.
    let throttle = &body["components"]["throttles"]["components"]["post_entry"];
    assert_eq!(throttle["details"]["tokens"], 8.0, "{body}");
    assert_eq!(throttle["details"]["max"], 10.0);

    // The break ends: half-open is up, and a successful probe closes it.
    tokio::time::sleep(Duration::from_millis(250)).await;
    let (status, body) = ready(&base).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(ledger(&body)["details"]["state"], "half-open");
    assert!(post_entry(false).await.into_result().is_ok());
    let (status, body) = ready(&base).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(ledger(&body)["details"]["state"], "closed");
}
